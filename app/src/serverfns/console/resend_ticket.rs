use crate::error::InventoryError;
use leptos::prelude::*;

/// Sends a booking's ticket to its address again (operators and supervisors): a customer who
/// lost the e-mail. `booking`: its id, its 8-character number or a ticket's code. Only a
/// confirmed booking that stands and has an address; the message goes out like the first.
#[server(endpoint = "resend_ticket", input = server_fn::codec::Json)]
pub async fn resend_ticket(booking: String) -> Result<(), InventoryError> {
    use crate::domain::APPROVER_ROLES;
    use crate::engine::{inventory, require_staff, respond};
    respond(
        async {
            let actor = require_staff(&APPROVER_ROLES).await?;
            inventory()?.resend_ticket(&booking, &actor).await
        }
        .await,
    )
}
