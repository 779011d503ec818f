//! The customer's holds and their checkout.

mod cancel_hold;
mod checkout_hold;
mod current_hold;
mod hold_best;
mod hold_seats;

pub use cancel_hold::*;
pub use checkout_hold::*;
pub use current_hold::*;
pub use hold_best::*;
pub use hold_seats::*;
