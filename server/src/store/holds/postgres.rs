use super::*;

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
const CANCEL_SQL: &str = r#"
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

/// HELD → BOOKED, fenced by hold id, status and expiry in the update's own WHERE; `verdict`
/// demands that every seat the hold took still qualifies.
pub(in crate::store) const CONFIRM_SQL: &str = r#"
with args as (
    select $1::bigint as showtime_id, $2::uuid as hold_id, $3::uuid as booking_id,
           coalesce($4::timestamptz, now()) as now
),
h as (
    select sh.seats, sh.seat_count
      from seat_hold sh, args a
     where sh.showtime_id = a.showtime_id and sh.hold_id = a.hold_id
),
target as (
    select (s.hold_id = a.hold_id and s.status = 'HELD' and s.hold_expires_at >= a.now) as still_mine
      from show_seat s, args a, h
     where s.showtime_id = a.showtime_id and s.seat_code = any(h.seats)
     order by s.seat_code
       for update of s
),
verdict as (
    select (select count(*) from target where still_mine) = (select seat_count from h) as all_mine
)
update show_seat s
   set status = 'BOOKED', booking_id = a.booking_id, hold_expires_at = null,
       version = s.version + 1
  from args a
 where s.showtime_id = a.showtime_id and s.hold_id = a.hold_id
   and s.status = 'HELD' and s.hold_expires_at >= a.now
   and (select all_mine from verdict)
returning s.seat_code, s.version
"#;

/// Releases one showtime's expired holds, and all of its holds when it was cancelled (a hold
/// that read the showtime just before its cancellation committed may commit after it). `skip locked`: a row another transaction is working
/// on is left to it (a hold overwrites an expired seat anyway), so sweepers never wait on, or
/// deadlock with, holds or each other.
const SWEEP_SQL: &str = r#"
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

#[async_trait::async_trait]
impl Holds for PgStore {
    async fn hold(&self, req: HoldRequest<'_>, now: Now) -> Result<HoldOutcome, StoreError> {
        type Row = (
            String,
            Option<String>,
            Option<bool>,
            Option<i64>,
            Option<DateTime<Utc>>,
            Option<DateTime<Utc>>,
        );
        let codes: Vec<String> = req.seats.iter().map(|c| c.to_string()).collect();
        let cap = |n: Option<u32>| n.map(|n| i32::try_from(n).unwrap_or(i32::MAX));
        let rows = sqlx::query_as::<_, Row>(HOLD_SQL)
            .bind(req.showtime.get())
            .bind(&codes)
            .bind(req.hold_id.as_uuid())
            .bind(req.customer.0)
            .bind(now)
            .bind(i64::try_from(req.ttl.as_millis()).unwrap_or(i64::MAX))
            .bind(req.client_addr.map(|a| a.to_string()))
            .bind(cap(req.limits.holds_per_customer))
            .bind(cap(req.limits.seats_per_address))
            .bind(req.house_ok)
            .bind(
                req.limits
                    .cooldown
                    .map(|c| i64::try_from(c.as_millis()).unwrap_or(i64::MAX)),
            )
            .fetch_all(&self.pool)
            .await?;
        let verdict = rows.first().map_or("TAKEN", |r| r.0.as_str());
        match verdict {
            "CLOSED" => return Ok(HoldOutcome::Refused(HoldRefusal::SalesClosed)),
            "NOT_OPEN" => return Ok(HoldOutcome::Refused(HoldRefusal::SalesNotOpen)),
            "CANCELLED" => return Ok(HoldOutcome::Refused(HoldRefusal::Cancelled)),
            "HOLD_LIMIT" => return Ok(HoldOutcome::Refused(HoldRefusal::HoldLimit)),
            "ADDRESS_LIMIT" => return Ok(HoldOutcome::Refused(HoldRefusal::AddressLimit)),
            "COOLDOWN" => {
                let until = rows.first().and_then(|r| r.5).unwrap_or_else(Utc::now);
                return Ok(HoldOutcome::Refused(HoldRefusal::Cooldown(until)));
            }
            _ => {}
        }
        let held: Vec<_> = rows
            .iter()
            .filter_map(|(_, c, _, v, at, _)| Some((c.clone()?, (*v)?, (*at)?)))
            .collect();
        if verdict == "OK" && held.len() == codes.len() {
            let expires_at = held[0].2;
            let held = held.into_iter().map(|(c, v, _)| (c, v)).collect();
            return Ok(HoldOutcome::Held {
                expires_at,
                changes: changes(held, SeatStatus::Held)?,
            });
        }
        if !held.is_empty() {
            // `seats_check` rolls a partial hold back, so this cannot happen.
            return Err(StoreError::Corrupt(format!(
                "hold moved {} of {} seats",
                held.len(),
                codes.len()
            )));
        }
        Ok(rejection(
            req.seats,
            rows.into_iter()
                .filter_map(|(_, c, free, _, _, _)| Some((c?, free?)))
                .collect(),
        ))
    }

    async fn cancel(
        &self,
        hold: HoldId,
        customer: CustomerId,
    ) -> Result<CancelOutcome, StoreError> {
        let showtime = hold.showtime_id();
        let freed = sqlx::query_as::<_, (String, i64, Option<String>)>(CANCEL_SQL)
            .bind(showtime.get())
            .bind(hold.as_uuid())
            .bind(customer.0)
            .fetch_all(&self.pool)
            .await?;
        if !freed.is_empty() {
            return Ok(CancelOutcome::Released(released(freed)?));
        }
        // Nothing released: only now find out why, to answer 403 or 404 (changes nothing).
        let owner: Option<uuid::Uuid> = sqlx::query_scalar(
            "select customer_id from seat_hold where showtime_id = $1 and hold_id = $2",
        )
        .bind(showtime.get())
        .bind(hold.as_uuid())
        .fetch_optional(&self.pool)
        .await?;
        Ok(cancel_refusal(owner, customer))
    }

    async fn active_hold(
        &self,
        showtime: ShowtimeId,
        customer: CustomerId,
        now: Now,
    ) -> Result<Option<ActiveHold>, StoreError> {
        let row = sqlx::query_as::<_, (uuid::Uuid, DateTime<Utc>, Vec<String>)>(
            "select hold_id, max(hold_expires_at), array_agg(seat_code::text)
               from show_seat
              where showtime_id = $1 and customer_id = $2 and status = 'HELD'
                and hold_expires_at >= coalesce($3, now())
              group by hold_id
              order by 2 desc
              limit 1",
        )
        .bind(showtime.get())
        .bind(customer.0)
        .bind(now)
        .fetch_optional(&self.pool)
        .await?;
        row.map(|(hold, expires, seats)| active_hold(hold, expires, seats))
            .transpose()
    }

    async fn confirm(
        &self,
        hold: HoldId,
        booking: BookingId,
        now: Now,
    ) -> Result<Option<Vec<SeatChange>>, StoreError> {
        let booked = sqlx::query_as::<_, (String, i64)>(CONFIRM_SQL)
            .bind(hold.showtime_id().get())
            .bind(hold.as_uuid())
            .bind(booking.0)
            .bind(now)
            .fetch_all(&self.pool)
            .await?;
        Ok((!booked.is_empty())
            .then(|| changes(booked, SeatStatus::Booked))
            .transpose()?)
    }

    async fn sweep(&self, now: Now) -> Result<Vec<Released>, StoreError> {
        let showtimes: Vec<i64> = sqlx::query_scalar(
            "select distinct s.showtime_id from show_seat s
              where s.status = 'HELD'
                and (s.hold_expires_at < coalesce($1, now())
                     or exists (select 1 from showtime st
                                 where st.id = s.showtime_id and st.cancelled_at is not null))",
        )
        .bind(now)
        .fetch_all(&self.pool)
        .await?;
        let mut out = Vec::new();
        for showtime in showtimes {
            let rows = sqlx::query_as::<_, (String, i64, Option<String>)>(SWEEP_SQL)
                .bind(showtime)
                .bind(now)
                .fetch_all(&self.pool)
                .await?;
            if !rows.is_empty() {
                out.push(Released {
                    showtime: stored_showtime(showtime)?,
                    changes: released(rows)?,
                });
            }
        }
        Ok(out)
    }

    async fn check_hold(
        &self,
        hold: HoldId,
        customer: CustomerId,
        now: Now,
    ) -> Result<HoldCheck, StoreError> {
        let showtime = hold.showtime_id();
        let (recorded, at): (Option<(uuid::Uuid, i32)>, DateTime<Utc>) = {
            let row: (Option<uuid::Uuid>, Option<i32>, DateTime<Utc>) = sqlx::query_as(
                "select h.customer_id, h.seat_count, coalesce($3::timestamptz, now())
                   from (select 1) one
                   left join seat_hold h on h.showtime_id = $1 and h.hold_id = $2",
            )
            .bind(showtime.get())
            .bind(hold.as_uuid())
            .bind(now)
            .fetch_one(&self.pool)
            .await?;
            (row.0.zip(row.1), row.2)
        };
        let held: Vec<(String, DateTime<Utc>)> = sqlx::query_as(
            "select seat_code, hold_expires_at from show_seat
              where showtime_id = $1 and hold_id = $2 and status = 'HELD' and hold_expires_at >= $3",
        )
        .bind(showtime.get())
        .bind(hold.as_uuid())
        .bind(at)
        .fetch_all(&self.pool)
        .await?;
        hold_check(customer, recorded.map(|(o, c)| (o, i64::from(c))), held, at)
    }

    async fn purge_holds(&self, now: Now, retention: chrono::Duration) -> Result<u64, StoreError> {
        let mut holds = 0;
        loop {
            let n = sqlx::query(
                "delete from seat_hold where (showtime_id, hold_id) in (
                     select showtime_id, hold_id from seat_hold
                      where expires_at < coalesce($1::timestamptz, now()) - $2::interval
                      limit $3)",
            )
            .bind(now)
            .bind(retention)
            .bind(PURGE_BATCH)
            .execute(&self.pool)
            .await?
            .rows_affected();
            holds += n;
            if n < PURGE_BATCH as u64 {
                break;
            }
        }
        Ok(holds)
    }
}
