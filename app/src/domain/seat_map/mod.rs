//! What the seat map, the showtime list and a hold look like on the wire (camelCase JSON, the
//! same for the REST API and the server functions).

use super::{BookingId, HoldId, SeatCode, ShowtimeId, TicketPrices, TicketType};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

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

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct PriceCategory {
    pub code: String,
    pub name: String,
    /// Whole won (KRW has no minor unit): the adult price.
    pub price: i64,
    /// The price of each other ticket type sold in this category (a type not here is not
    /// sold); in a hall's plan, the defaults of its showtimes.
    #[serde(default, skip_serializing_if = "TicketPrices::is_empty")]
    pub ticket_prices: TicketPrices,
}

impl PriceCategory {
    /// The price of a seat of this category at `ticket_type`, if that type is sold in it.
    pub fn price_for(&self, ticket_type: TicketType) -> Option<i64> {
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
    pub price: i64,
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

/// The answer to a checkout: the booking waiting for payment and where to pay.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Checkout {
    pub booking_id: BookingId,
    /// PENDING until the payment is confirmed.
    pub status: String,
    /// The gateway's hosted payment page.
    pub payment_url: String,
    /// In won.
    pub amount: i64,
    pub currency: String,
    /// The payment must be made before this; it is at least 2 minutes before the hold ends.
    #[serde(deserialize_with = "super::rfc3339::deserialize")]
    pub pay_before: DateTime<Utc>,
}

/// A booking as its customer sees it, with every payment attempt: what happened to the money.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct BookingView {
    pub booking_id: BookingId,
    /// The short booking number printed on its ticket (found again with it and the address).
    #[serde(default)]
    pub reference: String,
    /// The address given at checkout, masked (`k***@example.com`); none given, or purged.
    #[serde(default)]
    pub email: Option<String>,
    /// PENDING, CONFIRMED or FAILED.
    pub status: String,
    pub showtime_id: ShowtimeId,
    pub movie_title: String,
    pub hall_name: String,
    #[serde(deserialize_with = "super::rfc3339::deserialize")]
    pub starts_at: DateTime<Utc>,
    pub seats: Vec<String>,
    /// Each seat's ticket type and price.
    #[serde(default)]
    pub tickets: Vec<super::SoldSeat>,
    /// In won.
    pub amount: i64,
    pub currency: String,
    pub failure_reason: Option<String>,
    #[serde(deserialize_with = "super::rfc3339::deserialize")]
    pub created_at: DateTime<Utc>,
    #[serde(deserialize_with = "super::rfc3339::deserialize")]
    pub updated_at: DateTime<Utc>,
    /// Oldest first.
    pub payments: Vec<PaymentView>,
    /// When the ticket of a confirmed booking was issued (by the ticket consumer, shortly after
    /// the confirmation); `None` until then.
    #[serde(default)]
    pub ticket_issued_at: Option<DateTime<Utc>>,
    /// The showtime was cancelled: a paid booking's payment is refunded (see `payments`).
    #[serde(default)]
    pub showtime_cancelled: bool,
    /// Refunded at the box office, or cancelled by the customer: the seats went back on sale,
    /// the ticket admits nobody.
    #[serde(default, deserialize_with = "super::rfc3339::deserialize_option")]
    pub refunded_at: Option<DateTime<Utc>>,
    /// Until when the customer may cancel it online (a confirmed online booking not refunded,
    /// whose showtime stands); `None` for any other.
    #[serde(default, deserialize_with = "super::rfc3339::deserialize_option")]
    pub cancel_until: Option<DateTime<Utc>>,
    /// Whether the customer may cancel it online now.
    #[serde(default)]
    pub can_cancel: bool,
    /// This session found the booking by its number and address: it may see it, and cancel it
    /// once it opens the link e-mailed to the booking's address (`POST /bookings/{id}/send-link`
    /// sends it again).
    #[serde(default)]
    pub cancel_needs_link: bool,
}

/// What a booking is now, in one word, as every page says it: its showtime's cancellation and
/// a refund at the counter come before the payment's outcome, so a page never says both
/// "cancelled" and "confirmed".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BookingState {
    /// Waiting for the payment.
    Pending,
    /// Confirmed; the ticket is a moment behind.
    Issuing,
    Confirmed,
    Failed,
    /// Refunded at the box office.
    Refunded,
    /// The showtime was cancelled and the payment is being refunded.
    CancelledRefunding,
    /// The showtime was cancelled and the payment refunded.
    CancelledRefunded,
    /// The showtime was cancelled (nothing was paid online).
    Cancelled,
}

impl BookingState {
    /// The state's name in the pages' `data-state` and message keys.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "PENDING",
            Self::Issuing => "ISSUING",
            Self::Confirmed => "CONFIRMED",
            Self::Failed => "FAILED",
            Self::Refunded => "REFUNDED",
            Self::CancelledRefunding => "CANCELLED_REFUNDING",
            Self::CancelledRefunded => "CANCELLED_REFUNDED",
            Self::Cancelled => "CANCELLED",
        }
    }
}

impl BookingView {
    /// The booking's one state now.
    pub fn state(&self) -> BookingState {
        let paid = self.payments.iter().any(|p| p.status == "PAID");
        let refunded = self.payments.iter().any(|p| p.status == "REFUNDED");
        if self.showtime_cancelled && (self.status != "FAILED" || paid) {
            return match (paid, refunded) {
                (true, _) => BookingState::CancelledRefunding,
                (false, true) => BookingState::CancelledRefunded,
                (false, false) => BookingState::Cancelled,
            };
        }
        if self.refunded_at.is_some() {
            return BookingState::Refunded;
        }
        match self.status.as_str() {
            "CONFIRMED" if self.ticket_issued_at.is_none() => BookingState::Issuing,
            "CONFIRMED" => BookingState::Confirmed,
            "FAILED" => BookingState::Failed,
            _ => BookingState::Pending,
        }
    }
}

/// Where a sale was made: online (the web and the API), at the box office, or given away
/// (complimentary, counted apart).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub enum SalesChannel {
    #[default]
    Online,
    BoxOffice,
    Complimentary,
}

impl SalesChannel {
    pub const ALL: [Self; 3] = [Self::Online, Self::BoxOffice, Self::Complimentary];

    /// The name stored and sent (`online`, `box_office`, `complimentary`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Online => "online",
            Self::BoxOffice => "box_office",
            Self::Complimentary => "complimentary",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.as_str() == text)
    }
}

/// Sales figures of one showtime on one day (venue time), kept by the sales consumer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct SalesFigure {
    /// `YYYY-MM-DD`, venue time.
    pub day: String,
    /// Where the seats were sold.
    #[serde(default)]
    pub channel: SalesChannel,
    pub showtime_id: ShowtimeId,
    pub movie_title: String,
    #[serde(deserialize_with = "super::rfc3339::deserialize")]
    pub starts_at: DateTime<Utc>,
    /// Confirmed bookings.
    pub bookings: i64,
    pub seats: i64,
    /// The seats of each ticket type (`seats` counts them all).
    #[serde(default)]
    pub adult_seats: i64,
    #[serde(default)]
    pub youth_seats: i64,
    #[serde(default)]
    pub senior_seats: i64,
    #[serde(default)]
    pub disabled_seats: i64,
    /// In won.
    pub revenue: i64,
    pub refunds: i64,
    /// In won.
    pub refunded: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct PaymentView {
    /// PENDING, PAID, DECLINED, EXPIRED or REFUNDED.
    pub status: String,
    pub amount: i64,
    /// Where to pay, while the payment is PENDING.
    pub payment_url: Option<String>,
    #[serde(deserialize_with = "super::rfc3339::deserialize")]
    pub pay_before: DateTime<Utc>,
    #[serde(deserialize_with = "super::rfc3339::deserialize")]
    pub updated_at: DateTime<Utc>,
}

/// The ticket of a confirmed booking: a signed code (what the QR code holds) and the QR code as
/// SVG, made on the server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Ticket {
    /// The booking's code: it admits every seat of the booking not in yet.
    pub code: String,
    pub qr_svg: String,
    /// One ticket per seat, each with its own code (a friend arriving later brings her own).
    #[serde(default)]
    pub seats: Vec<SeatTicket>,
}

/// One seat's ticket: its code admits that seat alone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SeatTicket {
    pub seat: String,
    pub code: String,
    pub qr_svg: String,
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
