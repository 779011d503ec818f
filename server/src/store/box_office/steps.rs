//! The statements of the box office's transactions (`counter.rs`, `returns.rs`, `door.rs`), one
//! function each, in the caller's transaction: the SQL, its lock and its
//! binds. Only statements: every decision is in the transactions that call them.

use super::*;
use app::domain::{SeatCode, Won};

/// Whether shift `shift` is open. A sale or refund holds the shift's row (shared, on
/// PostgreSQL) until it commits: closing the shift waits for the sales in flight, and a sale
/// after the close sees it closed.
pub(super) async fn shift_open(tx: &mut Tx, shift: i64) -> Result<bool, StoreError> {
    let shift_open = "select id from shift where id = $1 and closed_at is null";
    let open = format!("{shift_open} {}", tx.row_lock("for share"));
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
    let insert_booking = "insert into booking (id, showtime_id, hold_id, customer_id, seats,
                                                   amount_krw, status, created_at, updated_at,
                                                   tickets, email, language)
                              values ($1, $2, $3, $4, $5, $6, 'CONFIRMED', $7, $7, $8, $9,
                                      $10)
                              on conflict (hold_id) do nothing returning id";
    let inserted: Option<uuid::Uuid> = on!(tx, c => {
        sqlx::query_scalar(insert_booking)
            .bind(sale.booking.0)
            .bind(sale.hold.showtime_id().get())
            .bind(sale.hold.as_uuid())
            .bind(sale.customer.0)
            .bind(List(sale.seats.clone()))
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
    let insert_sale = "insert into counter_sale (booking_id, shift_id, tender, amount_krw,
                                                     tendered_krw, card_reference, approved_by,
                                                     created_at, seat_count)
                           values ($1, $2, $3, $4, $5, $6, $7, $8, $9)";
    on!(tx, c => {
        sqlx::query(insert_sale)
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

const RECORD_PRINT: &str =
    "insert into ticket_print (booking_id, n, staff_id, approved_by, printed_at)
     values ($1, $2, $3, $4, $5) on conflict do nothing returning n";

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
    let refund_facts = "select b.showtime_id, b.seats, b.status, b.refunded_at is not null as refunded,
                                   b.amount_krw, b.tickets,
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

/// The booking's seats now, `amount` less, refunded when `refunded`, and its seats' types and
/// prices when given (`None`: as they were).
pub(super) async fn set_booking_seats(
    tx: &mut Tx,
    booking: BookingId,
    seats: &[SeatCode],
    amount: Won,
    refunded: bool,
    at: At,
    tickets: Option<&[SoldSeat]>,
) -> Result<(), StoreError> {
    // A booking's seats after a refund or an exchange, its amount less `$3`, refunded when `$4`.
    let set_booking_seats = "update booking
                                    set seats = $2, amount_krw = amount_krw - $3,
                                        refunded_at = case when $4 then $5 else refunded_at end,
                                        updated_at = $5, tickets = coalesce($6, tickets)
                                  where id = $1";
    on!(tx, c => {
        sqlx::query(set_booking_seats)
            .bind(booking.0)
            .bind(List(seats.to_vec()))
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

/// Whether the booking is refunded (or its showtime cancelled), and its seats now, if it is a
/// confirmed booking. A check-in takes the booking's row (shared, on PostgreSQL): a refund of
/// it waits, or is waited for.
pub(super) async fn scannable(
    tx: &mut Tx,
    booking: BookingId,
) -> Result<Option<(bool, SeatList)>, StoreError> {
    // What a scan may check in: a confirmed booking, refunded or not (or its showtime cancelled).
    let scannable = "select b.refunded_at is not null
                                or exists (select 1 from showtime st
                                            where st.id = b.showtime_id
                                              and st.cancelled_at is not null),
                                b.seats
                           from booking b where b.id = $1 and b.status = 'CONFIRMED'";
    let scannable = format!("{scannable} {}", tx.row_lock("for share of b"));
    Ok(on!(tx, c => {
        sqlx::query_as(&scannable).bind(booking.0).fetch_optional(c).await?
    }))
}

/// Checks one seat in; its code if this scan was the first.
pub(super) async fn check_in_seat(
    tx: &mut Tx,
    booking: BookingId,
    seat: &SeatCode,
    showtime: ShowtimeId,
    gate: &str,
    staff: Option<i64>,
    at: At,
) -> Result<Option<String>, StoreError> {
    let check_in = "insert into seat_check_in (booking_id, seat_code, showtime_id, gate,
                                                   staff_id, checked_in_at)
                        values ($1, $2, $3, $4, $5, $6)
                        on conflict (booking_id, seat_code) do nothing returning seat_code";
    Ok(on!(tx, c => {
        sqlx::query_scalar(check_in)
            .bind(booking.0)
            .bind(seat.as_str())
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
    seat: Option<&SeatCode>,
) -> Result<Option<(At, String)>, StoreError> {
    // When and where seat `$2` (the booking's first seat, for the booking's code) was let in.
    let first_scan = "select checked_in_at, gate from seat_check_in
                           where booking_id = $1 and seat_code = $2";
    Ok(on!(tx, c => {
        sqlx::query_as(first_scan).bind(booking.0).bind(seat.map(SeatCode::as_str)).fetch_optional(c).await?
    }))
}

/// How many of the booking's seats are in.
pub(super) async fn seats_in(tx: &mut Tx, booking: BookingId) -> Result<i64, StoreError> {
    let seats_in = "select cast(count(*) as bigint) from seat_check_in where booking_id = $1";
    Ok(on!(tx, c => {
        sqlx::query_scalar(seats_in).bind(booking.0).fetch_one(c).await?
    }))
}
