use crate::error::InventoryError;
use leptos::prelude::*;

/// Releases the clerk's picks (the sale was cancelled).
#[server(endpoint = "clerk_release", input = server_fn::codec::Json)]
pub async fn clerk_release() -> Result<usize, InventoryError> {
    use crate::domain::COUNTER_ROLES;
    use crate::engine::{inventory, require_staff, respond};
    respond(
        async {
            let actor = require_staff(&COUNTER_ROLES).await?;
            inventory()?.clerk_release(&actor).await
        }
        .await,
    )
}
