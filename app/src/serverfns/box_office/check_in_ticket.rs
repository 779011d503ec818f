use crate::domain::{CheckIn, ScanAt};
use crate::error::InventoryError;
use leptos::prelude::*;

/// Checks a ticket in at the door.
#[server(endpoint = "check_in_ticket", input = server_fn::codec::Json)]
pub async fn check_in_ticket(code: String, at: ScanAt) -> Result<CheckIn, InventoryError> {
    use crate::domain::DOOR_ROLES;
    use crate::engine::{inventory, require_staff, respond};
    respond(
        async {
            let actor = require_staff(&DOOR_ROLES).await?;
            inventory()?.check_in_ticket(&actor, &code, &at).await
        }
        .await,
    )
}
