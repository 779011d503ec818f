use super::*;
use crate::store::holds::sqlite::confirm_in;
use crate::store::sqlite::append_event;

// The single writer runs one transaction at a time: nothing to lock.
const LOCK_SHIFT: &str = "";
const LOCK_BOOKING: &str = "";
const LOCK_SCANNED: &str = "";
const LOCK_SHOWTIME: &str = "";
const LOCK_PAYMENT: &str = "";
/// The time a sale is judged at (the injected clock, else this process's).
const FENCE_NOW: &str = "$2";
/// The same time `$3` ms later (a customer's cancel cut-off).
const CUTOFF_NOW: &str = "$2 + $3";

/// A box-office transaction on SQLite (`BEGIN IMMEDIATE`: the one writer).
struct SqliteCounter<'a>(sqlx::Transaction<'a, sqlx::Sqlite>);

impl CounterSteps for SqliteCounter<'_> {
    type Fence = At;

    counter_steps!(seat_in: "in (select value from json_each($3))");

    async fn confirm(
        &mut self,
        hold: HoldId,
        booking: BookingId,
        fence: At,
    ) -> Result<Vec<(String, i64)>, StoreError> {
        confirm_in(
            &mut self.0,
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

impl SqliteStore {
    async fn counter_tx(&self) -> Result<SqliteCounter<'_>, StoreError> {
        Ok(SqliteCounter(
            self.write.begin_with("BEGIN IMMEDIATE").await?,
        ))
    }
}

#[async_trait::async_trait]
impl BoxOffice for SqliteStore {
    async fn bookings_numbered(&self, number: &str) -> Result<Vec<BookingId>, StoreError> {
        // The id's text begins with the number (its first 8 hex digits).
        let ids: Vec<uuid::Uuid> = sqlx::query_scalar(
            "select id from booking where lower(hex(id)) like $1 || '%' limit 5",
        )
        .bind(number)
        .fetch_all(&self.read)
        .await?;
        Ok(ids.into_iter().map(BookingId).collect())
    }

    async fn sell_at_counter(
        &self,
        sale: &CounterSaleRow,
        at: At,
        now: Now,
    ) -> Result<CounterSold, StoreError> {
        // The sale is judged at the time it was asked, not after waiting for the writer.
        let fence = At::or_now(now);
        counter::sell_at_counter(self.counter_tx().await?, sale, at, fence).await
    }

    async fn exchange_at_counter(
        &self,
        exchange: &CounterExchangeRow,
        at: At,
        now: Now,
    ) -> Result<CounterExchanged, StoreError> {
        let fence = At::or_now(now);
        let tx = self.counter_tx().await?;
        returns::exchange_at_counter(tx, exchange, at, fence).await
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
        let tx = self.counter_tx().await?;
        door::check_in(tx, booking, showtime, seats, gate, staff, at).await
    }

    async fn record_print(
        &self,
        booking: BookingId,
        n: i64,
        approved_by: Option<i64>,
        audit: &AuditLine,
    ) -> Result<bool, StoreError> {
        counter::record_print(self.counter_tx().await?, booking, n, approved_by, audit).await
    }

    async fn cancel_online_booking(
        &self,
        booking: BookingId,
        now: Now,
        cutoff: chrono::Duration,
    ) -> Result<OnlineCancelled, StoreError> {
        let at = At::or_now(now);
        returns::cancel_online(self.counter_tx().await?, booking, at, at, cutoff).await
    }

    async fn refund_at_counter(
        &self,
        refund: &CounterRefundRow,
        at: At,
    ) -> Result<CounterRefunded, StoreError> {
        returns::refund_at_counter(self.counter_tx().await?, refund, at).await
    }
}

// impl BoxOfficeBooks for SqliteStore:
box_office_books!(SqliteStore, write: write, read: read);
