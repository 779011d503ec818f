//! Applying an event's effect once: the record that the consumer applied it and the effect, in
//! one transaction, written once over the dialect's steps (`ConsumerSteps`).

use super::*;

/// A dialect's consumer transaction.
pub(super) trait ConsumerSteps: Send + Sized {
    /// Records that `consumer` applied `event_id`; false when it did before.
    async fn record_consumed(&mut self, consumer: &str, event_id: &str)
        -> Result<bool, StoreError>;
    /// Issues a confirmed booking's ticket (once).
    async fn issue_ticket(&mut self, booking: BookingId, code: &str) -> Result<(), StoreError>;
    /// Queues `kind` of message for `booking` under `event_id` (once), if it has an address.
    async fn queue_mail(
        &mut self,
        event_id: &str,
        booking: BookingId,
        kind: MailKind,
    ) -> Result<(), StoreError>;
    /// Adds to a showtime's figures of a day: `[bookings, seats, revenue, refunds, refunded]`
    /// and the seats of each ticket type.
    async fn add_sales(
        &mut self,
        showtime: ShowtimeId,
        day: chrono::NaiveDate,
        channel: SalesChannel,
        figures: [i64; 5],
        by_type: [i64; 4],
    ) -> Result<(), StoreError>;
    async fn commit(self) -> Result<(), StoreError>;
}

/// The steps both dialects run alike, for a newtype over the dialect's transaction (`self.0`).
macro_rules! consumer_steps {
    () => {
        async fn add_sales(
            &mut self,
            showtime: ShowtimeId,
            day: chrono::NaiveDate,
            channel: SalesChannel,
            [bookings, seats, revenue, refunds, refunded]: [i64; 5],
            [adult, youth, senior, disabled]: [i64; 4],
        ) -> Result<(), StoreError> {
            sqlx::query(ADD_SALES)
                .bind(showtime.get())
                .bind(day)
                .bind(channel.as_str())
                .bind(bookings as i32)
                .bind(seats as i32)
                .bind(revenue)
                .bind(refunds as i32)
                .bind(refunded)
                .bind(adult as i32)
                .bind(youth as i32)
                .bind(senior as i32)
                .bind(disabled as i32)
                .execute(&mut *self.0)
                .await?;
            Ok(())
        }

        async fn commit(self) -> Result<(), StoreError> {
            Ok(self.0.commit().await?)
        }
    };
}

/// Applies `effect` for `consumer` unless the event was applied before (see
/// [`Consumers::apply_event`]); whether this was the first time.
pub(super) async fn apply_event<T: ConsumerSteps>(
    mut tx: T,
    consumer: &str,
    event_id: &str,
    effect: &ConsumerEffect,
) -> Result<bool, StoreError> {
    if !tx.record_consumed(consumer, event_id).await? {
        return Ok(false);
    }
    match effect {
        ConsumerEffect::Nothing => {}
        ConsumerEffect::IssueTicket { booking, code } => tx.issue_ticket(*booking, code).await?,
        ConsumerEffect::QueueMail { booking, kind } => {
            tx.queue_mail(event_id, *booking, *kind).await?
        }
        ConsumerEffect::Sales {
            showtime,
            day,
            channel,
            bookings,
            seats,
            by_type,
            revenue,
            refunds,
            refunded,
        } => {
            let figures = [*bookings, *seats, *revenue, *refunds, *refunded];
            tx.add_sales(*showtime, *day, *channel, figures, *by_type)
                .await?
        }
    }
    tx.commit().await?;
    Ok(true)
}
