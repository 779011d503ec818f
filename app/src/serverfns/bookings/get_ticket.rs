use crate::domain::Ticket;
use crate::error::InventoryError;
use leptos::prelude::*;

/// The ticket of the current customer's confirmed booking.
#[server(endpoint = "get_ticket", input = server_fn::codec::Json)]
pub async fn get_ticket(booking_id: String) -> Result<Ticket, InventoryError> {
    use crate::engine::{current_customer, inventory, respond};
    respond(
        async {
            inventory()?
                .get_ticket(super::booking(&booking_id)?, current_customer()?)
                .await
        }
        .await,
    )
}
