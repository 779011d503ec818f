use crate::domain::{BookingView, Ticket};
use crate::error::InventoryError;
use leptos::prelude::*;

/// The current customer's booking.
#[server(endpoint = "get_booking", input = server_fn::codec::Json)]
pub async fn get_booking(booking_id: String) -> Result<BookingView, InventoryError> {
    use crate::engine::{current_customer, inventory, respond};
    respond(
        async {
            inventory()?
                .booking(booking(&booking_id)?, current_customer()?)
                .await
        }
        .await,
    )
}

/// The ticket of the current customer's confirmed booking.
#[server(endpoint = "get_ticket", input = server_fn::codec::Json)]
pub async fn get_ticket(booking_id: String) -> Result<Ticket, InventoryError> {
    use crate::engine::{current_customer, inventory, respond};
    respond(
        async {
            inventory()?
                .ticket(booking(&booking_id)?, current_customer()?)
                .await
        }
        .await,
    )
}

/// The current customer's bookings, newest first.
#[server(endpoint = "my_bookings", input = server_fn::codec::Json)]
pub async fn my_bookings() -> Result<Vec<BookingView>, InventoryError> {
    use crate::engine::{current_customer, inventory, respond};
    respond(async { inventory()?.bookings(current_customer()?).await }.await)
}

/// A booking id from the page's address: one that is not a UUID names no booking (404, as the
/// page of an unknown booking).
#[cfg(feature = "ssr")]
fn booking(raw: &str) -> Result<crate::domain::BookingId, InventoryError> {
    uuid::Uuid::try_parse(raw)
        .map(crate::domain::BookingId)
        .map_err(|_| InventoryError::BookingNotFound)
}
