use crate::error::InventoryError;
use leptos::prelude::*;

/// E-mails the booking's link again to the address it was booked with (once in 10 minutes):
/// the session that opens it may cancel. Answers the address, masked.
#[server(endpoint = "send_booking_link", input = server_fn::codec::Json)]
pub async fn send_booking_link(booking_id: String) -> Result<String, InventoryError> {
    use crate::engine::{current_customer, inventory, respond};
    respond(
        async {
            inventory()?
                .send_booking_link(super::booking(&booking_id)?, current_customer()?)
                .await
        }
        .await,
    )
}
