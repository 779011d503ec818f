use super::*;
use crate::store::sqlite::append_event;

// The single writer runs one transaction at a time: nothing to lock.
const LOCK_SHIFT: &str = "";
const LOCK_BOOKING: &str = "";
const LOCK_SCANNED: &str = "";
const LOCK_SHOWTIME: &str = "";
const LOCK_PAYMENT: &str = "";
/// The time a sale is judged at (the injected clock, else this process's).
const FENCE_NOW: &str = "$2";

/// The fenced confirm of `hold` for `booking`: every seat still held by it and not expired, or
/// none (the caller compares the count with the hold's seats; nothing else writes meanwhile).
async fn confirm(
    tx: &mut sqlx::Transaction<'_, sqlx::Sqlite>,
    hold: HoldId,
    booking: BookingId,
    at: At,
) -> Result<Vec<(String, i64)>, StoreError> {
    Ok(sqlx::query_as(
        "update show_seat
            set status = 'BOOKED', booking_id = $3, hold_expires_at = null, version = version + 1
          where showtime_id = $1 and hold_id = $2 and status = 'HELD' and hold_expires_at >= $4
         returning seat_code, version",
    )
    .bind(hold.showtime_id().get())
    .bind(hold.as_uuid())
    .bind(booking.0)
    .bind(at)
    .fetch_all(&mut **tx)
    .await?)
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
        let fence = At::or_now(now);
        let mut tx = self.write.begin_with("BEGIN IMMEDIATE").await?;
        sell_at_counter!(tx, sale, at, fence: fence,
            confirm(&mut tx, sale.hold, sale.booking, fence).await?)
    }

    async fn exchange_at_counter(
        &self,
        exchange: &CounterExchangeRow,
        at: At,
        now: Now,
    ) -> Result<CounterExchanged, StoreError> {
        let fence = At::or_now(now);
        let mut tx = self.write.begin_with("BEGIN IMMEDIATE").await?;
        exchange_at_counter!(tx, exchange, at, fence: fence,
            seat_in: "in (select value from json_each($3))",
            confirm(&mut tx, exchange.hold, exchange.booking, fence).await?)
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
        let mut tx = self.write.begin_with("BEGIN IMMEDIATE").await?;
        check_in!(tx, booking, showtime, seats, gate, staff, at)
    }

    async fn refund_at_counter(
        &self,
        refund: &CounterRefundRow,
        at: At,
    ) -> Result<CounterRefunded, StoreError> {
        let mut tx = self.write.begin_with("BEGIN IMMEDIATE").await?;
        refund_at_counter!(tx, refund, at, seat_in: "in (select value from json_each($3))")
    }
}

box_office_books!(SqliteStore, write: write, read: read);
