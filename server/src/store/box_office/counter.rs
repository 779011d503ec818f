//! A counter sale and a ticket's print: one transaction each.

use super::*;

impl Store {
    /// Sells the clerk's hold in one transaction: the shift still open, the
    /// showtime not cancelled and on sale at `fence` (its row first: a cancellation and this sale go
    /// one after the other), the booking inserted CONFIRMED (one per hold), the hold's seats booked
    /// by the fenced confirm, the sale's row, `BookingConfirmed` and the audit line — all of it or
    /// nothing.
    pub async fn sell_at_counter(
        &self,
        sale: &CounterSaleRow,
        at: At,
        now: Now,
    ) -> Result<CounterSold, StoreError> {
        // The sale is judged at the time it was asked, not after waiting for the writer.
        let fence = self.fence(now);
        let mut tx = self.begin().await?;
        let open = shift_open(&mut tx, sale.shift).await?;
        let state = match open {
            true => showtime_state(&mut tx, sale.hold.showtime_id().get(), fence).await?,
            false => None,
        };
        if let Some(refusal) = sale_refusal(open, state) {
            return Ok(refusal);
        }
        if !insert_booking(&mut tx, sale, at).await? {
            return Ok(CounterSold::HoldLapsed);
        }
        let hold = sale.hold;
        let booked = tx
            .confirm(hold.showtime_id(), hold.as_uuid(), sale.booking, fence)
            .await?;
        if booked.len() != sale.seats.len() {
            tx.rollback().await?;
            return Ok(CounterSold::HoldLapsed);
        }
        insert_sale(&mut tx, sale, at).await?;
        tx.append_event(&sale.confirmed()).await?;
        record_audit(&mut tx, &sale.audit).await?;
        tx.commit().await?;
        Ok(CounterSold::Sold(changes(booked, SeatStatus::Booked)?))
    }

    /// Records print `n` of a booking's ticket (0: the first) by `audit`'s member with its audit
    /// line, in one transaction: one row per print number, so two prints at once cannot both be
    /// the `n`th; `false` (nothing written) when another print took that number first.
    pub async fn print_ticket(
        &self,
        booking: BookingId,
        n: i64,
        approved_by: Option<i64>,
        audit: &AuditLine,
    ) -> Result<bool, StoreError> {
        let mut tx = self.begin().await?;
        if !insert_print(&mut tx, booking, n, approved_by, audit).await? {
            return Ok(false);
        }
        record_audit(&mut tx, audit).await?;
        tx.commit().await?;
        Ok(true)
    }
}
