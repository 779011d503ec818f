//! The catalog's transactions — making a hall, scheduling a showtime, taking seats off public
//! sale, cancelling a showtime — written once over the dialect's steps (`CatalogSteps`).

use super::*;

/// Makes a hall with its categories and seats, and commits (see [`Catalog::create_hall`]);
/// `None` when a hall has its name already.
pub(super) async fn create_hall<T: CatalogSteps>(
    mut tx: T,
    hall: &NewHall,
) -> Result<Option<i64>, StoreError> {
    let Some(id) = tx.insert_hall(hall).await? else {
        return Ok(None);
    };
    for category in &hall.categories {
        tx.insert_category(id, category).await?;
    }
    tx.insert_hall_seats(id, &hall.seats).await?;
    tx.commit().await?;
    Ok(Some(id))
}

/// Schedules a showtime with its prices and one seat per seat of its hall, and commits (see
/// [`Catalog::add_showtime`]).
pub(super) async fn add_showtime<T: CatalogSteps>(
    mut tx: T,
    new: &NewShowtime,
) -> Result<ShowtimeId, StoreError> {
    let id = tx.insert_showtime(new).await?;
    for (category, price) in &new.prices {
        tx.insert_price(id, category, *price).await?;
    }
    tx.insert_ticket_prices(new, id).await?;
    tx.insert_show_seats(id, new.hall_id).await?;
    tx.commit().await?;
    stored_showtime(id)
}

/// Takes seats off public sale (or puts them back) if every one is free, and commits
/// (see [`Catalog::block_seats`]).
pub(super) async fn block_seats<T: CatalogSteps>(
    mut tx: T,
    showtime: ShowtimeId,
    seats: &[String],
    blocked: Option<&str>,
    now: At,
) -> Result<BlockOutcome, StoreError> {
    let mut taken = Vec::new();
    for code in seats {
        if !tx.seat_free(showtime, code, now).await? {
            taken.push(code.clone());
        }
    }
    if !taken.is_empty() {
        tx.rollback().await?;
        return Ok(BlockOutcome::NotFree(taken));
    }
    let mut changes = Vec::with_capacity(seats.len());
    for code in seats {
        let version = tx.set_blocked(showtime, code, blocked).await?;
        changes.push((code.clone(), version));
    }
    tx.commit().await?;
    Ok(BlockOutcome::Changed(changes))
}

/// Cancels a showtime at `at` and commits (see [`Catalog::cancel_showtime`]): its row first
/// (settlements of its payments wait for this, or this for them), its held seats freed, each
/// online payment still CONFIRMED marked for refund with its `RefundDue` (a counter refund of
/// the same payment may have taken it first: then nothing more is owed), and its cash and card
/// counter sales owed back at the counter with their `RefundOwed`. `None`: no such showtime;
/// cancelled already: nothing changes.
pub(super) async fn cancel_showtime<T: CatalogSteps>(
    mut tx: T,
    showtime: ShowtimeId,
    at: At,
) -> Result<Option<Cancellation>, StoreError> {
    if !tx.mark_cancelled(showtime, at).await? {
        let known = tx.showtime_exists(showtime).await?;
        return Ok(known.then(Cancellation::default));
    }
    let freed = tx.release_held(showtime).await?;
    let mut refunds = 0;
    for sale in &tx.paid_sales(showtime).await? {
        if tx.mark_refund(&sale.provider_payment_id).await? {
            tx.append_event(&sale.refund_due(showtime)).await?;
            refunds += 1;
        }
    }
    let owed = tx.owed_sales(showtime).await?;
    for sale in &owed {
        tx.owe_refund(sale, showtime, at).await?;
        tx.append_event(&sale.refund_owed(showtime)).await?;
    }
    tx.commit().await?;
    Ok(Some(Cancellation {
        cancelled_now: true,
        released: released(freed)?,
        owed_at_counter: owed.len(),
        refunds,
    }))
}
