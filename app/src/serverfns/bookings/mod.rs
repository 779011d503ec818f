//! The customer's bookings and tickets (a booking id that is not a UUID names no booking).

mod cancel_booking;
mod get_booking;
mod get_ticket;
mod lookup_booking;
mod my_bookings;
mod send_booking_link;

pub use cancel_booking::*;
pub use get_booking::*;
pub use get_ticket::*;
pub use lookup_booking::*;
pub use my_bookings::*;
pub use send_booking_link::*;

/// A booking id from the page's address: one that is not a UUID names no booking (404, as the
/// page of an unknown booking).
#[cfg(feature = "ssr")]
fn booking(raw: &str) -> Result<crate::domain::BookingId, crate::error::InventoryError> {
    uuid::Uuid::try_parse(raw)
        .map(crate::domain::BookingId)
        .map_err(|_| crate::error::InventoryError::BookingNotFound)
}
