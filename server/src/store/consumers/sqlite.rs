use super::*;

#[async_trait::async_trait]
impl Consumers for SqliteStore {
    async fn apply_event(
        &self,
        consumer: &str,
        event_id: &str,
        effect: &ConsumerEffect,
    ) -> Result<bool, StoreError> {
        let now = At::or_now(None);
        let mut tx = self.write.begin_with("BEGIN IMMEDIATE").await?;
        let first = sqlx::query(
            "insert into consumed_event (consumer, event_id, consumed_at) values ($1, $2, $3)
             on conflict do nothing",
        )
        .bind(consumer)
        .bind(event_id)
        .bind(now)
        .execute(&mut *tx)
        .await?
        .rows_affected()
            == 1;
        if !first {
            return Ok(false);
        }
        match effect {
            ConsumerEffect::Nothing => {}
            ConsumerEffect::IssueTicket { booking, code } => {
                sqlx::query(
                    "insert into ticket (booking_id, code, issued_at) values ($1, $2, $3)
                     on conflict (booking_id) do nothing",
                )
                .bind(booking.0)
                .bind(code)
                .bind(now)
                .execute(&mut *tx)
                .await?;
            }
            ConsumerEffect::Sales {
                showtime,
                day,
                bookings,
                seats,
                revenue,
                refunds,
                refunded,
            } => {
                sqlx::query(
                    "insert into sales_daily
                        (showtime_id, day, bookings, seats, revenue_krw, refunds, refunded_krw)
                     values ($1, $2, $3, $4, $5, $6, $7)
                     on conflict (showtime_id, day) do update
                        set bookings = sales_daily.bookings + excluded.bookings,
                            seats = sales_daily.seats + excluded.seats,
                            revenue_krw = sales_daily.revenue_krw + excluded.revenue_krw,
                            refunds = sales_daily.refunds + excluded.refunds,
                            refunded_krw = sales_daily.refunded_krw + excluded.refunded_krw",
                )
                .bind(showtime.0)
                .bind(day)
                .bind(bookings)
                .bind(seats)
                .bind(revenue)
                .bind(refunds)
                .bind(refunded)
                .execute(&mut *tx)
                .await?;
            }
        }
        tx.commit().await?;
        Ok(true)
    }

    async fn issued_ticket(
        &self,
        booking: BookingId,
    ) -> Result<Option<(String, DateTime<Utc>)>, StoreError> {
        let row: Option<(String, At)> = sqlx::query_as(ISSUED_TICKET)
            .bind(booking.0)
            .fetch_optional(&self.read)
            .await?;
        Ok(row.map(|(code, at)| (code, at.0)))
    }

    async fn sales(&self) -> Result<Vec<SalesRow>, StoreError> {
        let rows: Vec<SalesDbRow> = sqlx::query_as(
            "select d.showtime_id, s.movie_title, s.starts_at, d.day, d.bookings, d.seats,
                    d.revenue_krw, d.refunds, d.refunded_krw
               from sales_daily d join showtime s on s.id = d.showtime_id
              order by d.day desc, s.starts_at, d.showtime_id",
        )
        .fetch_all(&self.read)
        .await?;
        Ok(rows.into_iter().map(SalesRow::from).collect())
    }
}
