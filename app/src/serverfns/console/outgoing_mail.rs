use crate::domain::CustomerMessage;
use crate::error::InventoryError;
use leptos::prelude::*;

/// The newest messages to customers and how each went (operators and supervisors), for the
/// console's bookings page: parked ones need a look.
#[server(endpoint = "outgoing_mail", input = server_fn::codec::Json)]
pub async fn outgoing_mail() -> Result<Vec<CustomerMessage>, InventoryError> {
    use crate::domain::APPROVER_ROLES;
    use crate::engine::{inventory, require_staff, respond};
    respond(
        async {
            require_staff(&APPROVER_ROLES).await?;
            inventory()?.outgoing_mail().await
        }
        .await,
    )
}
