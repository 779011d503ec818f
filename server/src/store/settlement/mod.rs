//! Settlement: payment events taken from the outbox under a lease, each paid payment settled in
//! one transaction (confirmed, or refunded), refunds recorded, events retried or parked.

/// Writes what settling a payment decided (`Option<Writes>`; `None`: already settled) and
/// answers the [`Settlement`]: the same statements in both dialects but for the time stamp,
/// which PostgreSQL's statements read from the database clock and SQLite's take as their last
/// parameter (`stamp: …`). Uses the dialect's `SET_BOOKING_STATUS` and `append_event`.
macro_rules! write_settlement {
    ($tx:ident, $writes:expr, booking: $booking:expr, payment: $payment_id:expr $(, stamp: $stamp:expr)?) => {{
        match $writes {
            Some(writes) => {
                if let Some((status, reason)) = writes.booking {
                    sqlx::query(SET_BOOKING_STATUS)
                        .bind($booking.0)
                        .bind(status)
                        .bind(reason)
                        $(.bind($stamp))?
                        .execute(&mut *$tx)
                        .await?;
                }
                sqlx::query(SET_OUTCOME)
                    .bind($payment_id)
                    .bind(writes.outcome)
                    .execute(&mut *$tx)
                    .await?;
                for event in &writes.events {
                    append_event(&mut $tx, event).await?;
                }
                writes.settlement
            }
            None => Settlement::AlreadySettled,
        }
    }};
}

/// Marks the outbox item done and commits `$tx` (time stamp as in [`write_settlement`]).
macro_rules! finish_item {
    ($tx:ident, $item:expr $(, stamp: $stamp:expr)?) => {{
        sqlx::query(MARK_PROCESSED)
            .bind($item)
            $(.bind($stamp))?
            .execute(&mut *$tx)
            .await?;
        $tx.commit().await?;
    }};
}

mod decision;
mod postgres;
mod sqlite;

use super::*;
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

/// A paid payment of a booking, read in the settling transaction (locked, in PostgreSQL).
const PAID_PAYMENT: &str = "select outcome, mismatch, coalesce(paid_amount, amount_krw) as paid
                              from payment
                             where provider_payment_id = $1 and booking_id = $2 and status = 'PAID'";

// Statements that read the same in both dialects.
const PARKED_COUNT: &str =
    "select count(*) from outbox where processed_at is null and parked_at is not null";
const SET_OUTCOME: &str = "update payment set outcome = $2 where provider_payment_id = $1";
/// Marks a PAID payment REFUNDED (each dialect adds its `updated_at` after it).
const MARK_REFUNDED: &str = "update payment set status = 'REFUNDED'";
const REFUNDED_RETURNING: &str = "where provider_payment_id = $1 and status = 'PAID'
     returning (select b.showtime_id from booking b where b.id = booking_id) as showtime_id,
               coalesce(paid_amount, amount_krw) as amount";

/// `RefundIssued` for a refunded payment: `(showtime, amount)` from the statement that marked
/// it REFUNDED.
#[derive(sqlx::FromRow)]
struct Refunded {
    #[sqlx(try_from = "i64")]
    showtime_id: ShowtimeId,
    amount: i64,
}

fn refund_issued(booking: BookingId, payment_id: &str, refund_id: &str, r: Refunded) -> Envelope {
    Envelope::new(
        booking.0,
        BookingEvent::RefundIssued {
            showtime_id: r.showtime_id,
            payment_id: payment_id.into(),
            refund_id: refund_id.into(),
            amount: r.amount,
            // The gateway refunds what was paid online.
            channel: app::domain::SalesChannel::Online,
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

#[async_trait::async_trait]
pub trait Settlements: Send + Sync {
    /// Takes up to `limit` unprocessed outbox events of these types whose time has come, and
    /// leases them for `lease` (another worker takes them after that unless they are marked
    /// processed). Several workers at once never take the same event.
    async fn claim_outbox(
        &self,
        types: &[&str],
        limit: i64,
        lease: Duration,
    ) -> Result<Vec<OutboxItem>, StoreError>;

    /// Puts off the next attempt at an outbox event that failed, keeping its error.
    async fn retry_outbox(&self, item: i64, after: Duration, error: &str)
        -> Result<(), StoreError>;

    /// Stops retrying an outbox event: it stays unprocessed, with its last error, for an
    /// operator.
    async fn park_outbox(&self, item: i64, error: &str) -> Result<(), StoreError>;

    /// Outbox events parked for an operator.
    async fn parked_count(&self) -> Result<i64, StoreError>;

    /// In one transaction: confirms the paid booking's seats with the fenced confirm, or fails
    /// the booking and asks for a refund; writes the resulting events; marks `item` processed.
    async fn settle_payment(
        &self,
        item: i64,
        booking: BookingId,
        payment_id: &str,
        now: Now,
    ) -> Result<Settlement, StoreError>;

    /// In one transaction: the payment REFUNDED, a `RefundIssued` event, `item` processed.
    async fn finish_refund(
        &self,
        item: i64,
        booking: BookingId,
        payment_id: &str,
        refund_id: &str,
    ) -> Result<(), StoreError>;
}
