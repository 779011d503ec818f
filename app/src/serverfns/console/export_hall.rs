use crate::domain::HallPlan;
use crate::error::InventoryError;
use leptos::prelude::*;

/// A hall's plan, to export: operators only.
#[server(endpoint = "export_hall", input = server_fn::codec::Json)]
pub async fn export_hall(hall_id: i64) -> Result<HallPlan, InventoryError> {
    use crate::engine::{inventory, require_staff, respond};
    respond(
        async {
            require_staff(&[]).await?;
            inventory()?.export_hall(hall_id).await
        }
        .await,
    )
}
