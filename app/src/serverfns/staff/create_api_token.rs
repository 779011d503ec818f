use crate::domain::NewApiToken;
use crate::error::InventoryError;
use leptos::prelude::*;

/// A new API token for the reports, named for what or who it is for: operators only. The
/// secret is in this answer and nowhere else.
#[server(endpoint = "create_api_token", input = server_fn::codec::Json)]
pub async fn create_api_token(name: String) -> Result<NewApiToken, InventoryError> {
    use crate::engine::{inventory, require_staff, respond};
    respond(
        async {
            let actor = require_staff(&[]).await?;
            inventory()?.create_api_token(&name, &actor).await
        }
        .await,
    )
}
