//! The operator's console: halls, the schedule, blocked seats, figures.

mod block_seats;
mod cancel_showtime;
mod export_hall;
mod find_booking;
mod halls;
mod import_hall;
mod outgoing_mail;
mod resend_ticket;
mod sales_figures;
mod schedule_showtime;
mod showtime_figures;

pub use block_seats::*;
pub use cancel_showtime::*;
pub use export_hall::*;
pub use find_booking::*;
pub use halls::*;
pub use import_hall::*;
pub use outgoing_mail::*;
pub use resend_ticket::*;
pub use sales_figures::*;
pub use schedule_showtime::*;
pub use showtime_figures::*;
