use crate::domain::{Approval, PrintedTicket};
use crate::error::InventoryError;
use leptos::prelude::*;

/// A booking's ticket to print; printing it again is a reprint, approved by a supervisor.
#[server(endpoint = "print_ticket", input = server_fn::codec::Json)]
pub async fn print_ticket(
    booking: String,
    approval: Option<Approval>,
) -> Result<PrintedTicket, InventoryError> {
    use crate::domain::COUNTER_ROLES;
    use crate::engine::{inventory, require_staff, respond};
    respond(
        async {
            let actor = require_staff(&COUNTER_ROLES).await?;
            inventory()?
                .print_ticket(&actor, &booking, approval.as_ref())
                .await
        }
        .await,
    )
}
