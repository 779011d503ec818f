//! The consumers of booking events: the work that follows a
//! confirmation runs here, after the confirming transaction and outside it. Each consumer applies
//! an event together with the record that it did (keyed by the event id) in one transaction, so
//! an event delivered twice — at least once is all the relay promises — changes nothing the
//! second time.
//!
//! - `tickets` issues the ticket (its signed code) of a confirmed booking;
//! - `sales` adds confirmed bookings and refunds to the figures per showtime and day (venue time).

use super::Engine;
use crate::store::ConsumerEffect;
use app::domain::{BookingId, ShowtimeId};
use app::error::InventoryError;
use chrono::{DateTime, Utc};
use serde::Deserialize;

/// The ticket-issue consumer (its Kafka consumer group is `seats-tickets`).
pub const TICKETS: &str = "tickets";
/// The sales-figures consumer (consumer group `seats-sales`).
pub const SALES: &str = "sales";
/// Every consumer, in the order the in-process delivery calls them.
pub const CONSUMERS: [&str; 2] = [TICKETS, SALES];

/// The payload versions this build understands.
const VERSION: u32 = 1;

/// A booking event as published (see `store::booking_event`).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BookingEvent {
    pub version: u32,
    pub event_id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub booking_id: uuid::Uuid,
    pub occurred_at: Option<DateTime<Utc>>,
    pub showtime_id: Option<i64>,
    #[serde(default)]
    pub seats: Vec<String>,
    pub amount: Option<i64>,
}

/// Why a message was not applied.
#[derive(Debug, thiserror::Error)]
pub enum ConsumeError {
    /// Not a booking event this build can read: retrying will not help (it is skipped).
    #[error("unreadable event: {0}")]
    Unreadable(String),
    /// The store failed: the same message is tried again.
    #[error(transparent)]
    Store(#[from] InventoryError),
}

impl BookingEvent {
    pub fn parse(payload: &[u8]) -> Result<Self, ConsumeError> {
        let event: Self =
            serde_json::from_slice(payload).map_err(|e| ConsumeError::Unreadable(e.to_string()))?;
        if event.version != VERSION {
            return Err(ConsumeError::Unreadable(format!(
                "payload version {} (this build reads {VERSION})",
                event.version
            )));
        }
        Ok(event)
    }

    fn showtime(&self) -> Result<ShowtimeId, ConsumeError> {
        self.showtime_id
            .map(ShowtimeId)
            .ok_or_else(|| ConsumeError::Unreadable(format!("{} without a showtime id", self.kind)))
    }

    /// The day (venue time) the event counts for.
    fn day(&self) -> chrono::NaiveDate {
        app::format::venue_time(self.occurred_at.unwrap_or_else(Utc::now)).date_naive()
    }
}

impl Engine {
    /// What `consumer` does with `event`.
    pub fn consumer_effect(
        &self,
        consumer: &str,
        event: &BookingEvent,
    ) -> Result<ConsumerEffect, ConsumeError> {
        let booking = BookingId(event.booking_id);
        Ok(match (consumer, event.kind.as_str()) {
            (TICKETS, "BookingConfirmed") => ConsumerEffect::IssueTicket {
                booking,
                code: self.ticket_code(booking),
            },
            (SALES, "BookingConfirmed") => ConsumerEffect::Sales {
                showtime: event.showtime()?,
                day: event.day(),
                bookings: 1,
                seats: event.seats.len() as i64,
                revenue: event.amount.unwrap_or_default(),
                refunds: 0,
                refunded: 0,
            },
            (SALES, "RefundIssued") => ConsumerEffect::Sales {
                showtime: event.showtime()?,
                day: event.day(),
                bookings: 0,
                seats: 0,
                revenue: 0,
                refunds: 1,
                refunded: event.amount.unwrap_or_default(),
            },
            _ => ConsumerEffect::Nothing,
        })
    }

    /// Applies one message to `consumer`; `Ok(false)` when it had been applied before.
    pub async fn consume(&self, consumer: &str, payload: &[u8]) -> Result<bool, ConsumeError> {
        let event = BookingEvent::parse(payload)?;
        let effect = self.consumer_effect(consumer, &event)?;
        let applied = self
            .store()
            .apply_event(consumer, &event.event_id, &effect)
            .await
            .map_err(InventoryError::from)?;
        if applied {
            tracing::debug!(consumer, event = %event.event_id, kind = %event.kind, "event applied");
        } else {
            tracing::info!(consumer, event = %event.event_id, kind = %event.kind, "event seen before; nothing changed");
        }
        Ok(applied)
    }
}
