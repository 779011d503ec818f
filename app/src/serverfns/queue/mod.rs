//! The waiting room of a hot sale: a customer's place, and the operator's controls.

mod join_queue;
mod queue_status;
mod reset_waiting_room;
mod set_waiting_room;
mod waiting_room;

pub use join_queue::*;
pub use queue_status::*;
pub use reset_waiting_room::*;
pub use set_waiting_room::*;
pub use waiting_room::*;
