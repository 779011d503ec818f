use crate::domain::{BookingView, Ticket};
use crate::error::InventoryError;
use leptos::prelude::*;

/// The current customer's booking.
#[server(endpoint = "get_booking", input = server_fn::codec::Json)]
pub async fn get_booking(booking_id: String) -> Result<BookingView, InventoryError> {
    crate::engine::respond(get_booking_inner(booking_id).await)
}

/// The ticket of the current customer's confirmed booking.
#[server(endpoint = "get_ticket", input = server_fn::codec::Json)]
pub async fn get_ticket(booking_id: String) -> Result<Ticket, InventoryError> {
    crate::engine::respond(get_ticket_inner(booking_id).await)
}

/// The current customer's bookings, newest first.
#[server(endpoint = "my_bookings", input = server_fn::codec::Json)]
pub async fn my_bookings() -> Result<Vec<BookingView>, InventoryError> {
    crate::engine::respond(my_bookings_inner().await)
}

#[cfg(feature = "ssr")]
fn booking_id(raw: &str) -> Result<crate::domain::BookingId, InventoryError> {
    uuid::Uuid::try_parse(raw)
        .map(crate::domain::BookingId)
        .map_err(|_| InventoryError::BookingNotFound)
}

#[cfg(feature = "ssr")]
async fn get_booking_inner(raw: String) -> Result<BookingView, InventoryError> {
    let customer = crate::engine::current_customer()?;
    crate::engine::inventory()?
        .booking(booking_id(&raw)?, customer)
        .await
}

#[cfg(feature = "ssr")]
async fn get_ticket_inner(raw: String) -> Result<Ticket, InventoryError> {
    let customer = crate::engine::current_customer()?;
    crate::engine::inventory()?
        .ticket(booking_id(&raw)?, customer)
        .await
}

#[cfg(feature = "ssr")]
async fn my_bookings_inner() -> Result<Vec<BookingView>, InventoryError> {
    let customer = crate::engine::current_customer()?;
    crate::engine::inventory()?.bookings(customer).await
}
