use super::*;
use crate::store::holds::postgres::CONFIRM_SQL;
use crate::store::postgres::append_event;

/// A sale or refund holds its shift's row (shared) until it commits: closing the shift waits for
/// the sales in flight, and a sale after the close sees it closed.
const LOCK_SHIFT: &str = " for share";
/// Two refunds of one booking go one after the other, and after a check-in of it in flight.
const LOCK_BOOKING: &str = " for update of b";
/// A check-in takes its booking's row shared: a refund of it waits, or is waited for.
const LOCK_SCANNED: &str = " for share of b";
/// A sale takes its showtime's row shared: a cancellation waits, or is waited for.
const LOCK_SHOWTIME: &str = " for share";
/// An online payment refunded at the counter, locked against a cancellation refunding it too.
const LOCK_PAYMENT: &str = " for update";
/// The time a sale is judged at: the injected clock, else the database's.
const FENCE_NOW: &str = "coalesce($2::timestamptz, now())";

/// The fenced confirm of `hold` for `booking` (see `CONFIRM_SQL`).
async fn confirm(
    tx: &mut sqlx::Transaction<'_, sqlx::Postgres>,
    hold: HoldId,
    booking: BookingId,
    now: Now,
) -> Result<Vec<(String, i64)>, StoreError> {
    Ok(sqlx::query_as(CONFIRM_SQL)
        .bind(hold.showtime_id().get())
        .bind(hold.as_uuid())
        .bind(booking.0)
        .bind(now)
        .fetch_all(&mut **tx)
        .await?)
}

#[async_trait::async_trait]
impl BoxOffice for PgStore {
    async fn bookings_numbered(&self, number: &str) -> Result<Vec<BookingId>, StoreError> {
        // The id's text begins with the number (its first 8 hex digits).
        let ids: Vec<uuid::Uuid> =
            sqlx::query_scalar("select id from booking where id::text like $1 || '%' limit 5")
                .bind(number)
                .fetch_all(&self.pool)
                .await?;
        Ok(ids.into_iter().map(BookingId).collect())
    }

    async fn sell_at_counter(
        &self,
        sale: &CounterSaleRow,
        at: At,
        now: Now,
    ) -> Result<CounterSold, StoreError> {
        let mut tx = self.pool.begin().await?;
        sell_at_counter!(tx, sale, at, fence: now,
            confirm(&mut tx, sale.hold, sale.booking, now).await?)
    }

    async fn exchange_at_counter(
        &self,
        exchange: &CounterExchangeRow,
        at: At,
        now: Now,
    ) -> Result<CounterExchanged, StoreError> {
        let mut tx = self.pool.begin().await?;
        exchange_at_counter!(tx, exchange, at, fence: now, seat_in: "= any($3)",
            confirm(&mut tx, exchange.hold, exchange.booking, now).await?)
    }

    async fn check_in(
        &self,
        booking: BookingId,
        showtime: ShowtimeId,
        seats: &[String],
        gate: &str,
        staff: Option<i64>,
        at: At,
    ) -> Result<Scanned, StoreError> {
        let mut tx = self.pool.begin().await?;
        check_in!(tx, booking, showtime, seats, gate, staff, at)
    }

    async fn refund_at_counter(
        &self,
        refund: &CounterRefundRow,
        at: At,
    ) -> Result<CounterRefunded, StoreError> {
        let mut tx = self.pool.begin().await?;
        refund_at_counter!(tx, refund, at, seat_in: "= any($3)")
    }
}

box_office_books!(PgStore, write: pool, read: pool);
