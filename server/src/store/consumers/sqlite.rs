use super::*;
use crate::store::sqlite::{from_millis, millis};

#[async_trait::async_trait]
impl Consumers for SqliteStore {
    async fn apply_event(
        &self,
        consumer: &str,
        event_id: &str,
        effect: &ConsumerEffect,
    ) -> Result<bool, StoreError> {
        let now = millis(Utc::now());
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
                .bind(day.format("%Y-%m-%d").to_string())
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
        let row: Option<(String, i64)> =
            sqlx::query_as("select code, issued_at from ticket where booking_id = $1")
                .bind(booking.0)
                .fetch_optional(&self.read)
                .await?;
        row.map(|(code, at)| Ok((code, from_millis(at)?)))
            .transpose()
    }

    async fn sales(&self) -> Result<Vec<SalesRow>, StoreError> {
        type Row = (i64, String, i64, String, i64, i64, i64, i64, i64);
        let rows: Vec<Row> = sqlx::query_as(
            "select d.showtime_id, s.movie_title, s.starts_at, d.day, d.bookings, d.seats,
                    d.revenue_krw, d.refunds, d.refunded_krw
               from sales_daily d join showtime s on s.id = d.showtime_id
              order by d.day desc, s.starts_at, d.showtime_id",
        )
        .fetch_all(&self.read)
        .await?;
        rows.into_iter()
            .map(|r| {
                Ok(SalesRow {
                    showtime: ShowtimeId(r.0),
                    movie_title: r.1,
                    starts_at: from_millis(r.2)?,
                    day: chrono::NaiveDate::parse_from_str(&r.3, "%Y-%m-%d")
                        .map_err(|e| StoreError::Corrupt(e.to_string()))?,
                    bookings: r.4,
                    seats: r.5,
                    revenue: r.6,
                    refunds: r.7,
                    refunded: r.8,
                })
            })
            .collect()
    }
}
