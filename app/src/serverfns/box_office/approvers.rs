use crate::error::InventoryError;
use leptos::prelude::*;

/// The supervisors and operators who may approve at the counter (with a PIN, not disabled), by
/// name: the box office's roles.
#[server(endpoint = "approvers", input = server_fn::codec::Json)]
pub async fn approvers() -> Result<Vec<String>, InventoryError> {
    use crate::domain::COUNTER_ROLES;
    use crate::engine::{inventory, require_staff, respond};
    respond(
        async {
            require_staff(&COUNTER_ROLES).await?;
            inventory()?.approvers().await
        }
        .await,
    )
}
