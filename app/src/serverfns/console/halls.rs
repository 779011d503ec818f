use crate::domain::HallSummary;
use crate::error::InventoryError;
use leptos::prelude::*;

/// Every hall with its number of seats: operators only.
#[server(endpoint = "halls", input = server_fn::codec::Json)]
pub async fn halls() -> Result<Vec<HallSummary>, InventoryError> {
    use crate::engine::{inventory, require_staff, respond};
    respond(
        async {
            require_staff(&[]).await?;
            inventory()?.halls().await
        }
        .await,
    )
}
