use crate::error::InventoryError;
use leptos::prelude::*;

/// Revokes an API token at once: operators only.
#[server(endpoint = "revoke_api_token", input = server_fn::codec::Json)]
pub async fn revoke_api_token(id: i64) -> Result<(), InventoryError> {
    use crate::engine::{inventory, require_staff, respond};
    respond(
        async {
            let actor = require_staff(&[]).await?;
            inventory()?.revoke_api_token(id, &actor).await
        }
        .await,
    )
}
