//! Rows as both dialects read them, and what is made of them: booking records, payment
//! sessions, a recorded report's check against what was asked.

use super::*;
use app::domain::Won;

/// `BOOKING_COLUMNS` as both dialects read them.
#[derive(sqlx::FromRow)]
pub(super) struct StoredBooking {
    pub(super) id: uuid::Uuid,
    #[sqlx(try_from = "i64")]
    showtime_id: ShowtimeId,
    customer_id: uuid::Uuid,
    seats: SeatList,
    amount_krw: Won,
    status: BookingStatus,
    failure_reason: Option<String>,
    created_at: At,
    updated_at: At,
    refunded_at: Option<At>,
    showtime_cancelled: bool,
    email: Option<String>,
    language: Option<String>,
    tickets: Option<String>,
    given_back: Option<String>,
    refunded_krw: Won,
}

/// `PAYMENTS_OF_BOOKING` as both dialects read them.
#[derive(sqlx::FromRow)]
pub(super) struct StoredPayment {
    status: PaymentStatus,
    amount_krw: Won,
    payment_url: String,
    session_expires_at: At,
    updated_at: At,
}

impl StoredBooking {
    pub(super) fn record(self, payments: Vec<StoredPayment>) -> BookingRecord {
        BookingRecord {
            id: BookingId(self.id),
            showtime: self.showtime_id,
            customer: CustomerId(self.customer_id),
            seats: self.seats.0,
            amount: self.amount_krw,
            tickets: crate::store::read_list(self.tickets.as_deref()),
            status: self.status,
            failure_reason: self.failure_reason,
            created_at: self.created_at.0,
            updated_at: self.updated_at.0,
            payments: payments
                .into_iter()
                .map(|p| PaymentRecord {
                    status: p.status,
                    amount: p.amount_krw,
                    payment_url: p.payment_url,
                    pay_before: p.session_expires_at.0,
                    updated_at: p.updated_at.0,
                })
                .collect(),
            refunded_at: self.refunded_at.map(|at| at.0),
            refunded: self.refunded_krw,
            given_back: crate::store::read_list(self.given_back.as_deref()),
            showtime_cancelled: self.showtime_cancelled,
            email: self.email,
            language: self.language,
        }
    }
}

/// `BOOKING_OF_HOLD` as both dialects read it.
#[derive(sqlx::FromRow)]
pub(super) struct StoredBookingOfHold {
    id: uuid::Uuid,
    status: BookingStatus,
    amount_krw: Won,
    tickets: Option<String>,
}

impl From<StoredBookingOfHold> for BookingRow {
    fn from(row: StoredBookingOfHold) -> Self {
        Self {
            id: BookingId(row.id),
            status: row.status,
            amount: row.amount_krw,
            tickets: crate::store::read_list(row.tickets.as_deref()),
        }
    }
}

/// A booking's payments at one moment: its open session (all null when there is none), how
/// many sessions and how many paid.
#[derive(sqlx::FromRow)]
pub(super) struct StoredSessions {
    provider: Option<String>,
    provider_session_id: Option<String>,
    payment_url: Option<String>,
    amount_krw: Option<Won>,
    session_expires_at: Option<At>,
    n: i64,
    paid: i64,
}

impl StoredSessions {
    pub(super) fn sessions(self, booking: BookingId) -> PaymentSessions {
        let open = match (
            self.provider,
            self.provider_session_id,
            self.payment_url,
            self.amount_krw,
            self.session_expires_at,
        ) {
            (Some(provider), Some(session_id), Some(payment_url), Some(amount), Some(at)) => {
                Some(PaymentSessionRow {
                    booking,
                    provider,
                    session_id,
                    payment_url,
                    amount,
                    expires_at: at.0,
                })
            }
            _ => None,
        };
        PaymentSessions {
            open,
            count: self.n,
            paid: self.paid > 0,
        }
    }
}

/// What recording a report changed: the payment's booking, what the booking costs and the
/// currency the session was asked in.
#[derive(sqlx::FromRow)]
pub(super) struct Recorded {
    pub(super) booking_id: uuid::Uuid,
    amount_krw: Won,
    currency: String,
}

impl Recorded {
    /// How the report's charge differs from what was asked (paid reports only).
    pub(super) fn mismatch(&self, report: &PaymentReport) -> Option<String> {
        report
            .paid
            .then(|| {
                charge_mismatch(
                    report.charged.as_ref(),
                    self.amount_krw,
                    &self.currency,
                    self.booking_id,
                )
            })
            .flatten()
    }
}

/// The payment status a report records, and what a paid report took.
pub(super) fn reported(report: &PaymentReport) -> (PaymentStatus, Option<Won>) {
    if report.paid {
        (
            PaymentStatus::Paid,
            report.charged.as_ref().map(|c| c.amount),
        )
    } else {
        (PaymentStatus::Declined, None)
    }
}

/// The `PaymentSucceeded` event of a paid report (its id is the gateway's event id).
pub(super) fn payment_succeeded(
    report: &PaymentReport,
    booking: uuid::Uuid,
    mismatch: Option<String>,
) -> Envelope {
    Envelope::with_id(
        report.event_id.clone(),
        booking,
        BookingEvent::PaymentSucceeded {
            session_id: report.session_id.clone(),
            payment_id: report.payment_id.clone(),
            mismatch,
        },
    )
}
