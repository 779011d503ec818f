use crate::domain::BookingView;
use crate::error::InventoryError;
use leptos::prelude::*;

/// The current customer's booking.
#[server(endpoint = "get_booking", input = server_fn::codec::Json)]
pub async fn get_booking(booking_id: String) -> Result<BookingView, InventoryError> {
    use crate::engine::{current_customer, inventory, respond};
    respond(
        async {
            inventory()?
                .get_booking(super::booking(&booking_id)?, current_customer()?)
                .await
        }
        .await,
    )
}
