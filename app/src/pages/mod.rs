//! The routed pages.

mod booking;
mod not_found;
mod sales;
mod seat_map;
mod showtimes;

pub use booking::{BookingPage, MyBookingsPage};
pub use not_found::NotFound;
pub use sales::SalesPage;
pub use seat_map::SeatMapPage;
pub use showtimes::ShowtimesPage;
