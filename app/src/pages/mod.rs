//! The routed pages.

mod booking;
mod not_found;
pub(crate) mod seat_map;
mod showtimes;
mod staff;

pub use booking::{BookingPage, MyBookingsPage};
pub use not_found::NotFound;
pub use seat_map::SeatMapPage;
pub use showtimes::ShowtimesPage;
pub use staff::{AdminPage, AuditPage, HallsPage, SalesPage, SignInPage, TokensPage};
