//! The routed pages: the customer's here, the staff's under `staff/` (the console, the box
//! office kiosk, the door).

mod booking;
mod find_booking;
mod not_found;
mod queue;
pub(crate) mod seat_map;
mod showtimes;
pub(crate) mod staff;

pub use booking::{BookingPage, MyBookingsPage};
pub use find_booking::FindBookingPage;
pub use not_found::NotFound;
pub use queue::QueuePage;
pub use seat_map::SeatMapPage;
pub use showtimes::ShowtimesPage;
pub use staff::{
    AdminPage, AuditPage, BookingsPage, BoxOfficePage, DoorPage, HallsPage, SalesPage, SignInPage,
    TokensPage,
};
