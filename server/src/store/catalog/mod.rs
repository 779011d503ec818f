//! Catalog: halls with their seat layouts, showtimes, and what the seat map and the showtime
//! list read (seats' effective states, with lazy expiry).
//!
//! - `showtimes.rs`: the showtime list, seat states, waiting-room settings;
//! - `changes.rs`: the catalog's transactions (a hall, a showtime, seats off sale, a
//!   cancellation);
//! - `halls.rs`: layouts and halls as the console reads them;
//! - `rows.rs`: rows and outcomes.

mod changes;
mod halls;
mod rows;
mod showtimes;

pub use rows::*;

pub use halls::*;

use super::dialect::{on, Tx};
use super::*;
use app::domain::{NewShowtime, PlacedSeat, SalesWindow, WaitingRoomSettings};

/// A showtime's fixed facts: its hall drawing, prices and title. Never changes once created, so
/// the engine caches it.
#[derive(Debug, Clone)]
pub struct Layout {
    pub showtime_id: ShowtimeId,
    pub movie_title: String,
    pub hall_name: String,
    pub starts_at: DateTime<Utc>,
    /// Its running time.
    pub duration_minutes: i32,
    /// When its seats are on sale (fixed when it is scheduled).
    pub sales: SalesWindow,
    /// From then on its unsold wheelchair places and companion seats are ordinary seats.
    pub accessible_release_at: Option<DateTime<Utc>>,
    /// Where best available aims (its hall's best seat; none: the middle of the hall).
    pub best_seat: Option<String>,
    pub categories: Vec<PriceCategory>,
    pub seats: Vec<LayoutSeat>,
}

impl Layout {
    /// When sales end: holds, checkouts and confirmations are refused from then on (the start,
    /// unless the showtime was scheduled to close earlier).
    pub fn sales_close_at(&self) -> DateTime<Utc> {
        self.sales.closes_at
    }

    /// These seats at the showtime's prices of the ticket types asked for (see
    /// [`app::domain::assign_types`]): the seats in reading order, adults first. Refused when
    /// the counts do not add up to the seats or a type is not sold for the showtime.
    pub fn sell<S: AsRef<str>>(
        &self,
        codes: &[S],
        types: &app::domain::TicketCounts,
    ) -> Result<Vec<app::domain::SoldSeat>, app::error::Reason> {
        let seats = app::seating::reading_order(codes.iter().map(|c| c.as_ref()));
        app::domain::assign_types(&seats, types, |code, ticket_type| {
            let seat = self.seats.iter().find(|s| s.code.as_str() == code)?;
            let category = self.categories.iter().find(|c| c.code == seat.category)?;
            category.price_for(ticket_type)
        })
    }

    /// What these seats cost at the showtime's prices (codes it does not have cost nothing).
    pub fn price_of<S: AsRef<str>>(&self, codes: &[S]) -> i64 {
        codes
            .iter()
            .filter_map(|code| self.seats.iter().find(|s| s.code.as_str() == code.as_ref()))
            .filter_map(|seat| self.categories.iter().find(|c| c.code == seat.category))
            .map(|c| c.price)
            .sum()
    }
}

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
