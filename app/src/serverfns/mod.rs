//! Server functions: thin wrappers that parse their input, call the engine and return its typed
//! error. One per file.

mod get_seat_map;
mod list_showtimes;

pub use get_seat_map::*;
pub use list_showtimes::*;
