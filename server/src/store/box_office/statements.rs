//! The box office's statements, the same text in both dialects (`steps.rs` adds the locks).

pub(super) const SHIFT_OPEN: &str = "select id from shift where id = $1 and closed_at is null";
pub(super) const INSERT_BOOKING: &str =
    "insert into booking (id, showtime_id, hold_id, customer_id, seats,
                                                   amount_krw, status, created_at, updated_at,
                                                   tickets, email, language)
                              values ($1, $2, $3, $4, $5, $6, 'CONFIRMED', $7, $7, $8, $9,
                                      $10)
                              on conflict (hold_id) do nothing returning id";
pub(super) const INSERT_SALE: &str =
    "insert into counter_sale (booking_id, shift_id, tender, amount_krw,
                                                     tendered_krw, card_reference, approved_by,
                                                     created_at, seat_count)
                           values ($1, $2, $3, $4, $5, $6, $7, $8, $9)";
pub(super) const REFUND_FACTS: &str = "select b.showtime_id, b.seats, b.status, b.refunded_at is not null as refunded,
                                   b.amount_krw, b.tickets,
                                   (select cs.tender from counter_sale cs where cs.booking_id = b.id)
                                       as tender,
                                   exists (select 1 from counter_refund_owed o
                                            where o.booking_id = b.id and o.paid_at is null)
                                       as owed
                              from booking b where b.id = $1";
pub(super) const PAID_ONLINE: &str = "select provider_payment_id, coalesce(paid_amount, amount_krw)
                             from payment
                            where booking_id = $1 and status = 'PAID' and outcome = 'CONFIRMED'";
/// `release_booked` adds "and seat_code <in list $3>" and what it returns.
pub(super) const RELEASE_BOOKED: &str = "update show_seat
                                 set status = 'AVAILABLE', booking_id = null, hold_id = null,
                                     customer_id = null, hold_expires_at = null,
                                     version = version + 1
                               where showtime_id = $1 and booking_id = $2 and status = 'BOOKED'";
/// A booking's seats after a refund or an exchange, its amount less `$3`, refunded when `$4`.
pub(super) const SET_BOOKING_SEATS: &str = "update booking
                                    set seats = $2, amount_krw = amount_krw - $3,
                                        refunded_at = case when $4 then $5 else refunded_at end,
                                        updated_at = $5, tickets = coalesce($6, tickets)
                                  where id = $1";
pub(super) const INSERT_REFUND: &str =
    "insert into counter_refund (booking_id, shift_id, seats, method,
                                                         amount_krw, approved_by, created_at)
                             values ($1, $2, $3, $4, $5, $6, $7)";
pub(super) const OPEN_SHIFT: &str = "insert into shift (clerk_id, register, float_krw, opened_at)
                          values ($1, $2, $3, $4) on conflict do nothing returning id";
pub(super) const CLOSE_SHIFT: &str =
    "update shift set closed_at = $2, counted_krw = $3, closed_by = $4
                            where id = $1 and closed_at is null";
pub(super) const SHIFT_COLUMNS: &str =
    "select s.id, s.clerk_id, c.name as clerk, s.register, s.float_krw,
                                    s.opened_at, s.closed_at, s.counted_krw,
                                    (select b.name from staff_user b where b.id = s.closed_by)
                                        as closed_by
                               from shift s join staff_user c on c.id = s.clerk_id";
// Sums cast to bigint: PostgreSQL sums a bigint column as numeric.
pub(super) const SHIFT_SALES: &str = "select tender as kind, cast(count(*) as bigint) as count,
                                  cast(coalesce(sum(seat_count), 0) as bigint) as seats,
                                  cast(coalesce(sum(amount_krw), 0) as bigint) as amount
                             from counter_sale where shift_id = $1 group by tender";
pub(super) const SHIFT_REFUNDS: &str = "select method as kind, cast(count(*) as bigint) as count,
                                    cast(0 as bigint) as seats,
                                    cast(coalesce(sum(amount_krw), 0) as bigint) as amount
                               from counter_refund where shift_id = $1 group by method";
pub(super) const SHIFT_OWED: &str =
    "select cast(count(*) as bigint), cast(coalesce(sum(amount_krw), 0) as bigint)
                            from counter_refund_owed where sale_shift = $1 and paid_at is null";
pub(super) const REFUNDS_OWED: &str =
    "select o.booking_id, o.showtime_id, st.movie_title, st.starts_at,
                                   o.method, o.amount_krw, o.owed_at, c.name as clerk
                              from counter_refund_owed o
                              join showtime st on st.id = o.showtime_id
                              join shift sh on sh.id = o.sale_shift
                              join staff_user c on c.id = sh.clerk_id
                             where o.paid_at is null
                             order by o.owed_at, o.booking_id limit 500";
pub(super) const PAY_OWED: &str = "update counter_refund_owed set paid_at = $2, paid_shift = $3
                         where booking_id = $1 and paid_at is null";
pub(super) const CHECK_IN: &str =
    "insert into seat_check_in (booking_id, seat_code, showtime_id, gate,
                                                   staff_id, checked_in_at)
                        values ($1, $2, $3, $4, $5, $6)
                        on conflict (booking_id, seat_code) do nothing returning seat_code";
pub(super) const CHECKED_IN: &str =
    "select exists (select 1 from seat_check_in where booking_id = $1)";
/// A booking's events, oldest first, and when the relay published each.
pub(super) const BOOKING_EVENTS: &str = "select event_type, created_at, published_at from outbox
     where aggregate_id = $1 order by id";
/// The booking a sold seat belongs to.
pub(super) const BOOKING_OF_SEAT: &str = "select booking_id from show_seat
     where showtime_id = $1 and seat_code = $2 and status = 'BOOKED'";
pub(super) const SEATS_CHECKED_IN: &str =
    "select seat_code from seat_check_in where booking_id = $1 order by seat_code";
pub(super) const SEATS_IN: &str =
    "select cast(count(*) as bigint) from seat_check_in where booking_id = $1";
/// What a scan may check in: a confirmed booking, refunded or not (or its showtime cancelled).
pub(super) const SCANNABLE: &str = "select b.refunded_at is not null
                                or exists (select 1 from showtime st
                                            where st.id = b.showtime_id
                                              and st.cancelled_at is not null),
                                b.seats
                           from booking b where b.id = $1 and b.status = 'CONFIRMED'";
/// When and where seat `$2` (the booking's first seat, for the booking's code) was let in.
pub(super) const FIRST_SCAN: &str = "select checked_in_at, gate from seat_check_in
                           where booking_id = $1 and seat_code = $2";
pub(super) const RECORD_PRINT: &str =
    "insert into ticket_print (booking_id, n, staff_id, approved_by, printed_at)
     values ($1, $2, $3, $4, $5) on conflict do nothing returning n";
pub(super) const PRINTS: &str =
    "select cast(count(*) as bigint) from ticket_print where booking_id = $1";
pub(super) const LIVE_HOLDS_OF: &str =
    "select hold_id from seat_hold where customer_id = $1 and expires_at >= $2";
pub(super) const CHECK_IN_COUNTS: &str =
    "select showtime_id, cast(count(*) as bigint) from seat_check_in
                                group by showtime_id order by showtime_id";
