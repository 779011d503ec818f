//! Catalog: halls with their seat layouts, showtimes, and what the seat map and the showtime
//! list read (seats' effective states, with lazy expiry).
//!
//! - `showtimes.rs`: the showtime list, seat states, waiting-room settings;
//! - `changes.rs`: the catalog's transactions (a hall, a showtime, seats off sale, a
//!   cancellation);
//! - `layout.rs`: a showtime's layout (its hall, prices and seats), as the seat map reads it;
//! - `halls.rs`: halls as the console imports and reads them;
//! - `rows.rs`: rows and outcomes.

mod changes;
mod halls;
mod layout;
mod rows;
mod showtimes;

pub use rows::*;

pub use halls::*;
pub use layout::Layout;

use super::dialect::{on, Tx};
use super::*;
use app::domain::{NewShowtime, PlacedSeat, SalesWindow, WaitingRoomSettings};

/// A seat of a hall's layout, placed on its grid (the same type a hall's JSON plan places).
pub type LayoutSeat = PlacedSeat;

/// A seat's current state as stored, with lazy expiry applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeatState {
    pub code: String,
    pub status: SeatStatus,
    pub version: i64,
}

/// A hall to create (demo data, admin tools).
#[derive(Debug, Clone)]
pub struct NewHall {
    pub name: String,
    pub categories: Vec<PriceCategory>,
    pub seats: Vec<LayoutSeat>,
    /// The seat best available aims for (none: the middle of the hall).
    pub best_seat: Option<String>,
}

// Statements that read the same in both dialects.
