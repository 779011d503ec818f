//! What really differs between the two databases, in one place: which database the store is on,
//! how a write transaction begins (SQLite's `BEGIN IMMEDIATE`), row locks, lists bound as one
//! parameter, the time a sale is judged at, the fenced confirm, the outbox append, and the one
//! macro that runs a statement written the same way on either. Times and lengths of time bind
//! through [`Moment`](super::Moment) and [`Span`](super::Span), so most statements read the same
//! in both.

use super::{At, BookingId, Envelope, Now, PgStore, ShowtimeId, SqliteStore, Store, StoreError};
use sqlx::pool::PoolConnection;
use sqlx::{Postgres, Sqlite, Transaction};

/// One of the two databases, or something of one of them (a pool, a connection, a transaction).
pub(super) enum Dialect<P, S> {
    Postgres(P),
    Sqlite(S),
}

impl<P: Clone, S: Clone> Clone for Dialect<P, S> {
    fn clone(&self) -> Self {
        match self {
            Self::Postgres(p) => Self::Postgres(p.clone()),
            Self::Sqlite(s) => Self::Sqlite(s.clone()),
        }
    }
}

/// The database a store is on.
pub(super) type Db = Dialect<PgStore, SqliteStore>;

/// A write transaction.
pub(super) type Tx = Dialect<Transaction<'static, Postgres>, Transaction<'static, Sqlite>>;

/// A connection for single statements outside a transaction.
pub(super) type Conn = Dialect<PoolConnection<Postgres>, PoolConnection<Sqlite>>;

impl Store {
    /// A write transaction. On SQLite it takes the one writer's lock at once (`BEGIN
    /// IMMEDIATE`): a transaction that reads before it writes never finds its reads changed
    /// under it, nor fails to upgrade its lock half-way.
    pub(super) async fn begin(&self) -> Result<Tx, StoreError> {
        Ok(match &self.db {
            Dialect::Postgres(pg) => Dialect::Postgres(pg.pool.begin().await?),
            Dialect::Sqlite(lite) => {
                Dialect::Sqlite(lite.write.begin_with("BEGIN IMMEDIATE").await?)
            }
        })
    }

    /// A connection for reads (on SQLite from the read pool: reads never wait for the writer).
    pub(super) async fn reader(&self) -> Result<Conn, StoreError> {
        Ok(match &self.db {
            Dialect::Postgres(pg) => Dialect::Postgres(pg.pool.acquire().await?),
            Dialect::Sqlite(lite) => Dialect::Sqlite(lite.read.acquire().await?),
        })
    }

    /// The time a sale is judged at: the injected clock, else the database's on PostgreSQL
    /// (`None`: its `now()`). SQLite has no server clock: it is this process's time now, before
    /// the transaction waits for the one writer.
    pub(super) fn fence(&self, now: Now) -> Now {
        match &self.db {
            Dialect::Postgres(_) => now,
            Dialect::Sqlite(_) => Some(At::or_now(now).0),
        }
    }

    /// A connection for one write (SQLite's one writer).
    pub(super) async fn writer(&self) -> Result<Conn, StoreError> {
        Ok(match &self.db {
            Dialect::Postgres(pg) => Dialect::Postgres(pg.pool.acquire().await?),
            Dialect::Sqlite(lite) => Dialect::Sqlite(lite.write.acquire().await?),
        })
    }
}

impl<P, S> Dialect<P, S> {
    /// `column` is one of the list bound as `$n` (a [`SeatList`](super::SeatList) or
    /// [`Ids`](super::Ids): an array on PostgreSQL, a JSON array on SQLite).
    pub(super) fn in_list(&self, column: &str, n: u8) -> String {
        match self {
            Self::Postgres(_) => format!("{column} = any(${n})"),
            Self::Sqlite(_) => format!("{column} in (select value from json_each(${n}))"),
        }
    }

    /// `clause` (`for update`, `for update skip locked`) on PostgreSQL; nothing on SQLite, whose
    /// one writer needs no row locks.
    pub(super) fn row_lock(&self, clause: &'static str) -> &'static str {
        match self {
            Self::Postgres(_) => clause,
            Self::Sqlite(_) => "",
        }
    }
}

impl Tx {
    pub(super) async fn commit(self) -> Result<(), StoreError> {
        match self {
            Dialect::Postgres(tx) => tx.commit().await?,
            Dialect::Sqlite(tx) => tx.commit().await?,
        }
        Ok(())
    }

    pub(super) async fn rollback(self) -> Result<(), StoreError> {
        match self {
            Dialect::Postgres(tx) => tx.rollback().await?,
            Dialect::Sqlite(tx) => tx.rollback().await?,
        }
        Ok(())
    }

    /// The fenced confirm: the seats of hold `hold` of `showtime` booked for `booking`, all of
    /// them or none (empty), in this transaction — each dialect's own ([`pg_confirm`],
    /// [`sqlite_confirm`]).
    pub(super) async fn confirm(
        &mut self,
        showtime: ShowtimeId,
        hold: uuid::Uuid,
        booking: BookingId,
        now: Now,
    ) -> Result<Vec<(String, i64)>, StoreError> {
        match self {
            Dialect::Postgres(tx) => pg_confirm(&mut **tx, showtime, hold, booking, now).await,
            Dialect::Sqlite(tx) => {
                sqlite_confirm(tx, showtime, hold, booking, At::or_now(now)).await
            }
        }
    }

    /// Writes a booking event to the outbox, in this transaction (the relay sends it once it
    /// commits). PostgreSQL keeps the payload as `jsonb` and stamps the row itself; SQLite keeps
    /// text and is given this process's time.
    pub(super) async fn append_event(&mut self, event: &Envelope) -> Result<(), StoreError> {
        let (kind, payload) = (event.event.kind(), event.to_json());
        match self {
            Dialect::Postgres(tx) => {
                sqlx::query(
                    "insert into outbox (aggregate_id, event_type, payload)
                     values ($1, $2, $3::jsonb)",
                )
                .bind(event.booking_id)
                .bind(kind)
                .bind(payload)
                .execute(&mut **tx)
                .await?;
            }
            Dialect::Sqlite(tx) => {
                sqlx::query(
                    "insert into outbox (aggregate_id, event_type, payload, created_at,
                                         next_attempt_at)
                     values ($1, $2, $3, $4, $4)",
                )
                .bind(event.booking_id)
                .bind(kind)
                .bind(payload)
                .bind(At::or_now(None))
                .execute(&mut **tx)
                .await?;
            }
        }
        Ok(())
    }
}

/// HELD → BOOKED, fenced by hold id, status and expiry in the update's own WHERE; `verdict`
/// demands that every seat the hold took still qualifies.
const PG_CONFIRM: &str = r#"
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

/// The fenced confirm, PostgreSQL's one (`PG_CONFIRM`): the seats of hold `hold` of
/// `showtime` booked for `booking`, all of them or none (empty), on `executor` (the pool, or
/// the caller's transaction).
pub(super) async fn pg_confirm<'e>(
    executor: impl sqlx::PgExecutor<'e>,
    showtime: ShowtimeId,
    hold: uuid::Uuid,
    booking: BookingId,
    now: Now,
) -> Result<Vec<(String, i64)>, StoreError> {
    Ok(sqlx::query_as(PG_CONFIRM)
        .bind(showtime.get())
        .bind(hold)
        .bind(booking.0)
        .bind(now)
        .fetch_all(executor)
        .await?)
}

/// The fenced confirm, SQLite's one: every seat of hold `hold` of `showtime` still held by it
/// and unexpired at `at` booked for `booking`, or none (empty: nothing written). In the caller's
/// write transaction: nothing else writes between the count and the update.
pub(super) async fn sqlite_confirm(
    tx: &mut sqlx::Transaction<'_, sqlx::Sqlite>,
    showtime: ShowtimeId,
    hold: uuid::Uuid,
    booking: BookingId,
    at: At,
) -> Result<Vec<(String, i64)>, StoreError> {
    let whole: bool = sqlx::query_scalar(
        "select (select count(*) from show_seat
                  where showtime_id = $1 and hold_id = $2 and status = 'HELD'
                    and hold_expires_at >= $3)
                = coalesce((select seat_count from seat_hold
                             where showtime_id = $1 and hold_id = $2), -1)",
    )
    .bind(showtime.get())
    .bind(hold)
    .bind(at)
    .fetch_one(&mut **tx)
    .await?;
    if !whole {
        return Ok(Vec::new());
    }
    Ok(sqlx::query_as(
        "update show_seat
            set status = 'BOOKED', booking_id = $3, hold_expires_at = null, version = version + 1
          where showtime_id = $1 and hold_id = $2 and status = 'HELD' and hold_expires_at >= $4
         returning seat_code, version",
    )
    .bind(showtime.get())
    .bind(hold)
    .bind(booking.0)
    .bind(at)
    .fetch_all(&mut **tx)
    .await?)
}

/// `on!(tx, c => body)`: runs `body` with `c` bound to the connection of `tx` (a `&mut Tx` or a
/// `&mut Conn`), whichever database it is on. The body is compiled once for each: it is for
/// statements whose text and binds read the same in both dialects.
macro_rules! on {
    ($tx:expr, $c:ident => $body:expr) => {
        match $tx {
            $crate::store::dialect::Dialect::Postgres(tx) => {
                let $c = &mut **tx;
                $body
            }
            $crate::store::dialect::Dialect::Sqlite(tx) => {
                let $c = &mut **tx;
                $body
            }
        }
    };
}
pub(super) use on;
