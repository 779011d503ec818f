//! What the seat map, the showtime list and a hold look like on the wire (camelCase JSON, the
//! same for the REST API and the server functions).

use super::{HoldId, SeatCode, ShowtimeId, TicketPrices, TicketType, Won};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

mod booking;
mod sales;

pub use booking::{BookingState, BookingView, Checkout, PaymentView, SeatTicket, Ticket};
pub use sales::{SalesChannel, SalesFigure};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub enum SeatStatus {
    Available,
    Held,
    Booked,
    /// Off public sale for this showtime: only the venue's staff may sell it.
    House,
    /// Off sale for this showtime: nobody may sell it (a broken seat, a camera position).
    Killed,
}

impl SeatStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Available => "AVAILABLE",
            Self::Held => "HELD",
            Self::Booked => "BOOKED",
            Self::House => "HOUSE",
            Self::Killed => "KILLED",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "AVAILABLE" => Some(Self::Available),
            "HELD" => Some(Self::Held),
            "BOOKED" => Some(Self::Booked),
            "HOUSE" => Some(Self::House),
            "KILLED" => Some(Self::Killed),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct ShowtimeSummary {
    pub id: ShowtimeId,
    pub movie_title: String,
    pub hall_id: i64,
    pub hall_name: String,
    #[serde(deserialize_with = "super::rfc3339::deserialize")]
    pub starts_at: DateTime<Utc>,
    /// When it ends (its start and its running time; read from an answer without it: never
    /// listed by the door).
    #[serde(default, deserialize_with = "super::rfc3339::deserialize")]
    pub ends_at: DateTime<Utc>,
    pub seats_total: i64,
    pub seats_available: i64,
    /// Whether seats can be bought now (within the showtime's sales window; by default until
    /// it starts).
    pub sales_open: bool,
    /// When sales open, if they have not yet.
    #[serde(default, deserialize_with = "super::rfc3339::deserialize_option")]
    pub sales_opens_at: Option<DateTime<Utc>>,
    /// The showtime was cancelled (its paid bookings are refunded).
    #[serde(default)]
    pub cancelled: bool,
    /// A hot sale: customers pass the waiting room (`/showtimes/{id}/queue`) before holding.
    #[serde(default)]
    pub waiting_room: bool,
}

impl ShowtimeSummary {
    /// Sorts showtimes by when they start (by number when two start together).
    pub fn sort_by_start(list: &mut [Self]) {
        list.sort_unstable_by_key(|s| (s.starts_at, s.id));
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct PriceCategory {
    pub code: String,
    pub name: String,
    /// Whole won (KRW has no minor unit): the adult price.
    #[cfg_attr(feature = "ssr", schema(value_type = i64))]
    pub price: Won,
    /// The price of each other ticket type sold in this category (a type not here is not
    /// sold); in a hall's plan, the defaults of its showtimes.
    #[serde(default, skip_serializing_if = "TicketPrices::is_empty")]
    pub ticket_prices: TicketPrices,
}

impl PriceCategory {
    /// The price of a seat of this category at `ticket_type`, if that type is sold in it.
    pub fn price_for(&self, ticket_type: TicketType) -> Option<Won> {
        match ticket_type {
            TicketType::Adult => Some(self.price),
            other => self.ticket_prices.get(other),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Seat {
    pub code: SeatCode,
    pub row: String,
    pub number: i32,
    /// Grid column and row of the seat in the hall drawing; gaps in `x` are aisles.
    pub x: i32,
    pub y: i32,
    pub category: String,
    #[cfg_attr(feature = "ssr", schema(value_type = i64))]
    pub price: Won,
    pub accessible: bool,
    /// A seat for the companion of a wheelchair user.
    #[serde(default)]
    pub companion: bool,
    /// Effective status: a hold whose time has passed reads as `AVAILABLE`.
    pub status: SeatStatus,
    /// Increases with every change of this seat, so clients can order updates per seat.
    pub version: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct SeatMap {
    pub showtime_id: ShowtimeId,
    pub movie_title: String,
    pub hall_name: String,
    #[serde(deserialize_with = "super::rfc3339::deserialize")]
    pub starts_at: DateTime<Utc>,
    pub categories: Vec<PriceCategory>,
    pub seats: Vec<Seat>,
    /// Whether seats can be bought now (within the showtime's sales window; by default until
    /// it starts).
    pub sales_open: bool,
    /// When sales open, if they have not yet.
    #[serde(default, deserialize_with = "super::rfc3339::deserialize_option")]
    pub sales_opens_at: Option<DateTime<Utc>>,
    /// The showtime was cancelled (its paid bookings are refunded).
    #[serde(default)]
    pub cancelled: bool,
    /// The venue's lone-seat rule, which every hold is judged by.
    #[serde(default)]
    pub seat_rules: crate::domain::seat_rules::Rules,
    /// The showtime's wheelchair and companion seats are ordinary seats by now.
    #[serde(default)]
    pub accessible_released: bool,
}

/// A successful hold.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Hold {
    pub hold_id: HoldId,
    #[serde(deserialize_with = "super::rfc3339::deserialize")]
    pub expires_at: DateTime<Utc>,
    pub seats: Vec<SeatCode>,
    /// The server's time when this answer was made, so a client can count down to
    /// `expires_at` without trusting its own clock.
    #[serde(deserialize_with = "super::rfc3339::deserialize")]
    pub server_time: DateTime<Utc>,
    /// For a best-available hold: whether the seats are side by side in one row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub together: Option<bool>,
    /// Seats this hold leaves alone because no selection of its size could avoid it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lone_seats: Vec<String>,
}

/// One seat's new state after a committed change; what later becomes a live-map event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SeatChange {
    pub code: SeatCode,
    pub status: SeatStatus,
    pub version: i64,
}

#[cfg(test)]
mod state_tests;
