use super::*;
use crate::store::holds::postgres::CONFIRM_SQL;
use crate::store::postgres::append_event;

/// A sale or refund holds its shift's row (shared) until it commits: closing the shift waits for
/// the sales in flight, and a sale after the close sees it closed.
const LOCK_SHIFT: &str = " for share";
/// Two refunds of one booking go one after the other.
const LOCK_BOOKING: &str = " for update of b";

/// The fenced confirm of `hold` for `booking` (see `CONFIRM_SQL`).
async fn confirm(
    tx: &mut sqlx::Transaction<'_, sqlx::Postgres>,
    hold: HoldId,
    booking: BookingId,
    at: At,
) -> Result<Vec<(String, i64)>, StoreError> {
    Ok(sqlx::query_as(CONFIRM_SQL)
        .bind(hold.showtime_id().get())
        .bind(hold.as_uuid())
        .bind(booking.0)
        .bind(at)
        .fetch_all(&mut **tx)
        .await?)
}

#[async_trait::async_trait]
impl BoxOffice for PgStore {
    async fn sell_at_counter(
        &self,
        sale: &CounterSaleRow,
        at: At,
    ) -> Result<CounterSold, StoreError> {
        let mut tx = self.pool.begin().await?;
        sell_at_counter!(
            tx,
            sale,
            at,
            confirm(&mut tx, sale.hold, sale.booking, at).await?
        )
    }

    async fn exchange_at_counter(
        &self,
        exchange: &CounterExchangeRow,
        at: At,
    ) -> Result<CounterExchanged, StoreError> {
        let mut tx = self.pool.begin().await?;
        exchange_at_counter!(tx, exchange, at, seat_in: "= any($3)",
            confirm(&mut tx, exchange.hold, exchange.booking, at).await?)
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

box_office_books!(PgStore, write: pool, read: pool, seat_count: "cardinality(seats)");
