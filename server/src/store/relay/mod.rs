//! The outbox relay's side of the store: the lease that makes one relay the sender, the
//! committed booking events still to send, and marking them sent.

mod postgres;
mod sqlite;

use super::*;

/// The types of outbox event the relay publishes (payment events stay inside).
pub const PUBLISHED_EVENTS: [&str; 3] = ["BookingConfirmed", "BookingFailed", "RefundIssued"];

/// A committed outbox event on its way to the broker.
#[derive(Debug, Clone, PartialEq)]
pub struct OutboxEvent {
    pub id: i64,
    /// The booking: the message key.
    pub key: BookingId,
    pub event_type: String,
    /// Versioned JSON with an event id (see `booking_event`).
    pub payload: String,
}

#[async_trait::async_trait]
pub trait Relay: Send + Sync {
    /// Takes the relay lease `name` for `owner`, or renews it when `owner` has it; `false` when
    /// another owner's lease has not run out.
    async fn take_relay_lease(
        &self,
        name: &str,
        owner: &str,
        lease: Duration,
    ) -> Result<bool, StoreError>;

    /// Gives the lease up (a relay stopping), so a standby takes over at once.
    async fn drop_relay_lease(&self, name: &str, owner: &str) -> Result<(), StoreError>;

    /// Up to `limit` committed, unpublished events of the published types, oldest first.
    async fn unpublished_events(&self, limit: i64) -> Result<Vec<OutboxEvent>, StoreError>;

    /// Marks these events published — only while `owner` still holds the lease `name` (a relay
    /// that lost its lease leaves them to the new holder, which sends them again). How many
    /// were marked.
    async fn mark_published(&self, name: &str, owner: &str, ids: &[i64])
        -> Result<u64, StoreError>;

    /// Committed events of the published types still waiting for the relay.
    async fn unpublished_count(&self) -> Result<i64, StoreError>;
}
