use crate::error::InventoryError;
use leptos::prelude::*;

/// Sets the caller's kiosk PIN (4 to 8 digits), confirmed with their password. Any role.
#[server(endpoint = "staff_set_pin", input = server_fn::codec::Json)]
pub async fn staff_set_pin(password: String, pin: String) -> Result<(), InventoryError> {
    use crate::domain::StaffRole;
    use crate::engine::{inventory, require_staff, respond};
    respond(
        async {
            let actor = require_staff(&StaffRole::ALL).await?;
            inventory()?.staff_set_pin(&actor, &password, &pin).await
        }
        .await,
    )
}
