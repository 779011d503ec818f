//! What is on: the programme and a showtime's seat map.

mod get_seat_map;
mod list_showtimes;

pub use get_seat_map::*;
pub use list_showtimes::*;
