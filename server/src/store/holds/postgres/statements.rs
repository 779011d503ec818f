//! The PostgreSQL hold statements: each decides in one statement, on the rows it locks.

/// Holds all of `$2` for hold `$3` or nothing. (No `--` comments inside: the benchmark runs the
/// text on one line in pgbench.)
///
/// `req` locks the requested rows in seat-code order and judges each on its newest committed
/// version (a row changed while the statement waited for its lock is re-read: that is what `for
/// update` does in READ COMMITTED). The `update` then changes exactly the rows `req` locked and
/// found free (and not taken off public sale) — not rows re-judged on the statement's older snapshot, which could disagree for a
/// seat freed (by a cancel or the sweeper) while the hold waited. `verdict` makes it all or
/// nothing and also refuses a cancelled showtime or one whose sales have closed or not yet
/// opened (its row read once, in `showing`), and a hold over the customer's or the address's cap (counted from the holds live at this statement's time). The closing
/// `seats_check` rolls the whole statement back if the update moved some but not all seats,
/// instead of committing a partial hold for Rust to find afterwards. Each parameter appears once
/// (in `args`), which lets the benchmark run this exact text in pgbench.
pub const HOLD_SQL: &str = r#"
with args as (
    select $1::bigint as showtime_id, $2::text[] as seats, $3::uuid as hold_id,
           $4::uuid as customer_id, coalesce($5::timestamptz, now()) as now,
           $6::bigint * interval '1 millisecond' as ttl, $7::text as client_addr,
           $8::int as max_holds, $9::int as max_address_seats, $10::bool as house_ok,
           $11::bigint * interval '1 millisecond' as cooldown
),
req as (
    select s.seat_code,
           (s.blocked is null or (s.blocked = 'HOUSE' and a.house_ok))
               and (s.status = 'AVAILABLE' or (s.status = 'HELD' and s.hold_expires_at < a.now))
               as free
      from show_seat s, args a
     where s.showtime_id = a.showtime_id and s.seat_code = any(a.seats)
     order by s.seat_code
       for update of s
),
live_holds as (
    select h.customer_id, h.client_addr, h.seat_count
      from seat_hold h, args a
     where h.showtime_id = a.showtime_id and h.expires_at >= a.now
       and (h.customer_id = a.customer_id or h.client_addr = a.client_addr)
       and exists (select 1 from show_seat s
                    where s.showtime_id = h.showtime_id and s.hold_id = h.hold_id
                      and s.status = 'HELD')
),
cooling as (
    select max(coalesce(h.ended_at, h.expires_at)) + a.cooldown as until
      from seat_hold h, args a
     where a.cooldown is not null and h.showtime_id = a.showtime_id
       and (h.customer_id = a.customer_id or h.client_addr = a.client_addr)
       and h.seats && a.seats
       and coalesce(h.ended_at, h.expires_at) <= a.now
       and coalesce(h.ended_at, h.expires_at) > a.now - a.cooldown
       and not exists (select 1 from booking b
                        where b.hold_id = h.hold_id and b.status = 'CONFIRMED')
     group by a.cooldown
    having count(*) >= 2
),
showing as (
    select st.cancelled_at is not null as cancelled,
           coalesce(st.sales_close_at, st.starts_at) > a.now as before_close,
           coalesce(st.sales_open_at > a.now, false) as before_open
      from showtime st, args a
     where st.id = a.showtime_id
),
verdict as (
    select case
             when (select cancelled from showing) then 'CANCELLED'
             when not coalesce((select before_close from showing), false) then 'CLOSED'
             when (select before_open from showing) then 'NOT_OPEN'
             when a.max_holds is not null
                  and (select count(*) from live_holds l
                        where l.customer_id = a.customer_id) >= a.max_holds then 'HOLD_LIMIT'
             when a.max_address_seats is not null and a.client_addr is not null
                  and (select coalesce(sum(l.seat_count), 0) from live_holds l
                        where l.client_addr = a.client_addr)
                      + cardinality(a.seats) > a.max_address_seats then 'ADDRESS_LIMIT'
             when exists (select 1 from cooling) then 'COOLDOWN'
             when (select count(*) from req where free) = cardinality(a.seats) then 'OK'
             else 'TAKEN'
           end as verdict
      from args a
),
held as (
    update show_seat s
       set status = 'HELD', hold_id = a.hold_id, customer_id = a.customer_id,
           hold_expires_at = a.now + a.ttl, booking_id = null, version = s.version + 1
      from args a, req r
     where s.showtime_id = a.showtime_id and s.seat_code = r.seat_code and r.free
       and (select verdict from verdict) = 'OK'
    returning s.seat_code, s.version, s.hold_expires_at
),
recorded as (
    insert into seat_hold (showtime_id, hold_id, customer_id, seats, seat_count, expires_at,
                           client_addr)
    select a.showtime_id, a.hold_id, a.customer_id, a.seats, cardinality(a.seats),
           a.now + a.ttl, a.client_addr
      from args a
     where (select verdict from verdict) = 'OK'
)
select v.verdict, r.seat_code, r.free, h.version, h.hold_expires_at,
       (select until from cooling) as cooling_until
  from verdict v
  left join req r on true
  left join held h on h.seat_code = r.seat_code
 where seats_check((select count(*) from held) in (0, (select cardinality(seats) from args)),
                   'a hold moved some but not all of its seats')
"#;

/// Releases the hold's seats if `$3` owns it. Locks in seat-code order like a hold.
pub(super) const CANCEL_SQL: &str = r#"
with args as (select $1::bigint as showtime_id, $2::uuid as hold_id, $3::uuid as customer_id),
mine as (
    select s.seat_code
      from show_seat s, args a
     where s.showtime_id = a.showtime_id and s.hold_id = a.hold_id
       and s.customer_id = a.customer_id and s.status = 'HELD'
     order by s.seat_code
       for update of s
),
ended as (
    update seat_hold h set ended_at = now()
      from args a
     where h.showtime_id = a.showtime_id and h.hold_id = a.hold_id
       and h.customer_id = a.customer_id and h.ended_at is null
       and exists (select 1 from mine)
)
update show_seat s
   set status = 'AVAILABLE', hold_id = null, customer_id = null, hold_expires_at = null,
       version = s.version + 1
  from args a, mine m
 where s.showtime_id = a.showtime_id and s.seat_code = m.seat_code
   and s.hold_id = a.hold_id and s.status = 'HELD'
returning s.seat_code, s.version, s.blocked
"#;

/// Releases one showtime's expired holds, and all of its holds when it was cancelled (a hold
/// that read the showtime just before its cancellation committed may commit after it). `skip locked`: a row another transaction is working
/// on is left to it (a hold overwrites an expired seat anyway), so sweepers never wait on, or
/// deadlock with, holds or each other.
pub(super) const SWEEP_SQL: &str = r#"
with args as (
    select $1::bigint as showtime_id, coalesce($2::timestamptz, now()) as now,
           exists (select 1 from showtime st where st.id = $1 and st.cancelled_at is not null)
               as cancelled
),
expired as (
    select s.seat_code
      from show_seat s, args a
     where s.showtime_id = a.showtime_id and s.status = 'HELD'
       and (s.hold_expires_at < a.now or a.cancelled)
     order by s.seat_code
       for update of s skip locked
)
update show_seat s
   set status = 'AVAILABLE', hold_id = null, customer_id = null, hold_expires_at = null,
       version = s.version + 1
  from args a, expired e
 where s.showtime_id = a.showtime_id and s.seat_code = e.seat_code
   and s.status = 'HELD' and (s.hold_expires_at < a.now or a.cancelled)
returning s.seat_code, s.version, s.blocked
"#;
