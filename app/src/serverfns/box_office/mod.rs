//! The box office kiosk and the door, by task: shifts, the counter, refunds and exchanges, prints, check-in. Each checks the member's role first.

mod approvers;
mod box_office_shift;
mod check_in_ticket;
mod clerk_hold;
mod clerk_release;
mod close_shift;
mod exchange_at_counter;
mod open_shift;
mod print_ticket;
mod refund_at_counter;
mod refunds_owed;
mod sell_at_counter;
mod shifts_report;

pub use approvers::*;
pub use box_office_shift::*;
pub use check_in_ticket::*;
pub use clerk_hold::*;
pub use clerk_release::*;
pub use close_shift::*;
pub use exchange_at_counter::*;
pub use open_shift::*;
pub use print_ticket::*;
pub use refund_at_counter::*;
pub use refunds_owed::*;
pub use sell_at_counter::*;
pub use shifts_report::*;
