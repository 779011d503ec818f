//! The routed pages.

mod not_found;
mod seat_map;
mod showtimes;

pub use not_found::NotFound;
pub use seat_map::SeatMapPage;
pub use showtimes::ShowtimesPage;
