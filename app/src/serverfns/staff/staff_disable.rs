use crate::error::InventoryError;
use leptos::prelude::*;

/// Disables a staff member (not oneself) and ends their sessions: operators only. Audited.
#[server(endpoint = "staff_disable", input = server_fn::codec::Json)]
pub async fn staff_disable(member: String) -> Result<(), InventoryError> {
    use crate::engine::{inventory, require_staff, respond};
    respond(
        async {
            let actor = require_staff(&[]).await?;
            inventory()?.disable_member(&member, &actor).await
        }
        .await,
    )
}
