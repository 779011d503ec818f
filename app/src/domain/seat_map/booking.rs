//! A booking as its customer sees it: the checkout's answer, the booking with its payments and
//! state, and its tickets.

use crate::domain::{BookingId, ShowtimeId, Won};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

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
    #[cfg_attr(feature = "ssr", schema(value_type = i64))]
    pub amount: Won,
    pub currency: String,
    /// The payment must be made before this; it is at least 2 minutes before the hold ends.
    #[serde(deserialize_with = "crate::domain::rfc3339::deserialize")]
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
    #[serde(deserialize_with = "crate::domain::rfc3339::deserialize")]
    pub starts_at: DateTime<Utc>,
    pub seats: Vec<String>,
    /// Each seat's ticket type and price.
    #[serde(default)]
    pub tickets: Vec<crate::domain::SoldSeat>,
    /// In won.
    #[cfg_attr(feature = "ssr", schema(value_type = i64))]
    pub amount: Won,
    /// Money given back in all (online and at the counter), in won.
    #[serde(default)]
    #[cfg_attr(feature = "ssr", schema(value_type = i64))]
    pub refunded: Won,
    /// The seats given back for money.
    #[serde(default)]
    pub refunded_seats: Vec<String>,
    /// Every seat it was sold and no longer has (refunded, exchanged), as it was sold: with
    /// `tickets`, what the booking was ever sold. For API clients: the pages do not read it.
    #[serde(default, skip_deserializing)]
    pub given_back: Vec<crate::domain::SeatGivenBack>,
    pub currency: String,
    pub failure_reason: Option<String>,
    #[serde(deserialize_with = "crate::domain::rfc3339::deserialize")]
    pub created_at: DateTime<Utc>,
    #[serde(deserialize_with = "crate::domain::rfc3339::deserialize")]
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
    #[serde(
        default,
        deserialize_with = "crate::domain::rfc3339::deserialize_option"
    )]
    pub refunded_at: Option<DateTime<Utc>>,
    /// Until when the customer may cancel it online (a confirmed online booking not refunded,
    /// whose showtime stands); `None` for any other.
    #[serde(
        default,
        deserialize_with = "crate::domain::rfc3339::deserialize_option"
    )]
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

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct PaymentView {
    /// PENDING, PAID, DECLINED, EXPIRED or REFUNDED.
    pub status: String,
    #[cfg_attr(feature = "ssr", schema(value_type = i64))]
    pub amount: Won,
    /// Where to pay, while the payment is PENDING.
    pub payment_url: Option<String>,
    #[serde(deserialize_with = "crate::domain::rfc3339::deserialize")]
    pub pay_before: DateTime<Utc>,
    #[serde(deserialize_with = "crate::domain::rfc3339::deserialize")]
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
