//! Bookings and their payments at the gateway: one booking per hold, payment sessions, what the
//! gateway reports (recorded once, checked against what was asked), and the booking views.

mod bookings;
mod rows;
mod sessions;

use super::dialect::{on, Tx};
use super::*;
use app::domain::Won;
use rows::*;

/// A booking to create for a hold at checkout.
#[derive(Debug, Clone)]
pub struct NewBooking {
    pub id: BookingId,
    pub hold: HoldId,
    pub customer: CustomerId,
    pub seats: Vec<SeatCode>,
    pub amount: Won,
    /// Each seat's type and price (adding up to `amount`).
    pub tickets: Vec<SoldSeat>,
    /// Where the ticket goes (as [`app::domain::Email`] stores it), if the customer gave one.
    pub email: Option<String>,
    /// The language of the customer's messages (`ko`, `en`).
    pub language: Option<String>,
}

/// A booking as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BookingRow {
    pub id: BookingId,
    pub status: BookingStatus,
    pub amount: Won,
    /// Each seat's type and price, as chosen at its first checkout (none: made before types).
    pub tickets: Vec<SoldSeat>,
}

/// A booking's payment session at the gateway.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaymentSessionRow {
    pub booking: BookingId,
    pub provider: String,
    pub session_id: String,
    pub payment_url: String,
    pub amount: Won,
    pub expires_at: DateTime<Utc>,
}

/// A booking's payment sessions, as checkout needs them (read at one moment).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaymentSessions {
    /// The open (PENDING) session, if any.
    pub open: Option<PaymentSessionRow>,
    /// Sessions so far.
    pub count: i64,
    /// A payment was received (PAID) and is being settled or refunded.
    pub paid: bool,
}

/// What the gateway reported about a payment session (a verified callback, or reconciliation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaymentReport {
    pub session_id: String,
    /// Set when the customer paid.
    pub payment_id: Option<String>,
    pub paid: bool,
    /// The gateway's event id, kept in the outbox event.
    pub event_id: String,
    /// What the gateway says it charged, checked against what was asked (`None`: not reported).
    pub charged: Option<Charged>,
}

/// What a gateway reports it charged for a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Charged {
    pub amount: Won,
    pub currency: String,
    /// Our reference it was charged under (the booking id).
    pub merchant_reference: String,
}

/// How a reported charge differs from the payment session we asked for, if it does.
pub fn charge_mismatch(
    charged: Option<&Charged>,
    amount: Won,
    currency: &str,
    booking: uuid::Uuid,
) -> Option<String> {
    let charged = charged?;
    let mut differences = Vec::new();
    if charged.amount != amount {
        differences.push(format!("amount {} instead of {amount}", charged.amount));
    }
    if !charged.currency.eq_ignore_ascii_case(currency.trim()) {
        differences.push(format!(
            "currency {:?} instead of {:?}",
            charged.currency,
            currency.trim()
        ));
    }
    if charged.merchant_reference != booking.to_string() {
        differences.push(format!(
            "reference {:?} instead of {booking}",
            charged.merchant_reference
        ));
    }
    (!differences.is_empty()).then(|| differences.join(", "))
}

impl ReportOutcome {
    fn recorded(mismatch: bool) -> Self {
        if mismatch {
            Self::Mismatched
        } else {
            Self::Recorded
        }
    }

    /// A report that changed nothing: for a payment of ours (recorded before) or not.
    fn unrecorded(known: bool) -> Self {
        if known {
            Self::Duplicate
        } else {
            Self::UnknownSession
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportOutcome {
    /// The payment changed state (and, when paid, an outbox event was written with it).
    Recorded,
    /// Recorded as paid, but the charge does not match the session (amount, currency or
    /// reference): it will be refunded, not confirmed.
    Mismatched,
    /// Already recorded: nothing changed.
    Duplicate,
    /// No payment of ours has this session.
    UnknownSession,
}

/// A stored booking and its payments (oldest first).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BookingRecord {
    pub id: BookingId,
    pub showtime: ShowtimeId,
    pub customer: CustomerId,
    pub seats: Vec<SeatCode>,
    pub amount: Won,
    /// Each seat's type and price as sold (none: sold before types, every seat adult).
    pub tickets: Vec<SoldSeat>,
    pub status: BookingStatus,
    pub failure_reason: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub payments: Vec<PaymentRecord>,
    /// Refunded whole (at the box office, or cancelled by the customer).
    pub refunded_at: Option<DateTime<Utc>>,
    /// Money given back in all.
    pub refunded: Won,
    /// The seats it was sold and gave back (refunded, exchanged), as sold.
    pub given_back: Vec<app::domain::SeatGivenBack>,
    /// Its showtime was cancelled.
    pub showtime_cancelled: bool,
    /// The address given at checkout (none given, or purged after the showtime).
    pub email: Option<String>,
    /// The language of the customer's messages (`ko`, `en`), if given.
    pub language: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaymentRecord {
    pub status: PaymentStatus,
    pub amount: Won,
    pub payment_url: String,
    pub pay_before: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// Which bookings to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BookingFilter {
    One(BookingId),
    /// A customer's newest 50: theirs, and those they found again (by reference and e-mail).
    OfCustomer(CustomerId),
}

impl BookingFilter {
    /// The statement that reads the bookings, with the one parameter `key` gives.
    fn select(self) -> String {
        match self {
            Self::One(_) => format!("{BOOKING_COLUMNS} where id = $1"),
            Self::OfCustomer(_) => {
                format!(
                    "{BOOKING_COLUMNS} where customer_id = $1
                        or id in (select booking_id from booking_access where customer_id = $1)
                      order by created_at desc limit 50"
                )
            }
        }
    }

    fn key(self) -> uuid::Uuid {
        match self {
            Self::One(id) => id.0,
            Self::OfCustomer(customer) => customer.0,
        }
    }
}

/// A booking's columns as [`BookingRecord`] reads them.
const BOOKING_COLUMNS: &str = "select id, showtime_id, customer_id, seats, amount_krw, status,
                                      failure_reason, created_at, updated_at, refunded_at,
                                      email, language, tickets, given_back, refunded_krw,
                                      (select st.cancelled_at is not null from showtime st
                                        where st.id = booking.showtime_id) as showtime_cancelled
                                 from booking";
