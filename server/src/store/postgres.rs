//! The PostgreSQL store. Each seat operation is a single statement: it locks the rows it needs
//! in seat-code order (`for update`, so overlapping holds queue instead of deadlocking), decides
//! in the database, and writes. One statement = one round trip and a row lock
//! held for as long as the statement runs, never while a person or a gateway is waited on.

use super::*;
use sqlx::postgres::{PgPool, PgPoolOptions};
use sqlx::Row;

/// Holds all of `$2` for hold `$3` or nothing.
///
/// `req` locks the requested rows in seat-code order and judges each on its newest committed
/// version (a row changed while the statement waited for its lock is re-read: that is what `for
/// update` does in READ COMMITTED). The `update` then changes exactly the rows `req` locked and
/// found free — not rows re-judged on the statement's older snapshot, which could disagree for a
/// seat freed (by a cancel or the sweeper) while the hold waited. `verdict` makes it all or
/// nothing and also refuses a showtime whose sales have closed and a hold over the customer's or
/// the address's cap (counted from the holds live at this statement's time). The closing
/// `seats_check` rolls the whole statement back if the update moved some but not all seats,
/// instead of committing a partial hold for Rust to find afterwards. Each parameter appears once
/// (in `args`), which lets the benchmark run this exact text in pgbench.
pub const HOLD_SQL: &str = r#"
with args as (
    select $1::bigint as showtime_id, $2::text[] as seats, $3::uuid as hold_id,
           $4::uuid as customer_id, coalesce($5::timestamptz, now()) as now,
           $6::bigint * interval '1 millisecond' as ttl, $7::text as client_addr,
           $8::int as max_holds, $9::int as max_address_seats
),
req as (
    select s.seat_code,
           (s.status = 'AVAILABLE' or (s.status = 'HELD' and s.hold_expires_at < a.now)) as free
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
verdict as (
    select case
             when not coalesce((select st.starts_at > a.now from showtime st
                                 where st.id = a.showtime_id), false) then 'CLOSED'
             when a.max_holds is not null
                  and (select count(*) from live_holds l
                        where l.customer_id = a.customer_id) >= a.max_holds then 'HOLD_LIMIT'
             when a.max_address_seats is not null and a.client_addr is not null
                  and (select coalesce(sum(l.seat_count), 0) from live_holds l
                        where l.client_addr = a.client_addr)
                      + cardinality(a.seats) > a.max_address_seats then 'ADDRESS_LIMIT'
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
select v.verdict, r.seat_code, r.free, h.version, h.hold_expires_at
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
)
update show_seat s
   set status = 'AVAILABLE', hold_id = null, customer_id = null, hold_expires_at = null,
       version = s.version + 1
  from args a, mine m
 where s.showtime_id = a.showtime_id and s.seat_code = m.seat_code
   and s.hold_id = a.hold_id and s.status = 'HELD'
returning s.seat_code, s.version
"#;

/// HELD → BOOKED, fenced by hold id, status and expiry in the update's own WHERE; `verdict`
/// demands that every seat the hold took still qualifies.
const CONFIRM_SQL: &str = r#"
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

/// Releases one showtime's expired holds. `skip locked`: a row another transaction is working
/// on is left to it (a hold overwrites an expired seat anyway), so sweepers never wait on, or
/// deadlock with, holds or each other.
const SWEEP_SQL: &str = r#"
with args as (select $1::bigint as showtime_id, coalesce($2::timestamptz, now()) as now),
expired as (
    select s.seat_code
      from show_seat s, args a
     where s.showtime_id = a.showtime_id and s.status = 'HELD' and s.hold_expires_at < a.now
     order by s.seat_code
       for update of s skip locked
)
update show_seat s
   set status = 'AVAILABLE', hold_id = null, customer_id = null, hold_expires_at = null,
       version = s.version + 1
  from args a, expired e
 where s.showtime_id = a.showtime_id and s.seat_code = e.seat_code
   and s.status = 'HELD' and s.hold_expires_at < a.now
returning s.seat_code, s.version
"#;

pub struct PgStore {
    pool: PgPool,
}

impl PgStore {
    pub async fn connect(url: &str, max_connections: u32) -> Result<Self, StoreError> {
        let pool = PgPoolOptions::new()
            .max_connections(max_connections)
            // sqlx would otherwise ping every connection before each use: one more round trip
            // per hold. A dead connection fails its statement instead, and the pool drops it.
            .test_before_acquire(false)
            .acquire_timeout(Duration::from_secs(10))
            .connect(url)
            .await?;
        Ok(Self { pool })
    }

    pub fn pool(&self) -> &PgPool {
        &self.pool
    }
}

#[async_trait::async_trait]
impl Store for PgStore {
    fn backend(&self) -> &'static str {
        "postgres"
    }

    async fn migrate(&self) -> Result<(), StoreError> {
        sqlx::migrate!("../migrations/postgres")
            .run(&self.pool)
            .await?;
        Ok(())
    }

    async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query("select 1").execute(&self.pool).await?;
        Ok(())
    }

    async fn list_showtimes(
        &self,
        now: Now,
        since: DateTime<Utc>,
    ) -> Result<Vec<ShowtimeSummary>, StoreError> {
        let rows = sqlx::query(
            r#"
            select st.id, st.movie_title, st.hall_id, h.name as hall_name, st.starts_at,
                   st.starts_at > coalesce($1, now()) as sales_open,
                   count(ss.seat_code) as seats_total,
                   count(ss.seat_code) filter (
                       where ss.status = 'AVAILABLE'
                          or (ss.status = 'HELD' and ss.hold_expires_at < coalesce($1, now()))
                   ) as seats_available
              from showtime st
              join hall h on h.id = st.hall_id
              left join show_seat ss on ss.showtime_id = st.id
             where st.starts_at >= $2
             group by st.id, h.name
             order by st.starts_at, st.id
            "#,
        )
        .bind(now)
        .bind(since)
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter()
            .map(|r| {
                Ok(ShowtimeSummary {
                    id: ShowtimeId(r.try_get("id")?),
                    movie_title: r.try_get("movie_title")?,
                    hall_id: r.try_get("hall_id")?,
                    hall_name: r.try_get("hall_name")?,
                    starts_at: r.try_get("starts_at")?,
                    seats_total: r.try_get("seats_total")?,
                    seats_available: r.try_get("seats_available")?,
                    sales_open: r.try_get("sales_open")?,
                })
            })
            .collect()
    }

    async fn layout(&self, showtime: ShowtimeId) -> Result<Option<Layout>, StoreError> {
        let Some(head) = sqlx::query(
            "select st.hall_id, st.movie_title, h.name, st.starts_at
               from showtime st join hall h on h.id = st.hall_id where st.id = $1",
        )
        .bind(showtime.0)
        .fetch_optional(&self.pool)
        .await?
        else {
            return Ok(None);
        };
        let hall_id: i64 = head.try_get("hall_id")?;
        let categories = sqlx::query_as::<_, (String, String, i64)>(
            "select code, name, price_krw from price_category where hall_id = $1 order by price_krw, code",
        )
        .bind(hall_id)
        .fetch_all(&self.pool)
        .await?
        .into_iter()
        .map(|(code, name, price)| PriceCategory { code, name, price })
        .collect();
        let seats = sqlx::query_as::<_, (String, String, i32, i32, i32, String, bool)>(
            "select seat_code, row_label, seat_number, grid_x, grid_y, category, accessible
               from hall_seat where hall_id = $1 order by grid_y, grid_x",
        )
        .bind(hall_id)
        .fetch_all(&self.pool)
        .await?;
        Ok(Some(Layout {
            showtime_id: showtime,
            movie_title: head.try_get(1)?,
            hall_name: head.try_get(2)?,
            starts_at: head.try_get(3)?,
            categories,
            seats: layout_seats(seats)?,
        }))
    }

    async fn seat_states(
        &self,
        showtime: ShowtimeId,
        now: Now,
    ) -> Result<Vec<SeatState>, StoreError> {
        let rows = sqlx::query_as::<_, (String, String, i64)>(
            "select seat_code,
                    case when status = 'HELD' and hold_expires_at < coalesce($2, now())
                         then 'AVAILABLE' else status end,
                    version
               from show_seat where showtime_id = $1",
        )
        .bind(showtime.0)
        .bind(now)
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter()
            .map(|(code, status, version)| {
                Ok(SeatState {
                    code,
                    status: parse_status(&status)?,
                    version,
                })
            })
            .collect()
    }

    async fn hold(&self, req: HoldRequest<'_>, now: Now) -> Result<HoldOutcome, StoreError> {
        type Row = (
            String,
            Option<String>,
            Option<bool>,
            Option<i64>,
            Option<DateTime<Utc>>,
        );
        let codes: Vec<String> = req.seats.iter().map(|c| c.to_string()).collect();
        let cap = |n: Option<u32>| n.map(|n| i32::try_from(n).unwrap_or(i32::MAX));
        let rows = sqlx::query_as::<_, Row>(HOLD_SQL)
            .bind(req.showtime.0)
            .bind(&codes)
            .bind(req.hold_id.as_uuid())
            .bind(req.customer.0)
            .bind(now)
            .bind(i64::try_from(req.ttl.as_millis()).unwrap_or(i64::MAX))
            .bind(req.client_addr.map(|a| a.to_string()))
            .bind(cap(req.limits.holds_per_customer))
            .bind(cap(req.limits.seats_per_address))
            .fetch_all(&self.pool)
            .await?;
        let verdict = rows.first().map_or("TAKEN", |r| r.0.as_str());
        match verdict {
            "CLOSED" => return Ok(HoldOutcome::Refused(HoldRefusal::SalesClosed)),
            "HOLD_LIMIT" => return Ok(HoldOutcome::Refused(HoldRefusal::HoldLimit)),
            "ADDRESS_LIMIT" => return Ok(HoldOutcome::Refused(HoldRefusal::AddressLimit)),
            _ => {}
        }
        let held: Vec<_> = rows
            .iter()
            .filter_map(|(_, c, _, v, at)| Some((c.clone()?, (*v)?, (*at)?)))
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
                .filter_map(|(_, c, free, _, _)| Some((c?, free?)))
                .collect(),
        ))
    }

    async fn cancel(
        &self,
        hold: HoldId,
        customer: CustomerId,
    ) -> Result<CancelOutcome, StoreError> {
        let showtime = hold.showtime_id();
        let released = sqlx::query_as::<_, (String, i64)>(CANCEL_SQL)
            .bind(showtime.0)
            .bind(hold.as_uuid())
            .bind(customer.0)
            .fetch_all(&self.pool)
            .await?;
        if !released.is_empty() {
            return Ok(CancelOutcome::Released(changes(
                released,
                SeatStatus::Available,
            )?));
        }
        // Nothing released: only now find out why, to answer 403 or 404 (changes nothing).
        let owner: Option<uuid::Uuid> = sqlx::query_scalar(
            "select customer_id from seat_hold where showtime_id = $1 and hold_id = $2",
        )
        .bind(showtime.0)
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
        .bind(showtime.0)
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
            .bind(hold.showtime_id().0)
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
            "select distinct showtime_id from show_seat
              where status = 'HELD' and hold_expires_at < coalesce($1, now())",
        )
        .bind(now)
        .fetch_all(&self.pool)
        .await?;
        let mut out = Vec::new();
        for showtime in showtimes {
            let rows = sqlx::query_as::<_, (String, i64)>(SWEEP_SQL)
                .bind(showtime)
                .bind(now)
                .fetch_all(&self.pool)
                .await?;
            if !rows.is_empty() {
                out.push(Released {
                    showtime: ShowtimeId(showtime),
                    changes: changes(rows, SeatStatus::Available)?,
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
            .bind(showtime.0)
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
        .bind(showtime.0)
        .bind(hold.as_uuid())
        .bind(at)
        .fetch_all(&self.pool)
        .await?;
        hold_check(customer, recorded.map(|(o, c)| (o, i64::from(c))), held, at)
    }

    async fn booking_for_hold(&self, new: &NewBooking) -> Result<BookingRow, StoreError> {
        let seats: Vec<&str> = new.seats.iter().map(SeatCode::as_str).collect();
        sqlx::query(
            "insert into booking (id, showtime_id, hold_id, customer_id, seats, amount_krw)
             values ($1, $2, $3, $4, $5, $6) on conflict (hold_id) do nothing",
        )
        .bind(new.id.0)
        .bind(new.hold.showtime_id().0)
        .bind(new.hold.as_uuid())
        .bind(new.customer.0)
        .bind(&seats)
        .bind(new.amount)
        .execute(&self.pool)
        .await?;
        let (id, status, amount): (uuid::Uuid, String, i64) =
            sqlx::query_as("select id, status, amount_krw from booking where hold_id = $1")
                .bind(new.hold.as_uuid())
                .fetch_one(&self.pool)
                .await?;
        Ok(BookingRow {
            id: BookingId(id),
            status,
            amount,
        })
    }

    async fn payment_session(&self, booking: BookingId) -> Result<PaymentSessions, StoreError> {
        // One statement, so the open session and the count are read at the same moment (two
        // checkouts racing must agree on the attempt number).
        let row: (
            Option<String>,
            Option<String>,
            Option<String>,
            Option<i64>,
            Option<DateTime<Utc>>,
            i64,
            i64,
        ) = sqlx::query_as(
            "select p.provider, p.provider_session_id, p.payment_url, p.amount_krw,
                        p.session_expires_at, c.n, c.paid
                   from (select count(*) as n, count(*) filter (where status = 'PAID') as paid
                           from payment where booking_id = $1) c
                   left join payment p on p.booking_id = $1 and p.status = 'PENDING'
                  order by p.created_at
                  limit 1",
        )
        .bind(booking.0)
        .fetch_one(&self.pool)
        .await?;
        let (provider, session_id, payment_url, amount, expires_at, count, paid) = row;
        let open = match (provider, session_id, payment_url, amount, expires_at) {
            (
                Some(provider),
                Some(session_id),
                Some(payment_url),
                Some(amount),
                Some(expires_at),
            ) => Some(PaymentSessionRow {
                booking,
                provider,
                session_id,
                payment_url,
                amount,
                expires_at,
            }),
            _ => None,
        };
        Ok(PaymentSessions {
            open,
            count,
            paid: paid > 0,
        })
    }

    async fn record_payment_session(&self, p: &PaymentSessionRow) -> Result<(), StoreError> {
        sqlx::query(
            "insert into payment (id, booking_id, provider, provider_session_id, amount_krw,
                                  payment_url, session_expires_at)
             values ($1, $2, $3, $4, $5, $6, $7) on conflict (provider_session_id) do nothing",
        )
        .bind(uuid::Uuid::new_v4())
        .bind(p.booking.0)
        .bind(&p.provider)
        .bind(&p.session_id)
        .bind(p.amount)
        .bind(&p.payment_url)
        .bind(p.expires_at)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn record_payment_report(
        &self,
        report: &PaymentReport,
    ) -> Result<ReportOutcome, StoreError> {
        let mut tx = self.pool.begin().await?;
        let paid_amount = report
            .charged
            .as_ref()
            .filter(|_| report.paid)
            .map(|c| c.amount);
        let recorded: Option<(uuid::Uuid, i64, String)> = sqlx::query_as(
            "update payment set status = $2, provider_payment_id = $3, paid_amount = $4,
                                updated_at = now()
              where provider_session_id = $1
                and (status = 'PENDING' or ($2 = 'PAID' and status in ('DECLINED', 'EXPIRED')))
             returning booking_id, (select b.amount_krw from booking b where b.id = booking_id),
                       currency::text",
        )
        .bind(&report.session_id)
        .bind(if report.paid { "PAID" } else { "DECLINED" })
        .bind(&report.payment_id)
        .bind(paid_amount)
        .fetch_optional(&mut *tx)
        .await?;
        let Some((booking, amount, currency)) = recorded else {
            let known: Option<i32> =
                sqlx::query_scalar("select 1 from payment where provider_session_id = $1")
                    .bind(&report.session_id)
                    .fetch_optional(&mut *tx)
                    .await?;
            return Ok(if known.is_some() {
                ReportOutcome::Duplicate
            } else {
                ReportOutcome::UnknownSession
            });
        };
        let mismatch = report
            .paid
            .then(|| charge_mismatch(report.charged.as_ref(), amount, &currency, booking))
            .flatten();
        if let Some(mismatch) = &mismatch {
            sqlx::query("update payment set mismatch = $2 where provider_session_id = $1")
                .bind(&report.session_id)
                .bind(mismatch)
                .execute(&mut *tx)
                .await?;
        }
        if report.paid {
            sqlx::query(
                "insert into outbox (aggregate_id, event_type, payload)
                 values ($1, 'PaymentSucceeded', $2::jsonb)",
            )
            .bind(booking)
            .bind(payment_succeeded(report, booking, mismatch.as_deref()))
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(if mismatch.is_some() {
            ReportOutcome::Mismatched
        } else {
            ReportOutcome::Recorded
        })
    }

    async fn claim_outbox(
        &self,
        types: &[&str],
        limit: i64,
        lease: Duration,
    ) -> Result<Vec<OutboxItem>, StoreError> {
        let rows: Vec<(i64, uuid::Uuid, String, String, i32)> = sqlx::query_as(
            "update outbox o
                set attempts = o.attempts + 1,
                    next_attempt_at = now() + $3::bigint * interval '1 millisecond'
              where o.id in (select id from outbox
                              where processed_at is null and parked_at is null
                                and event_type = any($1)
                                and next_attempt_at <= now()
                              order by id limit $2
                                for update skip locked)
             returning o.id, o.aggregate_id, o.event_type, o.payload::text, o.attempts",
        )
        .bind(types)
        .bind(limit)
        .bind(lease.as_millis() as i64)
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter()
            .map(|(id, booking, event_type, payload, attempts)| {
                Ok(OutboxItem {
                    id,
                    booking: BookingId(booking),
                    event_type,
                    payload: serde_json::from_str(&payload)
                        .map_err(|e| StoreError::Corrupt(e.to_string()))?,
                    attempts: i64::from(attempts),
                })
            })
            .collect()
    }

    async fn retry_outbox(
        &self,
        item: i64,
        after: Duration,
        error: &str,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "update outbox set next_attempt_at = now() + $2::bigint * interval '1 millisecond',
                               last_error = $3
              where id = $1 and processed_at is null",
        )
        .bind(item)
        .bind(after.as_millis() as i64)
        .bind(error)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn park_outbox(&self, item: i64, error: &str) -> Result<(), StoreError> {
        sqlx::query("update outbox set parked_at = now(), last_error = $2 where id = $1")
            .bind(item)
            .bind(error)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    async fn parked_count(&self) -> Result<i64, StoreError> {
        Ok(sqlx::query_scalar(
            "select count(*) from outbox where processed_at is null and parked_at is not null",
        )
        .fetch_one(&self.pool)
        .await?)
    }

    async fn purge(&self, now: Now, retention: chrono::Duration) -> Result<(u64, u64), StoreError> {
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
        let keys = sqlx::query(
            "delete from idempotency_key where created_at < coalesce($1::timestamptz, now()) - $2::interval",
        )
        .bind(now)
        .bind(IDEMPOTENCY_KEEP)
        .execute(&self.pool)
        .await?
        .rows_affected();
        Ok((holds, keys))
    }

    async fn settle_payment(
        &self,
        item: i64,
        booking: BookingId,
        payment_id: &str,
        now: Now,
    ) -> Result<Settlement, StoreError> {
        let mut tx = self.pool.begin().await?;
        let row: Option<(i64, uuid::Uuid, String, Vec<String>, bool)> = sqlx::query_as(
            "select b.showtime_id, b.hold_id, b.status, b.seats,
                    coalesce(st.starts_at > coalesce($2::timestamptz, now()), false)
               from booking b left join showtime st on st.id = b.showtime_id
              where b.id = $1
                for update of b",
        )
        .bind(booking.0)
        .bind(now)
        .fetch_optional(&mut *tx)
        .await?;
        let payment: Option<(Option<String>, Option<String>, i64)> = sqlx::query_as(
            "select outcome::text, mismatch, coalesce(paid_amount, amount_krw) from payment
              where provider_payment_id = $1 and booking_id = $2 and status = 'PAID'
                for update",
        )
        .bind(payment_id)
        .bind(booking.0)
        .fetch_optional(&mut *tx)
        .await?;
        let processed = "update outbox set processed_at = now() where id = $1";
        let (Some((showtime, hold, status, seats, open)), Some((outcome, mismatch, paid))) =
            (row, payment)
        else {
            sqlx::query(processed).bind(item).execute(&mut *tx).await?;
            tx.commit().await?;
            return Ok(Settlement::AlreadySettled);
        };
        let decision = settle_decision(&status, outcome.as_deref(), mismatch.is_some(), open);
        let booked: Vec<(String, i64)> = if decision == SettleDecision::Confirm {
            sqlx::query_as(CONFIRM_SQL)
                .bind(showtime)
                .bind(hold)
                .bind(booking.0)
                .bind(now)
                .fetch_all(&mut *tx)
                .await?
        } else {
            Vec::new()
        };
        let decision = match decision {
            SettleDecision::Confirm if booked.is_empty() => SettleDecision::Refund {
                fail_booking: true,
                reason: LAPSED_REASON,
            },
            other => other,
        };
        let event = |kind: &str, extra: serde_json::Value| {
            sqlx::query(
                "insert into outbox (aggregate_id, event_type, payload) values ($1, $2, $3::jsonb)",
            )
            .bind(booking.0)
            .bind(kind.to_string())
            .bind(booking_event(kind, booking.0, extra))
        };
        let settlement = match decision {
            SettleDecision::AlreadySettled => Settlement::AlreadySettled,
            SettleDecision::Confirm => {
                sqlx::query(
                    "update booking set status = 'CONFIRMED', updated_at = now() where id = $1",
                )
                .bind(booking.0)
                .execute(&mut *tx)
                .await?;
                sqlx::query(
                    "update payment set outcome = 'CONFIRMED' where provider_payment_id = $1",
                )
                .bind(payment_id)
                .execute(&mut *tx)
                .await?;
                event(
                    "BookingConfirmed",
                    serde_json::json!({
                        "showtimeId": showtime, "seats": seats, "amount": paid, "paymentId": payment_id,
                    }),
                )
                .execute(&mut *tx)
                .await?;
                Settlement::Confirmed {
                    showtime: ShowtimeId(showtime),
                    seats: changes(booked, SeatStatus::Booked)?,
                }
            }
            SettleDecision::Refund {
                fail_booking,
                reason,
            } => {
                let extra = serde_json::json!({
                    "showtimeId": showtime, "paymentId": payment_id, "amount": paid, "reason": reason,
                });
                if fail_booking {
                    sqlx::query(
                        "update booking set status = 'FAILED', failure_reason = $2, updated_at = now()
                          where id = $1",
                    )
                    .bind(booking.0)
                    .bind(reason)
                    .execute(&mut *tx)
                    .await?;
                    event("BookingFailed", extra.clone())
                        .execute(&mut *tx)
                        .await?;
                }
                sqlx::query("update payment set outcome = 'REFUND' where provider_payment_id = $1")
                    .bind(payment_id)
                    .execute(&mut *tx)
                    .await?;
                event("RefundDue", extra).execute(&mut *tx).await?;
                if fail_booking {
                    Settlement::Failed { reason }
                } else {
                    Settlement::Refunded { reason }
                }
            }
        };
        sqlx::query(processed).bind(item).execute(&mut *tx).await?;
        tx.commit().await?;
        Ok(settlement)
    }

    async fn finish_refund(
        &self,
        item: i64,
        booking: BookingId,
        payment_id: &str,
        refund_id: &str,
    ) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        let amount: Option<i64> = sqlx::query_scalar(
            "update payment set status = 'REFUNDED', updated_at = now()
              where provider_payment_id = $1 and status = 'PAID'
             returning coalesce(paid_amount, amount_krw)",
        )
        .bind(payment_id)
        .fetch_optional(&mut *tx)
        .await?;
        if let Some(amount) = amount {
            let extra = serde_json::json!({ "showtimeId": refund_showtime(&mut tx, booking).await?, "paymentId": payment_id, "refundId": refund_id, "amount": amount });
            sqlx::query(
                "insert into outbox (aggregate_id, event_type, payload)
                 values ($1, 'RefundIssued', $2::jsonb)",
            )
            .bind(booking.0)
            .bind(booking_event("RefundIssued", booking.0, extra))
            .execute(&mut *tx)
            .await?;
        }
        sqlx::query("update outbox set processed_at = now() where id = $1")
            .bind(item)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    async fn bookings(&self, filter: BookingFilter) -> Result<Vec<BookingRecord>, StoreError> {
        type Row = (
            uuid::Uuid,
            i64,
            uuid::Uuid,
            Vec<String>,
            i64,
            String,
            Option<String>,
            DateTime<Utc>,
            DateTime<Utc>,
        );
        let columns =
            "select id, showtime_id, customer_id, seats, amount_krw, status, failure_reason,
                              created_at, updated_at from booking";
        let rows: Vec<Row> = match filter {
            BookingFilter::One(id) => {
                sqlx::query_as(&format!("{columns} where id = $1"))
                    .bind(id.0)
                    .fetch_all(&self.pool)
                    .await?
            }
            BookingFilter::OfCustomer(customer) => {
                sqlx::query_as(&format!(
                    "{columns} where customer_id = $1 order by created_at desc limit 50"
                ))
                .bind(customer.0)
                .fetch_all(&self.pool)
                .await?
            }
        };
        let mut out = Vec::with_capacity(rows.len());
        for (
            id,
            showtime,
            customer,
            seats,
            amount,
            status,
            failure_reason,
            created_at,
            updated_at,
        ) in rows
        {
            let payments: Vec<(String, i64, String, DateTime<Utc>, DateTime<Utc>)> =
                sqlx::query_as(
                    "select status, amount_krw, payment_url, session_expires_at, updated_at
                   from payment where booking_id = $1 order by created_at",
                )
                .bind(id)
                .fetch_all(&self.pool)
                .await?;
            out.push(BookingRecord {
                id: BookingId(id),
                showtime: ShowtimeId(showtime),
                customer: CustomerId(customer),
                seats,
                amount,
                status,
                failure_reason,
                created_at,
                updated_at,
                payments: payments
                    .into_iter()
                    .map(
                        |(status, amount, payment_url, pay_before, updated_at)| PaymentRecord {
                            status,
                            amount,
                            payment_url,
                            pay_before,
                            updated_at,
                        },
                    )
                    .collect(),
            });
        }
        Ok(out)
    }

    async fn stale_payments(
        &self,
        older_than: Duration,
        now: Now,
        limit: i64,
    ) -> Result<Vec<String>, StoreError> {
        Ok(sqlx::query_scalar(
            "select provider_session_id from payment
              where status = 'PENDING'
                and created_at < coalesce($1::timestamptz, now()) - $2::bigint * interval '1 millisecond'
              order by created_at limit $3",
        )
        .bind(now)
        .bind(older_than.as_millis() as i64)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?)
    }

    async fn expire_payment(&self, session_id: &str) -> Result<bool, StoreError> {
        Ok(sqlx::query(
            "update payment set status = 'EXPIRED', updated_at = now()
              where provider_session_id = $1 and status = 'PENDING'",
        )
        .bind(session_id)
        .execute(&self.pool)
        .await?
        .rows_affected()
            == 1)
    }

    async fn idempotency_begin(
        &self,
        customer: CustomerId,
        key: &str,
        fingerprint: &str,
        now: Now,
    ) -> Result<IdempotencyBegin, StoreError> {
        // A key past its 24 hours, or held by a request that died, is free again.
        sqlx::query(
            "delete from idempotency_key
              where customer_id = $1 and key = $2
                and (created_at < coalesce($3::timestamptz, now()) - $4::interval
                     or (state = 'IN_FLIGHT' and created_at < coalesce($3::timestamptz, now()) - $5::interval))",
        )
        .bind(customer.0)
        .bind(key)
        .bind(now)
        .bind(IDEMPOTENCY_KEEP)
        .bind(IDEMPOTENCY_IN_FLIGHT_LIMIT)
        .execute(&self.pool)
        .await?;
        let claimed = sqlx::query(
            "insert into idempotency_key (customer_id, key, fingerprint, created_at)
             values ($1, $2, $3, coalesce($4::timestamptz, now())) on conflict do nothing",
        )
        .bind(customer.0)
        .bind(key)
        .bind(fingerprint)
        .bind(now)
        .execute(&self.pool)
        .await?
        .rows_affected()
            == 1;
        if claimed {
            return Ok(IdempotencyBegin::Started);
        }
        let stored: Option<(String, String, Option<i32>, Option<String>)> = sqlx::query_as(
            "select fingerprint, state, response_status, response_body
               from idempotency_key where customer_id = $1 and key = $2",
        )
        .bind(customer.0)
        .bind(key)
        .fetch_optional(&self.pool)
        .await?;
        // Gone between the two statements (abandoned): the caller may simply try again.
        Ok(stored.map_or(IdempotencyBegin::InFlight, |s| {
            idempotency_verdict(fingerprint, s)
        }))
    }

    async fn idempotency_finish(
        &self,
        customer: CustomerId,
        key: &str,
        status: u16,
        body: &str,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "update idempotency_key set state = 'DONE', response_status = $3, response_body = $4
              where customer_id = $1 and key = $2",
        )
        .bind(customer.0)
        .bind(key)
        .bind(i32::from(status))
        .bind(body)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn idempotency_abandon(&self, customer: CustomerId, key: &str) -> Result<(), StoreError> {
        sqlx::query(
            "delete from idempotency_key where customer_id = $1 and key = $2 and state = 'IN_FLIGHT'",
        )
        .bind(customer.0)
        .bind(key)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn create_hall(&self, hall: &NewHall) -> Result<Option<i64>, StoreError> {
        let mut tx = self.pool.begin().await?;
        let id: Option<i64> = sqlx::query_scalar(
            "insert into hall (name) values ($1) on conflict (name) do nothing returning id",
        )
        .bind(&hall.name)
        .fetch_optional(&mut *tx)
        .await?;
        let Some(id) = id else { return Ok(None) };
        for c in &hall.categories {
            sqlx::query("insert into price_category (hall_id, code, name, price_krw) values ($1, $2, $3, $4)")
                .bind(id)
                .bind(&c.code)
                .bind(&c.name)
                .bind(c.price)
                .execute(&mut *tx)
                .await?;
        }
        let col = |f: fn(&LayoutSeat) -> String| hall.seats.iter().map(f).collect::<Vec<_>>();
        let num = |f: fn(&LayoutSeat) -> i32| hall.seats.iter().map(f).collect::<Vec<_>>();
        sqlx::query(
            "insert into hall_seat (hall_id, seat_code, row_label, seat_number, grid_x, grid_y, category, accessible)
             select $1, * from unnest($2::text[], $3::text[], $4::int[], $5::int[], $6::int[], $7::text[], $8::bool[])",
        )
        .bind(id)
        .bind(col(|s| s.code.to_string()))
        .bind(col(|s| s.row.clone()))
        .bind(num(|s| s.number))
        .bind(num(|s| s.x))
        .bind(num(|s| s.y))
        .bind(col(|s| s.category.clone()))
        .bind(hall.seats.iter().map(|s| s.accessible).collect::<Vec<_>>())
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(Some(id))
    }

    async fn create_showtime(
        &self,
        hall_id: i64,
        movie_title: &str,
        starts_at: DateTime<Utc>,
    ) -> Result<ShowtimeId, StoreError> {
        let mut tx = self.pool.begin().await?;
        let id: i64 = sqlx::query_scalar(
            "insert into showtime (hall_id, movie_title, starts_at) values ($1, $2, $3) returning id",
        )
        .bind(hall_id)
        .bind(movie_title)
        .bind(starts_at)
        .fetch_one(&mut *tx)
        .await?;
        sqlx::query("insert into show_seat (showtime_id, seat_code) select $1, seat_code from hall_seat where hall_id = $2")
            .bind(id)
            .bind(hall_id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(ShowtimeId(id))
    }

    async fn hall_count(&self) -> Result<i64, StoreError> {
        Ok(sqlx::query_scalar("select count(*) from hall")
            .fetch_one(&self.pool)
            .await?)
    }

    async fn take_relay_lease(
        &self,
        name: &str,
        owner: &str,
        lease: Duration,
    ) -> Result<bool, StoreError> {
        let taken: Option<String> = sqlx::query_scalar(
            "insert into relay_lease (name, owner, expires_at)
             values ($1, $2, now() + $3::bigint * interval '1 millisecond')
             on conflict (name) do update
                set owner = excluded.owner, expires_at = excluded.expires_at
              where relay_lease.owner = excluded.owner or relay_lease.expires_at < now()
             returning owner",
        )
        .bind(name)
        .bind(owner)
        .bind(lease.as_millis() as i64)
        .fetch_optional(&self.pool)
        .await?;
        Ok(taken.is_some())
    }

    async fn drop_relay_lease(&self, name: &str, owner: &str) -> Result<(), StoreError> {
        sqlx::query("delete from relay_lease where name = $1 and owner = $2")
            .bind(name)
            .bind(owner)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    async fn unpublished_events(&self, limit: i64) -> Result<Vec<OutboxEvent>, StoreError> {
        let rows: Vec<(i64, uuid::Uuid, String, String)> = sqlx::query_as(
            "select id, aggregate_id, event_type, payload::text from outbox
              where published_at is null
                and event_type in ('BookingConfirmed', 'BookingFailed', 'RefundIssued')
              order by id limit $1",
        )
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .into_iter()
            .map(|(id, key, event_type, payload)| OutboxEvent {
                id,
                key: BookingId(key),
                event_type,
                payload,
            })
            .collect())
    }

    async fn mark_published(
        &self,
        name: &str,
        owner: &str,
        ids: &[i64],
    ) -> Result<u64, StoreError> {
        Ok(sqlx::query(
            "update outbox set published_at = now()
              where id = any($3) and published_at is null
                and exists (select 1 from relay_lease
                             where name = $1 and owner = $2 and expires_at >= now())",
        )
        .bind(name)
        .bind(owner)
        .bind(ids)
        .execute(&self.pool)
        .await?
        .rows_affected())
    }

    async fn unpublished_count(&self) -> Result<i64, StoreError> {
        Ok(sqlx::query_scalar(
            "select count(*) from outbox
              where published_at is null
                and event_type in ('BookingConfirmed', 'BookingFailed', 'RefundIssued')",
        )
        .fetch_one(&self.pool)
        .await?)
    }

    async fn apply_event(
        &self,
        consumer: &str,
        event_id: &str,
        effect: &ConsumerEffect,
    ) -> Result<bool, StoreError> {
        let mut tx = self.pool.begin().await?;
        let first = sqlx::query(
            "insert into consumed_event (consumer, event_id) values ($1, $2)
             on conflict do nothing",
        )
        .bind(consumer)
        .bind(event_id)
        .execute(&mut *tx)
        .await?
        .rows_affected()
            == 1;
        if !first {
            return Ok(false);
        }
        match effect {
            ConsumerEffect::Nothing => {}
            ConsumerEffect::IssueTicket { booking, code } => {
                sqlx::query(
                    "insert into ticket (booking_id, code) values ($1, $2)
                     on conflict (booking_id) do nothing",
                )
                .bind(booking.0)
                .bind(code)
                .execute(&mut *tx)
                .await?;
            }
            ConsumerEffect::Sales {
                showtime,
                day,
                bookings,
                seats,
                revenue,
                refunds,
                refunded,
            } => {
                sqlx::query(
                    "insert into sales_daily
                        (showtime_id, day, bookings, seats, revenue_krw, refunds, refunded_krw)
                     values ($1, $2, $3, $4, $5, $6, $7)
                     on conflict (showtime_id, day) do update
                        set bookings = sales_daily.bookings + excluded.bookings,
                            seats = sales_daily.seats + excluded.seats,
                            revenue_krw = sales_daily.revenue_krw + excluded.revenue_krw,
                            refunds = sales_daily.refunds + excluded.refunds,
                            refunded_krw = sales_daily.refunded_krw + excluded.refunded_krw",
                )
                .bind(showtime.0)
                .bind(day)
                .bind(*bookings as i32)
                .bind(*seats as i32)
                .bind(revenue)
                .bind(*refunds as i32)
                .bind(refunded)
                .execute(&mut *tx)
                .await?;
            }
        }
        tx.commit().await?;
        Ok(true)
    }

    async fn issued_ticket(
        &self,
        booking: BookingId,
    ) -> Result<Option<(String, DateTime<Utc>)>, StoreError> {
        Ok(
            sqlx::query_as("select code, issued_at from ticket where booking_id = $1")
                .bind(booking.0)
                .fetch_optional(&self.pool)
                .await?,
        )
    }

    async fn sales(&self) -> Result<Vec<SalesRow>, StoreError> {
        type Row = (
            i64,
            String,
            DateTime<Utc>,
            chrono::NaiveDate,
            i32,
            i32,
            i64,
            i32,
            i64,
        );
        let rows: Vec<Row> = sqlx::query_as(
            "select d.showtime_id, s.movie_title, s.starts_at, d.day, d.bookings, d.seats,
                    d.revenue_krw, d.refunds, d.refunded_krw
               from sales_daily d join showtime s on s.id = d.showtime_id
              order by d.day desc, s.starts_at, d.showtime_id",
        )
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .into_iter()
            .map(|r| SalesRow {
                showtime: ShowtimeId(r.0),
                movie_title: r.1,
                starts_at: r.2,
                day: r.3,
                bookings: r.4.into(),
                seats: r.5.into(),
                revenue: r.6,
                refunds: r.7.into(),
                refunded: r.8,
            })
            .collect())
    }
}

/// The showtime of a refunded booking (named in `RefundIssued`).
async fn refund_showtime(
    tx: &mut sqlx::Transaction<'_, sqlx::Postgres>,
    booking: BookingId,
) -> Result<i64, StoreError> {
    Ok(
        sqlx::query_scalar("select showtime_id from booking where id = $1")
            .bind(booking.0)
            .fetch_one(&mut **tx)
            .await?,
    )
}
