//! Server functions: thin wrappers that parse their input, call the engine (the trait method
//! of the same name) and return its typed error. One per file, grouped by area; the endpoint
//! of each is its name (`/api/<name>`).

mod bookings;
mod box_office;
mod console;
mod holds;
mod queue;
mod showtimes;
mod staff;

pub use bookings::*;
pub use box_office::*;
pub use console::*;
pub use holds::*;
pub use queue::*;
pub use showtimes::*;
pub use staff::*;
