//! A counter sale: one transaction, the same in both dialects (see `CounterSteps`).

use super::*;

/// Sells the clerk's hold (see [`BoxOffice::sell_at_counter`]): the shift still open, the
/// showtime not cancelled and on sale at `fence` (its row first: a cancellation and this sale go
/// one after the other), the booking inserted CONFIRMED (one per hold), the hold's seats booked
/// by the fenced confirm, the sale's row, `BookingConfirmed` and the audit line — all of it or
/// nothing.
pub(super) async fn sell_at_counter<T: CounterSteps>(
    mut tx: T,
    sale: &CounterSaleRow,
    at: At,
    fence: T::Fence,
) -> Result<CounterSold, StoreError> {
    let open = tx.shift_open(sale.shift).await?;
    let state = match open {
        true => {
            tx.showtime_state(sale.hold.showtime_id().get(), fence)
                .await?
        }
        false => None,
    };
    if let Some(refusal) = sale_refusal(open, state) {
        return Ok(refusal);
    }
    if !tx.insert_booking(sale, at).await? {
        return Ok(CounterSold::HoldLapsed);
    }
    let booked = tx.confirm(sale.hold, sale.booking, fence).await?;
    if booked.len() != sale.seats.len() {
        tx.rollback().await?;
        return Ok(CounterSold::HoldLapsed);
    }
    tx.insert_sale(sale, at).await?;
    tx.append_event(&sale.confirmed()).await?;
    tx.record_audit(&sale.audit).await?;
    tx.commit().await?;
    Ok(CounterSold::Sold(changes(booked, SeatStatus::Booked)?))
}

/// Records print `n` of a booking with its audit line (see [`BoxOffice::record_print`]): one
/// row per print number, so two prints at once cannot both be the `n`th.
pub(super) async fn record_print<T: CounterSteps>(
    mut tx: T,
    booking: BookingId,
    n: i64,
    approved_by: Option<i64>,
    audit: &AuditLine,
) -> Result<bool, StoreError> {
    if !tx.insert_print(booking, n, approved_by, audit).await? {
        return Ok(false);
    }
    tx.record_audit(audit).await?;
    tx.commit().await?;
    Ok(true)
}
