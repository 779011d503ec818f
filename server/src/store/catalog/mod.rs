//! Catalog: halls with their seat layouts, showtimes, and what the seat map and the showtime
//! list read (seats' effective states, with lazy expiry).

#[macro_use]
mod steps;

mod changes;
mod halls;
mod postgres;
mod rows;
mod sqlite;
mod statements;

use steps::CatalogSteps;

pub use rows::*;
use statements::*;

pub use halls::*;

use super::*;
use app::domain::{
    NewShowtime, PlacedSeat, SalesWindow, WaitingRoomSettings, DEFAULT_DURATION_MINUTES,
};

#[async_trait::async_trait]
pub trait Catalog: Send + Sync {
    /// Showtimes starting at `since` or later, in time order, each saying whether its sales are
    /// open at `now`.
    async fn list_showtimes(
        &self,
        now: Now,
        since: DateTime<Utc>,
    ) -> Result<Vec<ShowtimeSummary>, StoreError>;

    async fn seat_states(
        &self,
        showtime: ShowtimeId,
        now: Now,
    ) -> Result<Vec<SeatState>, StoreError>;

    /// Creates a hall unless one of that name exists; `None` when it existed.
    async fn create_hall(&self, hall: &NewHall) -> Result<Option<i64>, StoreError>;

    /// Creates a showtime (checked by the caller) and its seats.
    async fn add_showtime(&self, showtime: &NewShowtime) -> Result<ShowtimeId, StoreError>;

    /// A showtime on sale from now until its start, of the default running time.
    async fn create_showtime(
        &self,
        hall_id: i64,
        movie_title: &str,
        starts_at: DateTime<Utc>,
    ) -> Result<ShowtimeId, StoreError> {
        self.add_showtime(&NewShowtime {
            hall_id,
            title: movie_title.to_string(),
            starts_at,
            duration_minutes: DEFAULT_DURATION_MINUTES,
            sales_open_at: None,
            sales_close_at: None,
            hot_sale: false,
            accessible_release_at: None,
            prices: Default::default(),
            ticket_types: None,
            ticket_prices: Default::default(),
        })
        .await
    }

    async fn hall_count(&self) -> Result<i64, StoreError>;

    /// Takes free seats of a showtime off public sale (`blocked`: `HOUSE` or `KILLED`), or puts
    /// them back on sale (`None`): all of them, or none when one is held or sold.
    async fn block_seats(
        &self,
        showtime: ShowtimeId,
        seats: &[String],
        blocked: Option<&str>,
        now: Now,
    ) -> Result<BlockOutcome, StoreError>;

    /// Whether the showtime was cancelled (false for an unknown one).
    async fn is_cancelled(&self, showtime: ShowtimeId) -> Result<bool, StoreError>;

    /// The showtime's waiting-room settings (`None`: no such showtime).
    async fn room_settings(
        &self,
        showtime: ShowtimeId,
    ) -> Result<Option<WaitingRoomSettings>, StoreError>;

    /// The showtimes whose waiting room is on, with their settings.
    async fn open_rooms(&self) -> Result<Vec<(ShowtimeId, WaitingRoomSettings)>, StoreError>;

    /// Sets the showtime's waiting-room settings (an operator's change, at `at_ms`); false: no
    /// such showtime.
    async fn set_room_settings(
        &self,
        showtime: ShowtimeId,
        settings: &WaitingRoomSettings,
        at_ms: i64,
    ) -> Result<bool, StoreError>;

    /// Turns the showtime's room on by itself (its other settings as they are), unless it is on
    /// already or an operator set it at `since_ms` or later; whether it did.
    async fn switch_room_on(&self, showtime: ShowtimeId, since_ms: i64)
        -> Result<bool, StoreError>;

    /// In one transaction: marks the showtime cancelled at `at` (no hold, checkout or
    /// confirmation from then on), frees the seats of its live holds, and writes a `RefundDue`
    /// for each payment of its confirmed bookings. `None`: no such showtime; a showtime
    /// cancelled already is left as it is.
    async fn cancel_showtime(
        &self,
        showtime: ShowtimeId,
        at: DateTime<Utc>,
    ) -> Result<Option<Cancellation>, StoreError>;
}

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
