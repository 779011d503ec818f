//! The embedded SQLite store. SQLite has one writer at a time, so each seat operation is a short
//! `BEGIN IMMEDIATE` transaction on the single write connection: the conditional UPDATE (with
//! lazy expiry in its WHERE) runs, its row count is compared with the request, and anything short
//! of all rolls back. Reads use a separate pool and never wait for the writer (WAL mode).
//! With no database server, "the database's clock" is this process's clock.

use super::*;
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};
use std::str::FromStr;

pub struct SqliteStore {
    write: SqlitePool,
    read: SqlitePool,
}

fn millis(t: DateTime<Utc>) -> i64 {
    t.timestamp_millis()
}

fn from_millis(ms: i64) -> Result<DateTime<Utc>, StoreError> {
    DateTime::from_timestamp_millis(ms)
        .ok_or_else(|| StoreError::Corrupt(format!("bad timestamp {ms}")))
}

fn now_ms(now: Now) -> i64 {
    millis(now.unwrap_or_else(Utc::now))
}

fn json_codes(seats: &[SeatCode]) -> String {
    serde_json::to_string(&seats.iter().map(SeatCode::as_str).collect::<Vec<_>>())
        .expect("strings serialise")
}

impl SqliteStore {
    /// Opens (creating if missing) the database at `url` (`sqlite://path`).
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        let options = SqliteConnectOptions::from_str(url)?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .foreign_keys(true)
            .busy_timeout(Duration::from_secs(5));
        let write = SqlitePoolOptions::new()
            .max_connections(1)
            .connect_with(options.clone())
            .await?;
        let read = SqlitePoolOptions::new()
            .max_connections(4)
            .connect_with(options)
            .await?;
        Ok(Self { write, read })
    }
}

#[async_trait::async_trait]
impl Store for SqliteStore {
    fn backend(&self) -> &'static str {
        "sqlite"
    }

    async fn migrate(&self) -> Result<(), StoreError> {
        sqlx::migrate!("../migrations/sqlite")
            .run(&self.write)
            .await?;
        Ok(())
    }

    async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query("select 1").execute(&self.read).await?;
        Ok(())
    }

    async fn list_showtimes(
        &self,
        now: Now,
        since: DateTime<Utc>,
    ) -> Result<Vec<ShowtimeSummary>, StoreError> {
        type Row = (i64, String, i64, String, i64, bool, i64, i64);
        let rows = sqlx::query_as::<_, Row>(
            r#"
            select st.id, st.movie_title, st.hall_id, h.name, st.starts_at, st.starts_at > ?1,
                   count(ss.seat_code),
                   coalesce(sum(ss.status = 'AVAILABLE' or (ss.status = 'HELD' and ss.hold_expires_at < ?1)), 0)
              from showtime st
              join hall h on h.id = st.hall_id
              left join show_seat ss on ss.showtime_id = st.id
             where st.starts_at >= ?2
             group by st.id
             order by st.starts_at, st.id
            "#,
        )
        .bind(now_ms(now))
        .bind(millis(since))
        .fetch_all(&self.read)
        .await?;
        rows.into_iter()
            .map(
                |(id, movie_title, hall_id, hall_name, starts, open, total, available)| {
                    Ok(ShowtimeSummary {
                        id: ShowtimeId(id),
                        movie_title,
                        hall_id,
                        hall_name,
                        starts_at: from_millis(starts)?,
                        seats_total: total,
                        seats_available: available,
                        sales_open: open,
                    })
                },
            )
            .collect()
    }

    async fn layout(&self, showtime: ShowtimeId) -> Result<Option<Layout>, StoreError> {
        let Some((hall_id, movie_title, hall_name, starts)) =
            sqlx::query_as::<_, (i64, String, String, i64)>(
                "select st.hall_id, st.movie_title, h.name, st.starts_at
               from showtime st join hall h on h.id = st.hall_id where st.id = ?1",
            )
            .bind(showtime.0)
            .fetch_optional(&self.read)
            .await?
        else {
            return Ok(None);
        };
        let categories = sqlx::query_as::<_, (String, String, i64)>(
            "select code, name, price_krw from price_category where hall_id = ?1 order by price_krw, code",
        )
        .bind(hall_id)
        .fetch_all(&self.read)
        .await?
        .into_iter()
        .map(|(code, name, price)| PriceCategory { code, name, price })
        .collect();
        let seats = sqlx::query_as::<_, (String, String, i32, i32, i32, String, bool)>(
            "select seat_code, row_label, seat_number, grid_x, grid_y, category, accessible
               from hall_seat where hall_id = ?1 order by grid_y, grid_x",
        )
        .bind(hall_id)
        .fetch_all(&self.read)
        .await?;
        Ok(Some(Layout {
            showtime_id: showtime,
            movie_title,
            hall_name,
            starts_at: from_millis(starts)?,
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
                    case when status = 'HELD' and hold_expires_at < ?2 then 'AVAILABLE' else status end,
                    version
               from show_seat where showtime_id = ?1",
        )
        .bind(showtime.0)
        .bind(now_ms(now))
        .fetch_all(&self.read)
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
        let now = now_ms(now);
        let expires = now.saturating_add(i64::try_from(req.ttl.as_millis()).unwrap_or(i64::MAX));
        let codes = json_codes(req.seats);
        let addr = req.client_addr.map(|a| a.to_string());
        let mut tx = self.write.begin_with("BEGIN IMMEDIATE").await?;
        // The single writer makes these checks and the update below one decision.
        if let Some(refusal) = hold_refusal(&mut tx, &req, addr.as_deref(), now).await? {
            tx.rollback().await?;
            return Ok(HoldOutcome::Refused(refusal));
        }
        let held = sqlx::query_as::<_, (String, i64)>(
            "update show_seat
                set status = 'HELD', hold_id = ?1, customer_id = ?2, hold_expires_at = ?3,
                    booking_id = null, version = version + 1
              where showtime_id = ?4 and seat_code in (select value from json_each(?5))
                and (status = 'AVAILABLE' or (status = 'HELD' and hold_expires_at < ?6))
             returning seat_code, version",
        )
        .bind(req.hold_id.as_uuid())
        .bind(req.customer.0)
        .bind(expires)
        .bind(req.showtime.0)
        .bind(&codes)
        .bind(now)
        .fetch_all(&mut *tx)
        .await?;
        if held.len() != req.seats.len() {
            tx.rollback().await?;
            let found = sqlx::query_as::<_, (String, bool)>(
                "select seat_code, (status = 'AVAILABLE' or (status = 'HELD' and hold_expires_at < ?3))
                   from show_seat where showtime_id = ?1 and seat_code in (select value from json_each(?2))",
            )
            .bind(req.showtime.0)
            .bind(&codes)
            .bind(now)
            .fetch_all(&self.read)
            .await?;
            let mut outcome = rejection(req.seats, found);
            if let HoldOutcome::Rejected {
                unavailable,
                unknown,
            } = &mut outcome
            {
                // The report is read after the rollback; if the blocker left meanwhile, still
                // say which seats were requested so the client can retry knowingly.
                if unavailable.is_empty() && unknown.is_empty() {
                    *unavailable = req.seats.iter().map(|c| c.to_string()).collect();
                }
            }
            return Ok(outcome);
        }
        sqlx::query(
            "insert into seat_hold (showtime_id, hold_id, customer_id, seats, seat_count, expires_at,
                                    client_addr)
             values (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )
        .bind(req.showtime.0)
        .bind(req.hold_id.as_uuid())
        .bind(req.customer.0)
        .bind(&codes)
        .bind(req.seats.len() as i64)
        .bind(expires)
        .bind(&addr)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(HoldOutcome::Held {
            expires_at: from_millis(expires)?,
            changes: changes(held, SeatStatus::Held)?,
        })
    }

    async fn cancel(
        &self,
        hold: HoldId,
        customer: CustomerId,
    ) -> Result<CancelOutcome, StoreError> {
        let showtime = hold.showtime_id();
        let released = sqlx::query_as::<_, (String, i64)>(
            "update show_seat
                set status = 'AVAILABLE', hold_id = null, customer_id = null, hold_expires_at = null,
                    version = version + 1
              where showtime_id = ?1 and hold_id = ?2 and customer_id = ?3 and status = 'HELD'
             returning seat_code, version",
        )
        .bind(showtime.0)
        .bind(hold.as_uuid())
        .bind(customer.0)
        .fetch_all(&self.write)
        .await?;
        if !released.is_empty() {
            return Ok(CancelOutcome::Released(changes(
                released,
                SeatStatus::Available,
            )?));
        }
        let owner: Option<uuid::Uuid> = sqlx::query_scalar(
            "select customer_id from seat_hold where showtime_id = ?1 and hold_id = ?2",
        )
        .bind(showtime.0)
        .bind(hold.as_uuid())
        .fetch_optional(&self.read)
        .await?;
        Ok(cancel_refusal(owner, customer))
    }

    async fn active_hold(
        &self,
        showtime: ShowtimeId,
        customer: CustomerId,
        now: Now,
    ) -> Result<Option<ActiveHold>, StoreError> {
        let row = sqlx::query_as::<_, (uuid::Uuid, i64, String)>(
            "select hold_id, max(hold_expires_at), group_concat(seat_code, ',')
               from show_seat
              where showtime_id = ?1 and customer_id = ?2 and status = 'HELD' and hold_expires_at >= ?3
              group by hold_id
              order by 2 desc
              limit 1",
        )
        .bind(showtime.0)
        .bind(customer.0)
        .bind(now_ms(now))
        .fetch_optional(&self.read)
        .await?;
        row.map(|(hold, expires, seats)| {
            active_hold(
                hold,
                from_millis(expires)?,
                seats.split(',').map(String::from).collect(),
            )
        })
        .transpose()
    }

    async fn confirm(
        &self,
        hold: HoldId,
        booking: BookingId,
        now: Now,
    ) -> Result<Option<Vec<SeatChange>>, StoreError> {
        let showtime = hold.showtime_id();
        let mut tx = self.write.begin_with("BEGIN IMMEDIATE").await?;
        let expected: Option<i64> = sqlx::query_scalar(
            "select seat_count from seat_hold where showtime_id = ?1 and hold_id = ?2",
        )
        .bind(showtime.0)
        .bind(hold.as_uuid())
        .fetch_optional(&mut *tx)
        .await?;
        let Some(expected) = expected else {
            return Ok(None);
        };
        let booked = sqlx::query_as::<_, (String, i64)>(
            "update show_seat
                set status = 'BOOKED', booking_id = ?3, hold_expires_at = null, version = version + 1
              where showtime_id = ?1 and hold_id = ?2 and status = 'HELD' and hold_expires_at >= ?4
             returning seat_code, version",
        )
        .bind(showtime.0)
        .bind(hold.as_uuid())
        .bind(booking.0)
        .bind(now_ms(now))
        .fetch_all(&mut *tx)
        .await?;
        if booked.len() as i64 != expected {
            tx.rollback().await?;
            return Ok(None);
        }
        tx.commit().await?;
        Ok(Some(changes(booked, SeatStatus::Booked)?))
    }

    async fn sweep(&self, now: Now) -> Result<Vec<Released>, StoreError> {
        let rows = sqlx::query_as::<_, (i64, String, i64)>(
            "update show_seat
                set status = 'AVAILABLE', hold_id = null, customer_id = null, hold_expires_at = null,
                    version = version + 1
              where status = 'HELD' and hold_expires_at < ?1
             returning showtime_id, seat_code, version",
        )
        .bind(now_ms(now))
        .fetch_all(&self.write)
        .await?;
        let mut out: Vec<Released> = Vec::new();
        for (showtime, code, version) in rows {
            let change = changes(vec![(code, version)], SeatStatus::Available)?;
            match out.iter_mut().find(|r| r.showtime.0 == showtime) {
                Some(r) => r.changes.extend(change),
                None => out.push(Released {
                    showtime: ShowtimeId(showtime),
                    changes: change,
                }),
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
        let at = now_ms(now);
        let recorded: Option<(uuid::Uuid, i64)> = sqlx::query_as(
            "select customer_id, seat_count from seat_hold where showtime_id = ?1 and hold_id = ?2",
        )
        .bind(showtime.0)
        .bind(hold.as_uuid())
        .fetch_optional(&self.read)
        .await?;
        let held: Vec<(String, i64)> = sqlx::query_as(
            "select seat_code, hold_expires_at from show_seat
              where showtime_id = ?1 and hold_id = ?2 and status = 'HELD' and hold_expires_at >= ?3",
        )
        .bind(showtime.0)
        .bind(hold.as_uuid())
        .bind(at)
        .fetch_all(&self.read)
        .await?;
        let held = held
            .into_iter()
            .map(|(c, e)| Ok((c, from_millis(e)?)))
            .collect::<Result<Vec<_>, StoreError>>()?;
        hold_check(customer, recorded, held, from_millis(at)?)
    }

    async fn booking_for_hold(&self, new: &NewBooking) -> Result<BookingRow, StoreError> {
        let now = millis(Utc::now());
        sqlx::query(
            "insert into booking (id, showtime_id, hold_id, customer_id, seats, amount_krw,
                                  created_at, updated_at)
             values (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7) on conflict (hold_id) do nothing",
        )
        .bind(new.id.0)
        .bind(new.hold.showtime_id().0)
        .bind(new.hold.as_uuid())
        .bind(new.customer.0)
        .bind(json_codes(&new.seats))
        .bind(new.amount)
        .bind(now)
        .execute(&self.write)
        .await?;
        let (id, status, amount): (uuid::Uuid, String, i64) =
            sqlx::query_as("select id, status, amount_krw from booking where hold_id = ?1")
                .bind(new.hold.as_uuid())
                .fetch_one(&self.write)
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
            Option<i64>,
            i64,
            i64,
        ) = sqlx::query_as(
            "select p.provider, p.provider_session_id, p.payment_url, p.amount_krw,
                        p.session_expires_at, c.n, c.paid
                   from (select count(*) as n, coalesce(sum(status = 'PAID'), 0) as paid
                           from payment where booking_id = ?1) c
                   left join payment p on p.booking_id = ?1 and p.status = 'PENDING'
                  order by p.created_at
                  limit 1",
        )
        .bind(booking.0)
        .fetch_one(&self.write)
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
                expires_at: from_millis(expires_at)?,
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
        let now = millis(Utc::now());
        sqlx::query(
            "insert into payment (id, booking_id, provider, provider_session_id, amount_krw,
                                  payment_url, session_expires_at, created_at, updated_at)
             values (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8) on conflict (provider_session_id) do nothing",
        )
        .bind(uuid::Uuid::new_v4())
        .bind(p.booking.0)
        .bind(&p.provider)
        .bind(&p.session_id)
        .bind(p.amount)
        .bind(&p.payment_url)
        .bind(millis(p.expires_at))
        .bind(now)
        .execute(&self.write)
        .await?;
        Ok(())
    }

    async fn record_payment_report(
        &self,
        report: &PaymentReport,
    ) -> Result<ReportOutcome, StoreError> {
        let now = millis(Utc::now());
        let paid_amount = report
            .charged
            .as_ref()
            .filter(|_| report.paid)
            .map(|c| c.amount);
        let mut tx = self.write.begin_with("BEGIN IMMEDIATE").await?;
        let recorded: Option<(uuid::Uuid, i64, String)> = sqlx::query_as(
            "update payment set status = ?2, provider_payment_id = ?3, paid_amount = ?5,
                                updated_at = ?4
              where provider_session_id = ?1
                and (status = 'PENDING' or (?2 = 'PAID' and status in ('DECLINED', 'EXPIRED')))
             returning booking_id, (select b.amount_krw from booking b where b.id = booking_id),
                       currency",
        )
        .bind(&report.session_id)
        .bind(if report.paid { "PAID" } else { "DECLINED" })
        .bind(&report.payment_id)
        .bind(now)
        .bind(paid_amount)
        .fetch_optional(&mut *tx)
        .await?;
        let Some((booking, amount, currency)) = recorded else {
            let known: Option<i32> =
                sqlx::query_scalar("select 1 from payment where provider_session_id = ?1")
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
            sqlx::query("update payment set mismatch = ?2 where provider_session_id = ?1")
                .bind(&report.session_id)
                .bind(mismatch)
                .execute(&mut *tx)
                .await?;
        }
        if report.paid {
            sqlx::query(
                "insert into outbox (aggregate_id, event_type, payload, created_at, next_attempt_at)
                 values (?1, 'PaymentSucceeded', ?2, ?3, ?3)",
            )
            .bind(booking)
            .bind(payment_succeeded(report, booking, mismatch.as_deref()))
            .bind(now)
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
        let now = millis(Utc::now());
        let rows: Vec<(i64, uuid::Uuid, String, String, i64)> = sqlx::query_as(
            "update outbox set attempts = attempts + 1, next_attempt_at = ?3 + ?4
              where id in (select id from outbox
                            where processed_at is null and parked_at is null
                              and event_type in (select value from json_each(?1))
                              and next_attempt_at <= ?3
                            order by id limit ?2)
             returning id, aggregate_id, event_type, payload, attempts",
        )
        .bind(serde_json::to_string(types).expect("strings serialise"))
        .bind(limit)
        .bind(now)
        .bind(lease.as_millis() as i64)
        .fetch_all(&self.write)
        .await?;
        rows.into_iter()
            .map(|(id, booking, event_type, payload, attempts)| {
                Ok(OutboxItem {
                    id,
                    booking: BookingId(booking),
                    event_type,
                    payload: serde_json::from_str(&payload)
                        .map_err(|e| StoreError::Corrupt(e.to_string()))?,
                    attempts,
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
            "update outbox set next_attempt_at = ?2, last_error = ?3
              where id = ?1 and processed_at is null",
        )
        .bind(item)
        .bind(millis(Utc::now()) + after.as_millis() as i64)
        .bind(error)
        .execute(&self.write)
        .await?;
        Ok(())
    }

    async fn park_outbox(&self, item: i64, error: &str) -> Result<(), StoreError> {
        sqlx::query("update outbox set parked_at = ?3, last_error = ?2 where id = ?1")
            .bind(item)
            .bind(error)
            .bind(millis(Utc::now()))
            .execute(&self.write)
            .await?;
        Ok(())
    }

    async fn parked_count(&self) -> Result<i64, StoreError> {
        Ok(sqlx::query_scalar(
            "select count(*) from outbox where processed_at is null and parked_at is not null",
        )
        .fetch_one(&self.read)
        .await?)
    }

    async fn purge(&self, now: Now, retention: chrono::Duration) -> Result<(u64, u64), StoreError> {
        let at = now_ms(now);
        let mut holds = 0;
        loop {
            let n = sqlx::query(
                "delete from seat_hold where rowid in (
                     select rowid from seat_hold where expires_at < ?1 - ?2 limit ?3)",
            )
            .bind(at)
            .bind(retention.num_milliseconds())
            .bind(PURGE_BATCH)
            .execute(&self.write)
            .await?
            .rows_affected();
            holds += n;
            if n < PURGE_BATCH as u64 {
                break;
            }
        }
        let keys = sqlx::query("delete from idempotency_key where created_at < ?1 - ?2")
            .bind(at)
            .bind(IDEMPOTENCY_KEEP.num_milliseconds())
            .execute(&self.write)
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
        let at = now_ms(now);
        let wall = millis(Utc::now());
        let mut tx = self.write.begin_with("BEGIN IMMEDIATE").await?;
        let row: Option<(i64, uuid::Uuid, String, String, bool)> = sqlx::query_as(
            "select b.showtime_id, b.hold_id, b.status, b.seats, coalesce(st.starts_at > ?2, 0)
               from booking b left join showtime st on st.id = b.showtime_id
              where b.id = ?1",
        )
        .bind(booking.0)
        .bind(at)
        .fetch_optional(&mut *tx)
        .await?;
        let payment: Option<(Option<String>, Option<String>, i64)> = sqlx::query_as(
            "select outcome, mismatch, coalesce(paid_amount, amount_krw) from payment
              where provider_payment_id = ?1 and booking_id = ?2 and status = 'PAID'",
        )
        .bind(payment_id)
        .bind(booking.0)
        .fetch_optional(&mut *tx)
        .await?;
        let processed = "update outbox set processed_at = ?2 where id = ?1";
        let (Some((showtime, hold, status, seats, open)), Some((outcome, mismatch, paid))) =
            (row, payment)
        else {
            sqlx::query(processed)
                .bind(item)
                .bind(wall)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
            return Ok(Settlement::AlreadySettled);
        };
        let seats: Vec<String> =
            serde_json::from_str(&seats).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let mut decision = settle_decision(&status, outcome.as_deref(), mismatch.is_some(), open);
        let mut booked = Vec::new();
        if decision == SettleDecision::Confirm {
            // The fenced confirm: all of the hold's seats still held by it and not expired, or
            // none.
            let expected: Option<i64> = sqlx::query_scalar(
                "select seat_count from seat_hold where showtime_id = ?1 and hold_id = ?2",
            )
            .bind(showtime)
            .bind(hold)
            .fetch_optional(&mut *tx)
            .await?;
            let held: i64 = sqlx::query_scalar(
                "select count(*) from show_seat
                  where showtime_id = ?1 and hold_id = ?2 and status = 'HELD' and hold_expires_at >= ?3",
            )
            .bind(showtime)
            .bind(hold)
            .bind(at)
            .fetch_one(&mut *tx)
            .await?;
            if expected.is_some_and(|n| n == held && n > 0) {
                booked = sqlx::query_as::<_, (String, i64)>(
                    "update show_seat
                        set status = 'BOOKED', booking_id = ?3, hold_expires_at = null, version = version + 1
                      where showtime_id = ?1 and hold_id = ?2 and status = 'HELD' and hold_expires_at >= ?4
                     returning seat_code, version",
                )
                .bind(showtime)
                .bind(hold)
                .bind(booking.0)
                .bind(at)
                .fetch_all(&mut *tx)
                .await?;
            } else {
                decision = SettleDecision::Refund {
                    fail_booking: true,
                    reason: LAPSED_REASON,
                };
            }
        }
        let event = |kind: &str, extra: serde_json::Value| {
            sqlx::query(
                "insert into outbox (aggregate_id, event_type, payload, created_at, next_attempt_at)
                 values (?1, ?2, ?3, ?4, ?4)",
            )
            .bind(booking.0)
            .bind(kind.to_string())
            .bind(booking_event(kind, booking.0, extra))
            .bind(wall)
        };
        let settlement = match decision {
            SettleDecision::AlreadySettled => Settlement::AlreadySettled,
            SettleDecision::Confirm => {
                sqlx::query(
                    "update booking set status = 'CONFIRMED', updated_at = ?2 where id = ?1",
                )
                .bind(booking.0)
                .bind(wall)
                .execute(&mut *tx)
                .await?;
                sqlx::query(
                    "update payment set outcome = 'CONFIRMED' where provider_payment_id = ?1",
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
                        "update booking set status = 'FAILED', failure_reason = ?2, updated_at = ?3
                          where id = ?1",
                    )
                    .bind(booking.0)
                    .bind(reason)
                    .bind(wall)
                    .execute(&mut *tx)
                    .await?;
                    event("BookingFailed", extra.clone())
                        .execute(&mut *tx)
                        .await?;
                }
                sqlx::query("update payment set outcome = 'REFUND' where provider_payment_id = ?1")
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
        sqlx::query(processed)
            .bind(item)
            .bind(wall)
            .execute(&mut *tx)
            .await?;
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
        let wall = millis(Utc::now());
        let mut tx = self.write.begin_with("BEGIN IMMEDIATE").await?;
        let amount: Option<i64> = sqlx::query_scalar(
            "update payment set status = 'REFUNDED', updated_at = ?2
              where provider_payment_id = ?1 and status = 'PAID'
             returning coalesce(paid_amount, amount_krw)",
        )
        .bind(payment_id)
        .bind(wall)
        .fetch_optional(&mut *tx)
        .await?;
        if let Some(amount) = amount {
            let extra = serde_json::json!({ "showtimeId": refund_showtime(&mut tx, booking).await?, "paymentId": payment_id, "refundId": refund_id, "amount": amount });
            sqlx::query(
                "insert into outbox (aggregate_id, event_type, payload, created_at, next_attempt_at)
                 values (?1, 'RefundIssued', ?2, ?3, ?3)",
            )
            .bind(booking.0)
            .bind(booking_event("RefundIssued", booking.0, extra))
            .bind(wall)
            .execute(&mut *tx)
            .await?;
        }
        sqlx::query("update outbox set processed_at = ?2 where id = ?1")
            .bind(item)
            .bind(wall)
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
            String,
            i64,
            String,
            Option<String>,
            i64,
            i64,
        );
        let columns =
            "select id, showtime_id, customer_id, seats, amount_krw, status, failure_reason,
                              created_at, updated_at from booking";
        let rows: Vec<Row> = match filter {
            BookingFilter::One(id) => {
                sqlx::query_as(&format!("{columns} where id = ?1"))
                    .bind(id.0)
                    .fetch_all(&self.read)
                    .await?
            }
            BookingFilter::OfCustomer(customer) => {
                sqlx::query_as(&format!(
                    "{columns} where customer_id = ?1 order by created_at desc limit 50"
                ))
                .bind(customer.0)
                .fetch_all(&self.read)
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
            let payments: Vec<(String, i64, String, i64, i64)> = sqlx::query_as(
                "select status, amount_krw, payment_url, session_expires_at, updated_at
                   from payment where booking_id = ?1 order by created_at",
            )
            .bind(id)
            .fetch_all(&self.read)
            .await?;
            out.push(BookingRecord {
                id: BookingId(id),
                showtime: ShowtimeId(showtime),
                customer: CustomerId(customer),
                seats: serde_json::from_str(&seats)
                    .map_err(|e| StoreError::Corrupt(e.to_string()))?,
                amount,
                status,
                failure_reason,
                created_at: from_millis(created_at)?,
                updated_at: from_millis(updated_at)?,
                payments: payments
                    .into_iter()
                    .map(|(status, amount, payment_url, pay_before, updated_at)| {
                        Ok(PaymentRecord {
                            status,
                            amount,
                            payment_url,
                            pay_before: from_millis(pay_before)?,
                            updated_at: from_millis(updated_at)?,
                        })
                    })
                    .collect::<Result<_, StoreError>>()?,
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
              where status = 'PENDING' and created_at < ?1 - ?2
              order by created_at limit ?3",
        )
        .bind(now_ms(now))
        .bind(older_than.as_millis() as i64)
        .bind(limit)
        .fetch_all(&self.read)
        .await?)
    }

    async fn expire_payment(&self, session_id: &str) -> Result<bool, StoreError> {
        Ok(sqlx::query(
            "update payment set status = 'EXPIRED', updated_at = ?2
              where provider_session_id = ?1 and status = 'PENDING'",
        )
        .bind(session_id)
        .bind(millis(Utc::now()))
        .execute(&self.write)
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
        let at = now_ms(now);
        let mut tx = self.write.begin_with("BEGIN IMMEDIATE").await?;
        // A key past its 24 hours, or held by a request that died, is free again.
        sqlx::query(
            "delete from idempotency_key
              where customer_id = ?1 and key = ?2
                and (created_at < ?3 - ?4 or (state = 'IN_FLIGHT' and created_at < ?3 - ?5))",
        )
        .bind(customer.0)
        .bind(key)
        .bind(at)
        .bind(IDEMPOTENCY_KEEP.num_milliseconds())
        .bind(IDEMPOTENCY_IN_FLIGHT_LIMIT.num_milliseconds())
        .execute(&mut *tx)
        .await?;
        let stored: Option<(String, String, Option<i32>, Option<String>)> = sqlx::query_as(
            "select fingerprint, state, response_status, response_body
               from idempotency_key where customer_id = ?1 and key = ?2",
        )
        .bind(customer.0)
        .bind(key)
        .fetch_optional(&mut *tx)
        .await?;
        let verdict = match stored {
            Some(stored) => idempotency_verdict(fingerprint, stored),
            None => {
                sqlx::query(
                    "insert into idempotency_key (customer_id, key, fingerprint, created_at)
                     values (?1, ?2, ?3, ?4)",
                )
                .bind(customer.0)
                .bind(key)
                .bind(fingerprint)
                .bind(at)
                .execute(&mut *tx)
                .await?;
                IdempotencyBegin::Started
            }
        };
        tx.commit().await?;
        Ok(verdict)
    }

    async fn idempotency_finish(
        &self,
        customer: CustomerId,
        key: &str,
        status: u16,
        body: &str,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "update idempotency_key set state = 'DONE', response_status = ?3, response_body = ?4
              where customer_id = ?1 and key = ?2",
        )
        .bind(customer.0)
        .bind(key)
        .bind(i32::from(status))
        .bind(body)
        .execute(&self.write)
        .await?;
        Ok(())
    }

    async fn idempotency_abandon(&self, customer: CustomerId, key: &str) -> Result<(), StoreError> {
        sqlx::query(
            "delete from idempotency_key where customer_id = ?1 and key = ?2 and state = 'IN_FLIGHT'",
        )
        .bind(customer.0)
        .bind(key)
        .execute(&self.write)
        .await?;
        Ok(())
    }

    async fn create_hall(&self, hall: &NewHall) -> Result<Option<i64>, StoreError> {
        let mut tx = self.write.begin_with("BEGIN IMMEDIATE").await?;
        let id: Option<i64> = sqlx::query_scalar(
            "insert into hall (name) values (?1) on conflict (name) do nothing returning id",
        )
        .bind(&hall.name)
        .fetch_optional(&mut *tx)
        .await?;
        let Some(id) = id else { return Ok(None) };
        for c in &hall.categories {
            sqlx::query("insert into price_category (hall_id, code, name, price_krw) values (?1, ?2, ?3, ?4)")
                .bind(id)
                .bind(&c.code)
                .bind(&c.name)
                .bind(c.price)
                .execute(&mut *tx)
                .await?;
        }
        for s in &hall.seats {
            sqlx::query(
                "insert into hall_seat (hall_id, seat_code, row_label, seat_number, grid_x, grid_y, category, accessible)
                 values (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )
            .bind(id)
            .bind(s.code.as_str())
            .bind(&s.row)
            .bind(s.number)
            .bind(s.x)
            .bind(s.y)
            .bind(&s.category)
            .bind(s.accessible)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(Some(id))
    }

    async fn create_showtime(
        &self,
        hall_id: i64,
        movie_title: &str,
        starts_at: DateTime<Utc>,
    ) -> Result<ShowtimeId, StoreError> {
        let mut tx = self.write.begin_with("BEGIN IMMEDIATE").await?;
        let id: i64 = sqlx::query_scalar(
            "insert into showtime (hall_id, movie_title, starts_at) values (?1, ?2, ?3) returning id",
        )
        .bind(hall_id)
        .bind(movie_title)
        .bind(millis(starts_at))
        .fetch_one(&mut *tx)
        .await?;
        sqlx::query("insert into show_seat (showtime_id, seat_code) select ?1, seat_code from hall_seat where hall_id = ?2")
            .bind(id)
            .bind(hall_id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(ShowtimeId(id))
    }

    async fn hall_count(&self) -> Result<i64, StoreError> {
        Ok(sqlx::query_scalar("select count(*) from hall")
            .fetch_one(&self.read)
            .await?)
    }

    async fn take_relay_lease(
        &self,
        name: &str,
        owner: &str,
        lease: Duration,
    ) -> Result<bool, StoreError> {
        let now = millis(Utc::now());
        let taken: Option<String> = sqlx::query_scalar(
            "insert into relay_lease (name, owner, expires_at) values (?1, ?2, ?3 + ?4)
             on conflict (name) do update
                set owner = excluded.owner, expires_at = excluded.expires_at
              where relay_lease.owner = excluded.owner or relay_lease.expires_at < ?3
             returning owner",
        )
        .bind(name)
        .bind(owner)
        .bind(now)
        .bind(lease.as_millis() as i64)
        .fetch_optional(&self.write)
        .await?;
        Ok(taken.is_some())
    }

    async fn drop_relay_lease(&self, name: &str, owner: &str) -> Result<(), StoreError> {
        sqlx::query("delete from relay_lease where name = ?1 and owner = ?2")
            .bind(name)
            .bind(owner)
            .execute(&self.write)
            .await?;
        Ok(())
    }

    async fn unpublished_events(&self, limit: i64) -> Result<Vec<OutboxEvent>, StoreError> {
        let rows: Vec<(i64, uuid::Uuid, String, String)> = sqlx::query_as(
            "select id, aggregate_id, event_type, payload from outbox
              where published_at is null
                and event_type in ('BookingConfirmed', 'BookingFailed', 'RefundIssued')
              order by id limit ?1",
        )
        .bind(limit)
        .fetch_all(&self.read)
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
        let now = millis(Utc::now());
        Ok(sqlx::query(
            "update outbox set published_at = ?3
              where id in (select value from json_each(?4)) and published_at is null
                and exists (select 1 from relay_lease
                             where name = ?1 and owner = ?2 and expires_at >= ?3)",
        )
        .bind(name)
        .bind(owner)
        .bind(now)
        .bind(serde_json::to_string(ids).expect("numbers serialise"))
        .execute(&self.write)
        .await?
        .rows_affected())
    }

    async fn unpublished_count(&self) -> Result<i64, StoreError> {
        Ok(sqlx::query_scalar(
            "select count(*) from outbox
              where published_at is null
                and event_type in ('BookingConfirmed', 'BookingFailed', 'RefundIssued')",
        )
        .fetch_one(&self.read)
        .await?)
    }

    async fn apply_event(
        &self,
        consumer: &str,
        event_id: &str,
        effect: &ConsumerEffect,
    ) -> Result<bool, StoreError> {
        let now = millis(Utc::now());
        let mut tx = self.write.begin_with("BEGIN IMMEDIATE").await?;
        let first = sqlx::query(
            "insert into consumed_event (consumer, event_id, consumed_at) values (?1, ?2, ?3)
             on conflict do nothing",
        )
        .bind(consumer)
        .bind(event_id)
        .bind(now)
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
                    "insert into ticket (booking_id, code, issued_at) values (?1, ?2, ?3)
                     on conflict (booking_id) do nothing",
                )
                .bind(booking.0)
                .bind(code)
                .bind(now)
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
                     values (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                     on conflict (showtime_id, day) do update
                        set bookings = sales_daily.bookings + excluded.bookings,
                            seats = sales_daily.seats + excluded.seats,
                            revenue_krw = sales_daily.revenue_krw + excluded.revenue_krw,
                            refunds = sales_daily.refunds + excluded.refunds,
                            refunded_krw = sales_daily.refunded_krw + excluded.refunded_krw",
                )
                .bind(showtime.0)
                .bind(day.format("%Y-%m-%d").to_string())
                .bind(bookings)
                .bind(seats)
                .bind(revenue)
                .bind(refunds)
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
        let row: Option<(String, i64)> =
            sqlx::query_as("select code, issued_at from ticket where booking_id = ?1")
                .bind(booking.0)
                .fetch_optional(&self.read)
                .await?;
        row.map(|(code, at)| Ok((code, from_millis(at)?)))
            .transpose()
    }

    async fn sales(&self) -> Result<Vec<SalesRow>, StoreError> {
        type Row = (i64, String, i64, String, i64, i64, i64, i64, i64);
        let rows: Vec<Row> = sqlx::query_as(
            "select d.showtime_id, s.movie_title, s.starts_at, d.day, d.bookings, d.seats,
                    d.revenue_krw, d.refunds, d.refunded_krw
               from sales_daily d join showtime s on s.id = d.showtime_id
              order by d.day desc, s.starts_at, d.showtime_id",
        )
        .fetch_all(&self.read)
        .await?;
        rows.into_iter()
            .map(|r| {
                Ok(SalesRow {
                    showtime: ShowtimeId(r.0),
                    movie_title: r.1,
                    starts_at: from_millis(r.2)?,
                    day: chrono::NaiveDate::parse_from_str(&r.3, "%Y-%m-%d")
                        .map_err(|e| StoreError::Corrupt(e.to_string()))?,
                    bookings: r.4,
                    seats: r.5,
                    revenue: r.6,
                    refunds: r.7,
                    refunded: r.8,
                })
            })
            .collect()
    }
}

/// The showtime of a refunded booking (named in `RefundIssued`).
async fn refund_showtime(
    tx: &mut sqlx::Transaction<'_, sqlx::Sqlite>,
    booking: BookingId,
) -> Result<i64, StoreError> {
    Ok(
        sqlx::query_scalar("select showtime_id from booking where id = ?1")
            .bind(booking.0)
            .fetch_one(&mut **tx)
            .await?,
    )
}

/// Why a hold must be refused before its seats are looked at: the showtime's sales have closed,
/// or the customer's or the address's live holds are at their cap (see `HoldLimits`).
async fn hold_refusal(
    tx: &mut sqlx::Transaction<'_, sqlx::Sqlite>,
    req: &HoldRequest<'_>,
    addr: Option<&str>,
    now: i64,
) -> Result<Option<HoldRefusal>, StoreError> {
    let open: Option<bool> =
        sqlx::query_scalar("select starts_at > ?2 from showtime where id = ?1")
            .bind(req.showtime.0)
            .bind(now)
            .fetch_optional(&mut **tx)
            .await?;
    if open != Some(true) {
        return Ok(Some(HoldRefusal::SalesClosed));
    }
    let live = "from seat_hold h
                where h.showtime_id = ?1 and h.expires_at >= ?2 and {who}
                  and exists (select 1 from show_seat s
                               where s.showtime_id = h.showtime_id and s.hold_id = h.hold_id
                                 and s.status = 'HELD')";
    if let Some(max) = req.limits.holds_per_customer {
        let holds: i64 = sqlx::query_scalar(&format!(
            "select count(*) {}",
            live.replace("{who}", "h.customer_id = ?3")
        ))
        .bind(req.showtime.0)
        .bind(now)
        .bind(req.customer.0)
        .fetch_one(&mut **tx)
        .await?;
        if holds >= i64::from(max) {
            return Ok(Some(HoldRefusal::HoldLimit));
        }
    }
    if let (Some(max), Some(addr)) = (req.limits.seats_per_address, addr) {
        let seats: i64 = sqlx::query_scalar(&format!(
            "select coalesce(sum(h.seat_count), 0) {}",
            live.replace("{who}", "h.client_addr = ?3")
        ))
        .bind(req.showtime.0)
        .bind(now)
        .bind(addr)
        .fetch_one(&mut **tx)
        .await?;
        if seats + req.seats.len() as i64 > i64::from(max) {
            return Ok(Some(HoldRefusal::AddressLimit));
        }
    }
    Ok(None)
}
