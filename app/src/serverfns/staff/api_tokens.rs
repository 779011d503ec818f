use crate::domain::ApiToken;
use crate::error::InventoryError;
use leptos::prelude::*;

/// Every API token for the reports: operators only.
#[server(endpoint = "api_tokens", input = server_fn::codec::Json)]
pub async fn api_tokens() -> Result<Vec<ApiToken>, InventoryError> {
    use crate::engine::{inventory, require_staff, respond};
    respond(
        async {
            require_staff(&[]).await?;
            inventory()?.api_tokens().await
        }
        .await,
    )
}
