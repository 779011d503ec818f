//! The routed pages.

mod booking;
mod box_office;
mod door;
mod not_found;
pub(crate) mod seat_map;
mod showtimes;
pub(crate) mod staff;

pub use booking::{BookingPage, MyBookingsPage};
pub use box_office::BoxOfficePage;
pub use door::DoorPage;
pub use not_found::NotFound;
pub use seat_map::SeatMapPage;
pub use showtimes::ShowtimesPage;
pub use staff::{AdminPage, AuditPage, HallsPage, SalesPage, SignInPage, TokensPage};
