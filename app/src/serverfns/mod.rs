//! Server functions: thin wrappers that parse their input, call the engine and return its typed
//! error. One per file.

mod cancel_hold;
mod checkout_hold;
mod current_hold;
mod get_booking;
mod get_seat_map;
mod hold_seats;
mod list_showtimes;
mod sales_figures;

pub use cancel_hold::*;
pub use checkout_hold::*;
pub use current_hold::*;
pub use get_booking::*;
pub use get_seat_map::*;
pub use hold_seats::*;
pub use list_showtimes::*;
pub use sales_figures::*;
