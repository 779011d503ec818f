//! The statements of the box office's transactions (`counter.rs`, `returns.rs`, `door.rs`), one
//! function each, in the caller's transaction: the SQL (from `statements.rs`), its lock and its
//! binds. Only statements: every decision is in the transactions that call them.

use super::*;

/// Whether shift `shift` is open. A sale or refund holds the shift's row (shared, on
/// PostgreSQL) until it commits: closing the shift waits for the sales in flight, and a sale
/// after the close sees it closed.
pub(super) async fn shift_open(tx: &mut Tx, shift: i64) -> Result<bool, StoreError> {
    let open = format!("{SHIFT_OPEN} {}", tx.row_lock("for share"));
    let open: Option<i64> = on!(tx, c => {
        sqlx::query_scalar(&open).bind(shift).fetch_optional(c).await?
    });
    Ok(open.is_some())
}

/// Whether the showtime starts more than `cutoff` after `fence` (the database's clock, or the
/// injected one): a customer may still cancel.
pub(super) async fn before_cutoff(
    tx: &mut Tx,
    showtime: i64,
    fence: Now,
    cutoff: chrono::Duration,
) -> Result<bool, StoreError> {
    let before = "select starts_at > coalesce($2, current_timestamp) + $3
                    from showtime where id = $1";
    let before: Option<bool> = on!(tx, c => {
        sqlx::query_scalar(before)
            .bind(showtime)
            .bind(Moment(fence))
            .bind(Span(cutoff))
            .fetch_optional(c)
            .await?
    });
    Ok(before.unwrap_or(false))
}

/// Whether the showtime is cancelled, and whether its sales are open at `fence`. A sale takes
/// the showtime's row (shared, on PostgreSQL): a cancellation and this transaction go one after
/// the other.
pub(super) async fn showtime_state(
    tx: &mut Tx,
    showtime: i64,
    fence: Now,
) -> Result<Option<(bool, bool)>, StoreError> {
    let state = format!(
        "select cancelled_at is not null,
                coalesce(sales_close_at, starts_at) > coalesce($2, current_timestamp)
           from showtime where id = $1 {}",
        tx.row_lock("for share")
    );
    Ok(on!(tx, c => {
        sqlx::query_as(&state).bind(showtime).bind(Moment(fence)).fetch_optional(c).await?
    }))
}

/// Inserts the sale's booking, CONFIRMED; false when the hold has one already.
pub(super) async fn insert_booking(
    tx: &mut Tx,
    sale: &CounterSaleRow,
    at: At,
) -> Result<bool, StoreError> {
    let inserted: Option<uuid::Uuid> = on!(tx, c => {
        sqlx::query_scalar(INSERT_BOOKING)
            .bind(sale.booking.0)
            .bind(sale.hold.showtime_id().get())
            .bind(sale.hold.as_uuid())
            .bind(sale.customer.0)
            .bind(SeatList(sale.seats.clone()))
            .bind(sale.amount)
            .bind(at)
            .bind(crate::store::write_tickets(&sale.tickets))
            .bind(sale.email.as_deref())
            .bind(sale.language.as_deref())
            .fetch_optional(c)
            .await?
    });
    Ok(inserted.is_some())
}

/// The sale's row.
pub(super) async fn insert_sale(
    tx: &mut Tx,
    sale: &CounterSaleRow,
    at: At,
) -> Result<(), StoreError> {
    on!(tx, c => {
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
            .execute(c)
            .await?;
    });
    Ok(())
}

/// Records print `n` of the booking; false when that print is recorded already.
pub(super) async fn insert_print(
    tx: &mut Tx,
    booking: BookingId,
    n: i64,
    approved_by: Option<i64>,
    audit: &AuditLine,
) -> Result<bool, StoreError> {
    let inserted: Option<i32> = on!(tx, c => {
        sqlx::query_scalar(RECORD_PRINT)
            .bind(booking.0)
            .bind(i32::try_from(n).unwrap_or(i32::MAX))
            .bind(audit.staff_id)
            .bind(approved_by)
            .bind(audit.at)
            .fetch_optional(c)
            .await?
    });
    Ok(inserted.is_some())
}

/// Writes an audit line (in the transaction of the action it records).
pub(super) async fn record_audit(tx: &mut Tx, line: &AuditLine) -> Result<(), StoreError> {
    on!(tx, c => {
        sqlx::query(RECORD_ACTION)
            .bind(line.at)
            .bind(line.staff_id)
            .bind(&line.staff_name)
            .bind(line.action)
            .bind(&line.detail)
            .bind(line.address.as_deref())
            .bind(crate::store::facts_json(&line.facts))
            .execute(c)
            .await?;
    });
    Ok(())
}

/// The booking's facts for a refund or an exchange, its row locked (on PostgreSQL: two refunds
/// of one booking go one after the other, and after a check-in of it in flight).
pub(super) async fn refund_facts(
    tx: &mut Tx,
    booking: BookingId,
) -> Result<Option<RefundFacts>, StoreError> {
    let facts = format!("{REFUND_FACTS} {}", tx.row_lock("for update of b"));
    Ok(on!(tx, c => {
        sqlx::query_as(&facts).bind(booking.0).fetch_optional(c).await?
    }))
}

/// Whether any seat of the booking was checked in (read after the booking's lock).
pub(super) async fn checked_in(tx: &mut Tx, booking: BookingId) -> Result<bool, StoreError> {
    Ok(on!(tx, c => {
        sqlx::query_scalar(CHECKED_IN).bind(booking.0).fetch_one(c).await?
    }))
}

/// The online payment of the booking, if it was paid online and confirmed: its id and the
/// amount paid (its row locked, on PostgreSQL, against a cancellation refunding it too).
pub(super) async fn paid_online(
    tx: &mut Tx,
    booking: BookingId,
) -> Result<Option<(String, i64)>, StoreError> {
    let paid = format!("{PAID_ONLINE} {}", tx.row_lock("for update"));
    Ok(on!(tx, c => {
        sqlx::query_as(&paid).bind(booking.0).fetch_optional(c).await?
    }))
}

/// Frees `seats` of the booking: `(code, version, blocked)` of each seat freed.
pub(super) async fn release_booked(
    tx: &mut Tx,
    showtime: i64,
    booking: BookingId,
    seats: &[String],
) -> Result<Vec<(String, i64, Option<String>)>, StoreError> {
    let release = format!(
        "{RELEASE_BOOKED} and {} returning seat_code, version, blocked",
        tx.in_list("seat_code", 3)
    );
    Ok(on!(tx, c => {
        sqlx::query_as(&release)
            .bind(showtime)
            .bind(booking.0)
            .bind(SeatList(seats.to_vec()))
            .fetch_all(c)
            .await?
    }))
}

/// The booking's seats now, `amount` less, refunded when `refunded`, and its seats' types and
/// prices when given (`None`: as they were).
pub(super) async fn set_booking_seats(
    tx: &mut Tx,
    booking: BookingId,
    seats: &[String],
    amount: i64,
    refunded: bool,
    at: At,
    tickets: Option<&[SoldSeat]>,
) -> Result<(), StoreError> {
    on!(tx, c => {
        sqlx::query(SET_BOOKING_SEATS)
            .bind(booking.0)
            .bind(SeatList(seats.to_vec()))
            .bind(amount)
            .bind(refunded)
            .bind(at)
            .bind(tickets.and_then(crate::store::write_tickets))
            .execute(c)
            .await?;
    });
    Ok(())
}

/// The refund's row.
pub(super) async fn insert_refund(
    tx: &mut Tx,
    refund: &CounterRefundRow,
    seats: &[String],
    method: &str,
    amount: i64,
    at: At,
) -> Result<(), StoreError> {
    on!(tx, c => {
        sqlx::query(INSERT_REFUND)
            .bind(refund.booking.0)
            .bind(refund.shift)
            .bind(SeatList(seats.to_vec()))
            .bind(method)
            .bind(amount)
            .bind(refund.approved_by)
            .bind(at)
            .execute(c)
            .await?;
    });
    Ok(())
}

/// Marks a refund owed (a cancelled showtime's counter sale) paid, in `shift`.
pub(super) async fn pay_owed(
    tx: &mut Tx,
    booking: BookingId,
    at: At,
    shift: i64,
) -> Result<(), StoreError> {
    on!(tx, c => {
        sqlx::query(PAY_OWED).bind(booking.0).bind(at).bind(shift).execute(c).await?;
    });
    Ok(())
}

/// CONFIRMED → REFUND for the payment; false when it is not CONFIRMED (being refunded).
pub(super) async fn mark_payment_refund(tx: &mut Tx, payment_id: &str) -> Result<bool, StoreError> {
    let mark = "update payment set outcome = 'REFUND'
                 where provider_payment_id = $1 and outcome = 'CONFIRMED'";
    let marked = on!(tx, c => {
        sqlx::query(mark).bind(payment_id).execute(c).await?.rows_affected()
    });
    Ok(marked == 1)
}

/// Deletes a hold used up by an exchange.
pub(super) async fn delete_hold(tx: &mut Tx, hold: HoldId) -> Result<(), StoreError> {
    let delete = "delete from seat_hold where showtime_id = $1 and hold_id = $2";
    on!(tx, c => {
        sqlx::query(delete)
            .bind(hold.showtime_id().get())
            .bind(hold.as_uuid())
            .execute(c)
            .await?;
    });
    Ok(())
}

/// Whether the booking is refunded (or its showtime cancelled), and its seats now, if it is a
/// confirmed booking. A check-in takes the booking's row (shared, on PostgreSQL): a refund of
/// it waits, or is waited for.
pub(super) async fn scannable(
    tx: &mut Tx,
    booking: BookingId,
) -> Result<Option<(bool, SeatList)>, StoreError> {
    let scannable = format!("{SCANNABLE} {}", tx.row_lock("for share of b"));
    Ok(on!(tx, c => {
        sqlx::query_as(&scannable).bind(booking.0).fetch_optional(c).await?
    }))
}

/// Checks one seat in; its code if this scan was the first.
pub(super) async fn check_in_seat(
    tx: &mut Tx,
    booking: BookingId,
    seat: &str,
    showtime: ShowtimeId,
    gate: &str,
    staff: Option<i64>,
    at: At,
) -> Result<Option<String>, StoreError> {
    Ok(on!(tx, c => {
        sqlx::query_scalar(CHECK_IN)
            .bind(booking.0)
            .bind(seat)
            .bind(showtime.get())
            .bind(gate)
            .bind(staff)
            .bind(at)
            .fetch_optional(c)
            .await?
    }))
}

/// The first scan of `seat` of the booking: when and at which gate.
pub(super) async fn first_scan(
    tx: &mut Tx,
    booking: BookingId,
    seat: Option<&String>,
) -> Result<Option<(At, String)>, StoreError> {
    Ok(on!(tx, c => {
        sqlx::query_as(FIRST_SCAN).bind(booking.0).bind(seat).fetch_optional(c).await?
    }))
}

/// How many of the booking's seats are in.
pub(super) async fn seats_in(tx: &mut Tx, booking: BookingId) -> Result<i64, StoreError> {
    Ok(on!(tx, c => {
        sqlx::query_scalar(SEATS_IN).bind(booking.0).fetch_one(c).await?
    }))
}
