//! Server functions: thin wrappers that parse their input, call the engine and return its typed
//! error. One per file.

mod api_tokens;
mod audit_log;
mod cancel_hold;
mod cancel_showtime;
mod checkout_hold;
mod create_api_token;
mod current_hold;
mod export_hall;
mod get_booking;
mod get_seat_map;
mod halls;
mod hold_seats;
mod import_hall;
mod list_showtimes;
mod revoke_api_token;
mod sales_figures;
mod schedule_showtime;
mod showtime_figures;
mod staff_me;
mod staff_sign_in;
mod staff_sign_out;

pub use api_tokens::*;
pub use audit_log::*;
pub use cancel_hold::*;
pub use cancel_showtime::*;
pub use checkout_hold::*;
pub use create_api_token::*;
pub use current_hold::*;
pub use export_hall::*;
pub use get_booking::*;
pub use get_seat_map::*;
pub use halls::*;
pub use hold_seats::*;
pub use import_hall::*;
pub use list_showtimes::*;
pub use revoke_api_token::*;
pub use sales_figures::*;
pub use schedule_showtime::*;
pub use showtime_figures::*;
pub use staff_me::*;
pub use staff_sign_in::*;
pub use staff_sign_out::*;
