//! Settlement: payment events taken from the outbox under a lease, each paid payment settled in
//! one transaction (confirmed, or refunded), refunds recorded, events retried or parked.

mod postgres;
mod sqlite;

use super::*;

/// An outbox event taken for processing (payment events, by the confirmation worker).
#[derive(Debug, Clone, PartialEq)]
pub struct OutboxItem {
    pub id: i64,
    pub booking: BookingId,
    pub event_type: String,
    pub payload: serde_json::Value,
    pub attempts: i64,
}

/// What settling a paid booking did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Settlement {
    /// Seats BOOKED, booking CONFIRMED, `BookingConfirmed` written.
    Confirmed {
        showtime: ShowtimeId,
        seats: Vec<SeatChange>,
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

/// What settling a paid payment does, decided from what its transaction read: the booking's
/// status, the payment's (its outcome so far, whether its charge matched) and whether the
/// showtime's sales are still open. `Confirm` still has to pass the fenced confirm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SettleDecision {
    AlreadySettled,
    Confirm,
    Refund {
        fail_booking: bool,
        reason: &'static str,
    },
}

pub(crate) fn settle_decision(
    booking_status: &str,
    outcome: Option<&str>,
    mismatch: bool,
    sales_open: bool,
) -> SettleDecision {
    let pending = booking_status == "PENDING";
    if outcome.is_some() {
        SettleDecision::AlreadySettled
    } else if mismatch {
        SettleDecision::Refund {
            fail_booking: pending,
            reason: MISMATCH_REASON,
        }
    } else if !pending {
        SettleDecision::Refund {
            fail_booking: false,
            reason: NOT_NEEDED_REASON,
        }
    } else if !sales_open {
        SettleDecision::Refund {
            fail_booking: true,
            reason: CLOSED_REASON,
        }
    } else {
        SettleDecision::Confirm
    }
}

/// Failure reasons recorded on a booking (and in its events).
pub const LAPSED_REASON: &str =
    "the hold had expired or its seats were taken when the payment arrived";

pub const CLOSED_REASON: &str = "sales for the showtime had closed when the payment arrived";

pub const MISMATCH_REASON: &str =
    "the payment did not match the order (amount, currency or reference)";

/// Why a payment the booking did not need is refunded (the booking is left as it was).
pub const NOT_NEEDED_REASON: &str = "the booking had already been paid or had failed";

/// Payloads of the events settling writes (versioned JSON with an event id).
pub(crate) fn booking_event(kind: &str, booking: uuid::Uuid, extra: serde_json::Value) -> String {
    let mut payload = serde_json::json!({
        "version": 1,
        "eventId": uuid::Uuid::new_v4(),
        "type": kind,
        "bookingId": booking,
        "occurredAt": Utc::now(),
    });
    if let (Some(payload), serde_json::Value::Object(extra)) = (payload.as_object_mut(), extra) {
        payload.extend(extra);
    }
    payload.to_string()
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
