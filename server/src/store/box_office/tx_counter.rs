//! A counter sale's transaction, as both dialects run it.

/// A counter sale in `$tx` (see [`BoxOffice::sell_at_counter`]): `$fence` is the time the sale is
/// judged at (bound for the dialect's `FENCE_NOW`), `$confirm` runs the dialect's fenced confirm
/// and evaluates to the `(code, version)` rows it booked.
macro_rules! sell_at_counter {
    ($tx:ident, $sale:expr, $at:expr, fence: $fence:expr, $confirm:expr) => {{
        let sale: &CounterSaleRow = $sale;
        let at: At = $at;
        let open: Option<i64> = sqlx::query_scalar(&format!("{SHIFT_OPEN}{}", LOCK_SHIFT))
            .bind(sale.shift)
            .fetch_optional(&mut *$tx)
            .await?;
        if open.is_none() {
            return Ok(CounterSold::ShiftClosed);
        }
        // The showtime's row (shared, in PostgreSQL) first: a cancellation and this sale go one
        // after the other, and a sale after the close of sales or a cancellation is refused.
        let state: Option<(bool, bool)> = sqlx::query_as(&showtime_state!())
            .bind(sale.hold.showtime_id().get())
            .bind($fence)
            .fetch_optional(&mut *$tx)
            .await?;
        match state {
            Some((false, true)) => {}
            Some((true, _)) => return Ok(CounterSold::Cancelled),
            _ => return Ok(CounterSold::SalesClosed),
        }
        let inserted: Option<uuid::Uuid> = sqlx::query_scalar(INSERT_BOOKING)
            .bind(sale.booking.0)
            .bind(sale.hold.showtime_id().get())
            .bind(sale.hold.as_uuid())
            .bind(sale.customer.0)
            .bind(SeatList(sale.seats.clone()))
            .bind(sale.amount)
            .bind(at)
            .fetch_optional(&mut *$tx)
            .await?;
        if inserted.is_none() {
            return Ok(CounterSold::HoldLapsed);
        }
        let booked: Vec<(String, i64)> = $confirm;
        if booked.len() != sale.seats.len() {
            $tx.rollback().await?;
            return Ok(CounterSold::HoldLapsed);
        }
        sqlx::query(INSERT_SALE)
            .bind(sale.booking.0)
            .bind(sale.shift)
            .bind(sale.tender.as_str())
            .bind(sale.amount)
            .bind(sale.tendered)
            .bind(sale.card_reference.as_deref())
            .bind(sale.approved_by)
            .bind(at)
            .bind(sale.seats.len() as i32)
            .execute(&mut *$tx)
            .await?;
        append_event(&mut $tx, &sale.confirmed()).await?;
        record_audit!($tx, &sale.audit);
        $tx.commit().await?;
        Ok(CounterSold::Sold(changes(booked, SeatStatus::Booked)?))
    }};
}
