//! Catalog: halls with their seat layouts, showtimes, and what the seat map and the showtime
//! list read (seats' effective states, with lazy expiry).

mod postgres;
mod sqlite;

use super::*;

/// A showtime's fixed facts: its hall drawing, prices and title. Never changes once created, so
/// the engine caches it.
#[derive(Debug, Clone)]
pub struct Layout {
    pub showtime_id: ShowtimeId,
    pub movie_title: String,
    pub hall_name: String,
    pub starts_at: DateTime<Utc>,
    pub categories: Vec<PriceCategory>,
    pub seats: Vec<LayoutSeat>,
}

impl Layout {
    /// When sales end: holds, checkouts and confirmations are refused from then on. For now the
    /// start of the showtime.
    pub fn sales_close_at(&self) -> DateTime<Utc> {
        self.starts_at
    }
}

#[derive(Debug, Clone)]
pub struct LayoutSeat {
    pub code: SeatCode,
    pub row: String,
    pub number: i32,
    pub x: i32,
    pub y: i32,
    pub category: String,
    pub accessible: bool,
}

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
}

/// A hall seat row as both stores select it.
pub(crate) type SeatRow = (String, String, i32, i32, i32, String, bool);

pub(crate) fn layout_seats(rows: Vec<SeatRow>) -> Result<Vec<LayoutSeat>, StoreError> {
    rows.into_iter()
        .map(|(code, row, number, x, y, category, accessible)| {
            Ok(LayoutSeat {
                code: SeatCode::parse(&code).map_err(|e| StoreError::Corrupt(e.to_string()))?,
                row,
                number,
                x,
                y,
                category,
                accessible,
            })
        })
        .collect()
}

#[async_trait::async_trait]
pub trait Catalog: Send + Sync {
    /// Showtimes starting at `since` or later, in time order, each saying whether its sales are
    /// open at `now`.
    async fn list_showtimes(
        &self,
        now: Now,
        since: DateTime<Utc>,
    ) -> Result<Vec<ShowtimeSummary>, StoreError>;

    async fn layout(&self, showtime: ShowtimeId) -> Result<Option<Layout>, StoreError>;

    async fn seat_states(
        &self,
        showtime: ShowtimeId,
        now: Now,
    ) -> Result<Vec<SeatState>, StoreError>;

    /// Creates a hall unless one of that name exists; `None` when it existed.
    async fn create_hall(&self, hall: &NewHall) -> Result<Option<i64>, StoreError>;

    async fn create_showtime(
        &self,
        hall_id: i64,
        movie_title: &str,
        starts_at: DateTime<Utc>,
    ) -> Result<ShowtimeId, StoreError>;

    async fn hall_count(&self) -> Result<i64, StoreError>;
}
