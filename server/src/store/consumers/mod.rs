//! The consumers' side of the store: an event's effect applied together with the record that it
//! was applied (so a redelivery changes nothing), tickets issued, sales figures.

mod postgres;
mod sqlite;

use super::*;

/// What one consumer does with one event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConsumerEffect {
    /// Nothing for this consumer (the event is still recorded as seen).
    Nothing,
    /// The ticket of a confirmed booking.
    IssueTicket { booking: BookingId, code: String },
    /// Added to the sales figures of a showtime on a day.
    Sales {
        showtime: ShowtimeId,
        day: chrono::NaiveDate,
        bookings: i64,
        seats: i64,
        revenue: i64,
        refunds: i64,
        refunded: i64,
    },
}

/// Sales figures of one showtime on one day (venue time).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SalesRow {
    pub showtime: ShowtimeId,
    pub movie_title: String,
    pub starts_at: DateTime<Utc>,
    pub day: chrono::NaiveDate,
    pub bookings: i64,
    pub seats: i64,
    pub revenue: i64,
    pub refunds: i64,
    pub refunded: i64,
}

#[async_trait::async_trait]
pub trait Consumers: Send + Sync {
    /// Applies one consumer's effect of an event together with the record that `consumer`
    /// applied `event_id`; `false` (and nothing changed) when it had been applied before.
    async fn apply_event(
        &self,
        consumer: &str,
        event_id: &str,
        effect: &ConsumerEffect,
    ) -> Result<bool, StoreError>;

    /// The ticket issued for a booking: its code and when it was issued.
    async fn issued_ticket(
        &self,
        booking: BookingId,
    ) -> Result<Option<(String, DateTime<Utc>)>, StoreError>;

    /// Sales figures per showtime and day, newest day first.
    async fn sales(&self) -> Result<Vec<SalesRow>, StoreError>;
}
