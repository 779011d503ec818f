use super::*;

/// The record that a consumer applied an event (nothing when it did before).
const RECORD_CONSUMED: &str = "insert into consumed_event (consumer, event_id) values ($1, $2)
                               on conflict do nothing";
/// A confirmed booking's ticket.
const ISSUE_TICKET: &str = "insert into ticket (booking_id, code) values ($1, $2)
                            on conflict (booking_id) do nothing";

/// A message of a booking that has an address (once per event).
const QUEUE_MAIL: &str = "insert into outgoing_mail (event_id, booking_id, kind)
     select $1, id, $3 from booking where id = $2 and email is not null
     on conflict (event_id) do nothing";

/// A consumer transaction on PostgreSQL.
struct PgConsumer<'a>(sqlx::Transaction<'a, sqlx::Postgres>);

impl apply::ConsumerSteps for PgConsumer<'_> {
    async fn record_consumed(
        &mut self,
        consumer: &str,
        event_id: &str,
    ) -> Result<bool, StoreError> {
        let done = sqlx::query(RECORD_CONSUMED)
            .bind(consumer)
            .bind(event_id)
            .execute(&mut *self.0)
            .await?;
        Ok(done.rows_affected() == 1)
    }

    async fn issue_ticket(&mut self, booking: BookingId, code: &str) -> Result<(), StoreError> {
        sqlx::query(ISSUE_TICKET)
            .bind(booking.0)
            .bind(code)
            .execute(&mut *self.0)
            .await?;
        Ok(())
    }

    async fn queue_mail(
        &mut self,
        event_id: &str,
        booking: BookingId,
        kind: MailKind,
    ) -> Result<(), StoreError> {
        sqlx::query(QUEUE_MAIL)
            .bind(event_id)
            .bind(booking.0)
            .bind(kind.as_str())
            .execute(&mut *self.0)
            .await?;
        Ok(())
    }

    consumer_steps!();
}

#[async_trait::async_trait]
impl Consumers for PgStore {
    async fn apply_event(
        &self,
        consumer: &str,
        event_id: &str,
        effect: &ConsumerEffect,
    ) -> Result<bool, StoreError> {
        let tx = PgConsumer(self.pool.begin().await?);
        apply::apply_event(tx, consumer, event_id, effect).await
    }

    async fn issued_ticket(
        &self,
        booking: BookingId,
    ) -> Result<Option<(String, DateTime<Utc>)>, StoreError> {
        let row: Option<(String, At)> = sqlx::query_as(ISSUED_TICKET)
            .bind(booking.0)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.map(|(code, at)| (code, at.0)))
    }

    async fn sales(&self) -> Result<Vec<SalesRow>, StoreError> {
        let rows: Vec<SalesDbRow> = sqlx::query_as(
            "select d.showtime_id, s.movie_title, s.starts_at, d.day, d.channel, d.bookings::bigint as bookings,
                    d.seats::bigint as seats, d.revenue_krw, d.refunds::bigint as refunds,
                    d.refunded_krw, d.adult_seats::bigint as adult_seats,
                    d.youth_seats::bigint as youth_seats, d.senior_seats::bigint as senior_seats,
                    d.disabled_seats::bigint as disabled_seats
               from sales_daily d join showtime s on s.id = d.showtime_id
              order by d.day desc, s.starts_at, d.showtime_id, d.channel",
        )
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.into_iter().map(SalesRow::from).collect())
    }
}
