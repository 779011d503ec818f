//! The statements of the refund and exchange transactions, one function each, in the caller's
//! transaction: the SQL, its lock and its binds. Only statements: every decision is in the
//! transactions that call them.

use super::*;
use app::domain::{SeatCode, SeatGivenBack};

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

/// The booking's facts for a refund or an exchange, its row locked (on PostgreSQL: two refunds
/// of one booking go one after the other, and after a check-in of it in flight).
pub(super) async fn refund_facts(
    tx: &mut Tx,
    booking: BookingId,
) -> Result<Option<RefundFacts>, StoreError> {
    let refund_facts = "select b.showtime_id, b.seats, b.status, b.refunded_at is not null as refunded,
                                   b.amount_krw, b.tickets, b.given_back,
                                   (select cs.tender from counter_sale cs where cs.booking_id = b.id)
                                       as tender,
                                   exists (select 1 from counter_refund_owed o
                                            where o.booking_id = b.id and o.paid_at is null)
                                       as owed
                              from booking b where b.id = $1";
    let facts = format!("{refund_facts} {}", tx.row_lock("for update of b"));
    Ok(on!(tx, c => {
        sqlx::query_as(&facts).bind(booking.0).fetch_optional(c).await?
    }))
}

/// Whether any seat of the booking was checked in (read after the booking's lock).
pub(super) async fn checked_in(tx: &mut Tx, booking: BookingId) -> Result<bool, StoreError> {
    let checked_in = "select exists (select 1 from seat_check_in where booking_id = $1)";
    Ok(on!(tx, c => {
        sqlx::query_scalar(checked_in).bind(booking.0).fetch_one(c).await?
    }))
}

/// The online payment of the booking, if it was paid online and confirmed: its id and the
/// amount paid (its row locked, on PostgreSQL, against a cancellation refunding it too).
pub(super) async fn paid_online(
    tx: &mut Tx,
    booking: BookingId,
) -> Result<Option<(String, Won)>, StoreError> {
    let paid_online = "select provider_payment_id, coalesce(paid_amount, amount_krw)
                             from payment
                            where booking_id = $1 and status = 'PAID' and outcome = 'CONFIRMED'";
    let paid = format!("{paid_online} {}", tx.row_lock("for update"));
    Ok(on!(tx, c => {
        sqlx::query_as(&paid).bind(booking.0).fetch_optional(c).await?
    }))
}

/// Frees `seats` of the booking: `(code, version, blocked)` of each seat freed.
pub(super) async fn release_booked(
    tx: &mut Tx,
    showtime: i64,
    booking: BookingId,
    seats: &[SeatCode],
) -> Result<Vec<(String, i64, Option<String>)>, StoreError> {
    // `release_booked` adds "and seat_code <in list $3>" and what it returns.
    let release_booked = "update show_seat
                                 set status = 'AVAILABLE', booking_id = null, hold_id = null,
                                     customer_id = null, hold_expires_at = null,
                                     version = version + 1
                               where showtime_id = $1 and booking_id = $2 and status = 'BOOKED'";
    let release = format!(
        "{release_booked} and {} returning seat_code, version, blocked",
        tx.in_list("seat_code", 3)
    );
    Ok(on!(tx, c => {
        sqlx::query_as(&release)
            .bind(showtime)
            .bind(booking.0)
            .bind(List(seats.to_vec()))
            .fetch_all(c)
            .await?
    }))
}

/// A booking after a refund or an exchange.
pub(super) struct BookingAfter<'a> {
    /// The seats it has now.
    pub(super) seats: &'a [SeatCode],
    /// Taken off its amount.
    pub(super) less: Won,
    /// Given back to the customer (what the refund moved).
    pub(super) refunded: Won,
    /// Refunded whole.
    pub(super) whole: bool,
    /// Its seats' types and prices now (`None`: as they were).
    pub(super) tickets: Option<&'a [SoldSeat]>,
    /// Every seat it gave back, this change's included.
    pub(super) given_back: &'a [SeatGivenBack],
}

/// Writes the booking as it is after a refund or an exchange.
pub(super) async fn set_booking_seats(
    tx: &mut Tx,
    booking: BookingId,
    after: &BookingAfter<'_>,
    at: At,
) -> Result<(), StoreError> {
    // A booking's seats after a refund or an exchange, its amount less `$3`, `$7` more given back,
    // refunded when `$4`.
    let set_booking_seats = "update booking
                                    set seats = $2, amount_krw = amount_krw - $3,
                                        refunded_krw = refunded_krw + $7,
                                        refunded_at = case when $4 then $5 else refunded_at end,
                                        updated_at = $5, tickets = coalesce($6, tickets),
                                        given_back = $8
                                  where id = $1";
    on!(tx, c => {
        sqlx::query(set_booking_seats)
            .bind(booking.0)
            .bind(List(after.seats.to_vec()))
            .bind(after.less)
            .bind(after.whole)
            .bind(at)
            .bind(after.tickets.and_then(crate::store::write_list))
            .bind(after.refunded)
            .bind(crate::store::write_list(after.given_back))
            .execute(c)
            .await?;
    });
    Ok(())
}

/// The refund's row.
pub(super) async fn insert_refund(
    tx: &mut Tx,
    refund: &CounterRefundRow,
    seats: &[SeatCode],
    method: &str,
    amount: Won,
    at: At,
) -> Result<(), StoreError> {
    let insert_refund = "insert into counter_refund (booking_id, shift_id, seats, method,
                                                         amount_krw, approved_by, created_at)
                             values ($1, $2, $3, $4, $5, $6, $7)";
    on!(tx, c => {
        sqlx::query(insert_refund)
            .bind(refund.booking.0)
            .bind(refund.shift)
            .bind(List(seats.to_vec()))
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
    let pay_owed = "update counter_refund_owed set paid_at = $2, paid_shift = $3
                         where booking_id = $1 and paid_at is null";
    on!(tx, c => {
        sqlx::query(pay_owed).bind(booking.0).bind(at).bind(shift).execute(c).await?;
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
