use super::*;
use crate::store::holds::postgres::confirm_in;
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
/// The same time `$3` ms later (a customer's cancel cut-off).
const CUTOFF_NOW: &str = "coalesce($2::timestamptz, now()) + $3::bigint * interval '1 millisecond'";

/// A box-office transaction on PostgreSQL.
struct PgCounter<'a>(sqlx::Transaction<'a, sqlx::Postgres>);

impl CounterSteps for PgCounter<'_> {
    type Fence = Now;

    counter_steps!(seat_in: "= any($3)");

    async fn confirm(
        &mut self,
        hold: HoldId,
        booking: BookingId,
        fence: Now,
    ) -> Result<Vec<(String, i64)>, StoreError> {
        confirm_in(
            &mut *self.0,
            hold.showtime_id(),
            hold.as_uuid(),
            booking,
            fence,
        )
        .await
    }

    async fn append_event(&mut self, event: &Envelope) -> Result<(), StoreError> {
        append_event(&mut self.0, event).await
    }
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
        let tx = PgCounter(self.pool.begin().await?);
        counter::sell_at_counter(tx, sale, at, now).await
    }

    async fn exchange_at_counter(
        &self,
        exchange: &CounterExchangeRow,
        at: At,
        now: Now,
    ) -> Result<CounterExchanged, StoreError> {
        let tx = PgCounter(self.pool.begin().await?);
        returns::exchange_at_counter(tx, exchange, at, now).await
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
        let tx = PgCounter(self.pool.begin().await?);
        door::check_in(tx, booking, showtime, seats, gate, staff, at).await
    }

    async fn record_print(
        &self,
        booking: BookingId,
        n: i64,
        approved_by: Option<i64>,
        audit: &AuditLine,
    ) -> Result<bool, StoreError> {
        counter::record_print(
            PgCounter(self.pool.begin().await?),
            booking,
            n,
            approved_by,
            audit,
        )
        .await
    }

    async fn cancel_online_booking(
        &self,
        booking: BookingId,
        now: Now,
        cutoff: chrono::Duration,
    ) -> Result<OnlineCancelled, StoreError> {
        let tx = PgCounter(self.pool.begin().await?);
        returns::cancel_online(tx, booking, At::or_now(now), now, cutoff).await
    }

    async fn refund_at_counter(
        &self,
        refund: &CounterRefundRow,
        at: At,
    ) -> Result<CounterRefunded, StoreError> {
        let tx = PgCounter(self.pool.begin().await?);
        returns::refund_at_counter(tx, refund, at).await
    }
}

// impl BoxOfficeBooks for PgStore:
box_office_books!(PgStore, write: pool, read: pool);
