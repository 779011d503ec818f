use super::*;
use crate::store::sqlite::append_event;

// The single writer runs one transaction at a time: nothing to lock.
const LOCK_SHIFT: &str = "";
const LOCK_BOOKING: &str = "";

#[async_trait::async_trait]
impl BoxOffice for SqliteStore {
    async fn sell_at_counter(
        &self,
        sale: &CounterSaleRow,
        at: At,
    ) -> Result<CounterSold, StoreError> {
        let mut tx = self.write.begin_with("BEGIN IMMEDIATE").await?;
        sell_at_counter!(tx, sale, at, {
            // The fenced confirm: every seat of the hold still held by it and not expired, or
            // none (the count is compared with the sale's seats).
            sqlx::query_as(
                "update show_seat
                    set status = 'BOOKED', booking_id = $3, hold_expires_at = null,
                        version = version + 1
                  where showtime_id = $1 and hold_id = $2 and status = 'HELD'
                    and hold_expires_at >= $4
                 returning seat_code, version",
            )
            .bind(sale.hold.showtime_id().get())
            .bind(sale.hold.as_uuid())
            .bind(sale.booking.0)
            .bind(at)
            .fetch_all(&mut *tx)
            .await?
        })
    }

    async fn refund_at_counter(
        &self,
        refund: &CounterRefundRow,
        at: At,
    ) -> Result<CounterRefunded, StoreError> {
        let mut tx = self.write.begin_with("BEGIN IMMEDIATE").await?;
        refund_at_counter!(tx, refund, at)
    }
}

box_office_books!(SqliteStore, write: write, read: read, seat_count: "json_array_length(seats)");
