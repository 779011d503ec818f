//! Settlement: payment events taken from the outbox under a lease, each paid payment settled in
//! one transaction (confirmed, or refunded), refunds recorded, events retried or parked.

mod decision;
mod settle;

use super::dialect::{on, Tx};
use super::*;
use app::domain::Won;
use decision::*;
pub use decision::{CLOSED_REASON, LAPSED_REASON, MISMATCH_REASON, NOT_NEEDED_REASON};

/// An outbox event taken for processing (payment events, by the workers).
#[derive(Debug, Clone, PartialEq)]
pub struct OutboxItem {
    pub id: i64,
    pub booking: BookingId,
    /// The `event_type` column.
    pub event_type: String,
    /// The event, or why its payload could not be read (such an event is parked).
    pub event: Result<Envelope, String>,
    pub attempts: i64,
}

/// An outbox row as both dialects' claims return it.
#[derive(sqlx::FromRow)]
struct ClaimedRow {
    id: i64,
    aggregate_id: uuid::Uuid,
    event_type: String,
    payload: String,
    attempts: i64,
}

impl From<ClaimedRow> for OutboxItem {
    fn from(row: ClaimedRow) -> Self {
        Self {
            id: row.id,
            booking: BookingId(row.aggregate_id),
            event: read_outbox(&row.event_type, &row.payload),
            event_type: row.event_type,
            attempts: row.attempts,
        }
    }
}

/// Reads an outbox payload. Payment events written before events carried their `type` and
/// `occurredAt` get them from the row.
fn read_outbox(event_type: &str, payload: &str) -> Result<Envelope, String> {
    let mut json: serde_json::Value = serde_json::from_str(payload).map_err(|e| e.to_string())?;
    if let Some(object) = json.as_object_mut() {
        object.entry("type").or_insert_with(|| event_type.into());
        object
            .entry("occurredAt")
            .or_insert_with(|| serde_json::json!(Utc::now()));
    }
    Envelope::parse(json.to_string().as_bytes())
}

/// `RefundIssued` for a refunded payment: `(showtime, amount)` from the statement that marked
/// it REFUNDED.
#[derive(sqlx::FromRow)]
struct Refunded {
    #[sqlx(try_from = "i64")]
    showtime_id: ShowtimeId,
    amount: Won,
}

fn refund_issued(
    booking: BookingId,
    (payment_id, refund_id): (&str, &str),
    r: Refunded,
    seats: &[String],
) -> Envelope {
    Envelope::new(
        booking.0,
        BookingEvent::RefundIssued {
            showtime_id: r.showtime_id,
            payment_id: payment_id.into(),
            refund_id: refund_id.into(),
            amount: r.amount,
            // The gateway refunds what was paid online.
            channel: app::domain::SalesChannel::Online,
            seats: seats.to_vec(),
        },
    )
}

/// What settling a paid booking did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Settlement {
    /// Seats BOOKED, booking CONFIRMED, `BookingConfirmed` written.
    Confirmed {
        showtime: ShowtimeId,
        seats: Vec<SeatChange>,
        /// The hold the seats were sold from.
        hold: app::domain::HoldId,
    },
    /// The hold had lapsed or its seats were gone (left with whoever has them), sales had
    /// closed, or the charge did not match: booking FAILED, `BookingFailed` and `RefundDue`
    /// written.
    Failed { reason: &'static str },
    /// A payment the booking does not need (it was paid or had failed already): the booking
    /// stays as it is, `RefundDue` written.
    Refunded { reason: &'static str },
    /// Settled before: nothing changed.
    AlreadySettled,
}
