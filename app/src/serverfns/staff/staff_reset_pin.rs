use crate::error::InventoryError;
use leptos::prelude::*;

/// Sets another member's kiosk PIN, or removes it (`pin` none): operators only (a supervisor
/// who forgot hers, a clerk's first PIN). Audited.
#[server(endpoint = "staff_reset_pin", input = server_fn::codec::Json)]
pub async fn staff_reset_pin(member: String, pin: Option<String>) -> Result<(), InventoryError> {
    use crate::engine::{inventory, require_staff, respond};
    respond(
        async {
            let actor = require_staff(&[]).await?;
            inventory()?
                .staff_reset_pin(&member, pin.as_deref(), &actor)
                .await
        }
        .await,
    )
}
