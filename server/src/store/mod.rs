//! The store: one concrete [`Store`] over one of two databases (PostgreSQL for production, SQLite
//! for the embedded default). Each implementation keeps the same guarantees (README, "The
//! guarantees") with its own database's tools; the contract suite in `tests/it/contract.rs` runs
//! against both.
//!
//! What really differs between the dialects lives in `dialect.rs` (the transaction's begin,
//! row locks, lists bound as one parameter, the fence time, the fenced confirm, appending an
//! event, the macro that runs one statement on either database); times bind as [`Moment`] and
//! [`Span`], so most statements read the same in both. The hold statement really differs: each
//! dialect writes its own (`holds/postgres/`, `holds/sqlite.rs`).
//!
//! A capability is an `impl Store` block: each transaction a function that reads top to
//! bottom, each of its statements a private function beside it with its SQL, its lock and its
//! binds (`catalog/changes.rs`, `settlement/settle.rs`, `box_office/counter.rs`); what a
//! transaction decides is a pure function beside it (`settlement/decision.rs`,
//! `box_office/decision.rs`).
//!
//! - `catalog`: halls, layouts, showtimes, seat states;
//! - `holds`: hold, cancel, confirm, sweep, the checks checkout makes;
//! - `payments`: bookings, payment sessions, the gateway's reports, booking views;
//! - `settlement`: payment events from the outbox, settling, refunds, retries and parking;
//! - `idempotency`: customers' idempotency keys;
//! - `relay`: the relay's lease and the booking events to send;
//! - `consumers`: applying events once, tickets, sales figures;
//! - `contacts`: bookings found again by reference and e-mail, addresses purged;
//! - `box_office`: shifts, counter sales and refunds, check-in at the door;
//! - `staff`: staff accounts, their sessions and lockouts, API tokens, the audit log.
//!
//! Every method that touches seats names the showtime (the shard key). Times are passed in as
//! [`Now`]: `None` means "the database's clock", `Some(t)` an injected clock (tests).

mod box_office;
mod catalog;
mod consumers;
mod contacts;
mod dialect;
mod holds;
mod idempotency;
mod mail;
mod payments;
mod postgres;
mod relay;
mod settlement;
mod sql;
mod sqlite;
mod staff;

use app::domain::Won;
pub use box_office::*;
pub use catalog::*;
pub use consumers::*;
pub use contacts::*;
use dialect::{on, Db, Dialect, Tx};
pub use holds::*;
pub use idempotency::*;
pub use mail::*;
pub use payments::*;
pub use postgres::{PgStore, MIGRATION_COMMENT_EDITS};
pub use relay::*;
pub use settlement::*;
pub use sql::{
    seat_texts, At, BookingStatus, Ids, List, Moment, Names, PaymentStatus, SeatList, Span,
};
pub use sqlite::SqliteStore;
pub use staff::*;

/// The exact text of the PostgreSQL hold statement (the benchmark runs it in pgbench too).
pub fn postgres_hold_sql() -> &'static str {
    holds::postgres::HOLD_SQL
}

use crate::booking_events::{BookingEvent, Envelope};
use app::domain::{
    BookingId, CustomerId, HoldId, PriceCategory, SeatChange, SeatCode, SeatStatus, ShowtimeId,
    ShowtimeSummary, SoldSeat,
};
use chrono::{DateTime, Utc};
use std::time::Duration;

/// The time a statement runs at: `None` = the database's own clock.
pub type Now = Option<DateTime<Utc>>;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error(transparent)]
    Database(#[from] sqlx::Error),
    #[error(transparent)]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("stored data is inconsistent: {0}")]
    Corrupt(String),
}

/// A showtime id read as a plain number (positive by the schema: anything else is corrupt data).
/// Row structs read theirs with `#[sqlx(try_from = "i64")]`.
pub(crate) fn stored_showtime(id: i64) -> Result<ShowtimeId, StoreError> {
    ShowtimeId::try_from(id).map_err(|e| StoreError::Corrupt(e.to_string()))
}

/// A seat code read back from a column (a code the store wrote: anything else is corrupt data).
pub(crate) fn stored_seat(code: String) -> Result<SeatCode, StoreError> {
    SeatCode::try_from(code).map_err(|e| StoreError::Corrupt(e.to_string()))
}

/// A list as a JSON column keeps it — a booking's seat types and prices (`tickets`), the seats
/// it gave back (`given_back`) — none: null.
pub(crate) fn write_list<T: serde::Serialize>(items: &[T]) -> Option<String> {
    (!items.is_empty()).then(|| serde_json::to_string(items).expect("a list serialises"))
}

/// A JSON list column read back (null: none; unreadable: none, and logged).
pub(crate) fn read_list<T: serde::de::DeserializeOwned>(column: Option<&str>) -> Vec<T> {
    column
        .and_then(|text| {
            serde_json::from_str(text)
                .map_err(|e| tracing::error!(error = %e, "a booking's JSON list is unreadable"))
                .ok()
        })
        .unwrap_or_default()
}

/// Rows one purge statement deletes at most (short statements, short locks).
pub(crate) const PURGE_BATCH: i64 = 5_000;

/// An audit line written by the transaction of the action it records (money actions at the
/// counter): the line exists if and only if the action happened.
#[derive(Debug, Clone)]
pub struct AuditLine {
    pub at: At,
    pub staff_id: i64,
    pub staff_name: String,
    pub action: &'static str,
    pub detail: String,
    pub facts: Vec<app::domain::AuditFact>,
    pub address: Option<String>,
}

/// Facts as the audit table keeps them: a JSON list, or nothing for none.
pub(crate) fn facts_json(facts: &[app::domain::AuditFact]) -> Option<String> {
    (!facts.is_empty()).then(|| serde_json::to_string(facts).unwrap_or_default())
}

/// The audit log's one insert: a line written by `Store::record_staff_action`, or inside the
/// transaction of the action it records.
const RECORD_ACTION: &str = "insert into staff_audit
     (at, staff_id, staff_name, action, detail, address, facts)
     values ($1, $2, $3, $4, $5, $6, $7)";

/// Writes an audit line (in the transaction of the action it records).
async fn record_audit(tx: &mut Tx, line: &AuditLine) -> Result<(), StoreError> {
    on!(tx, c => {
        sqlx::query(RECORD_ACTION)
            .bind(line.at)
            .bind(line.staff_id)
            .bind(&line.staff_name)
            .bind(line.action)
            .bind(&line.detail)
            .bind(line.address.as_deref())
            .bind(facts_json(&line.facts))
            .execute(c)
            .await?;
    });
    Ok(())
}

/// The whole store: one of the two databases. The engine and the workers hold it directly (it is
/// cheap to clone: both dialects keep pools).
#[derive(Clone)]
pub struct Store {
    db: Db,
}

impl From<PgStore> for Store {
    fn from(store: PgStore) -> Self {
        Self {
            db: Dialect::Postgres(store),
        }
    }
}

impl From<SqliteStore> for Store {
    fn from(store: SqliteStore) -> Self {
        Self {
            db: Dialect::Sqlite(store),
        }
    }
}

impl Store {
    /// `postgres` or `sqlite`, for health output and logs.
    pub fn backend(&self) -> &'static str {
        match &self.db {
            Dialect::Postgres(_) => "postgres",
            Dialect::Sqlite(_) => "sqlite",
        }
    }

    pub async fn migrate(&self) -> Result<(), StoreError> {
        match &self.db {
            Dialect::Postgres(pg) => pg.migrate().await,
            Dialect::Sqlite(lite) => lite.migrate().await,
        }
    }

    pub async fn ping(&self) -> Result<(), StoreError> {
        match &self.db {
            Dialect::Postgres(pg) => pg.ping().await,
            Dialect::Sqlite(lite) => lite.ping().await,
        }
    }
}

/// Builds the [`SeatChange`] list from `(code, version)` rows a statement returned.
pub(crate) fn changes(
    rows: Vec<(String, i64)>,
    status: SeatStatus,
) -> Result<Vec<SeatChange>, StoreError> {
    rows.into_iter()
        .map(|(code, version)| {
            let code = SeatCode::parse(&code).map_err(|e| StoreError::Corrupt(e.to_string()))?;
            Ok(SeatChange {
                code,
                status,
                version,
            })
        })
        .collect()
}

/// The [`SeatChange`] list of seats a release put back, from `(code, version, blocked)` rows: a
/// house seat is a house seat again (never on public sale), any other is free.
pub(crate) fn released(
    rows: Vec<(String, i64, Option<String>)>,
) -> Result<Vec<SeatChange>, StoreError> {
    rows.into_iter()
        .map(|(code, version, blocked)| {
            let code = SeatCode::parse(&code).map_err(|e| StoreError::Corrupt(e.to_string()))?;
            let status = match blocked.as_deref() {
                Some("HOUSE") => SeatStatus::House,
                _ => SeatStatus::Available,
            };
            Ok(SeatChange {
                code,
                status,
                version,
            })
        })
        .collect()
}

pub(crate) fn parse_status(s: &str) -> Result<SeatStatus, StoreError> {
    SeatStatus::parse(s).ok_or_else(|| StoreError::Corrupt(format!("unknown seat status {s:?}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn charged(amount: Won, currency: &str, reference: &str) -> Charged {
        Charged {
            amount,
            currency: currency.into(),
            merchant_reference: reference.into(),
        }
    }

    #[test]
    fn a_charge_must_match_the_amount_currency_and_reference_asked_for() {
        let booking = uuid::Uuid::new_v4();
        let ours = booking.to_string();
        let asked = |c: &Charged| charge_mismatch(Some(c), Won::new(12_000), "KRW", booking);
        assert_eq!(asked(&charged(Won::new(12_000), "KRW", &ours)), None);
        assert_eq!(
            asked(&charged(Won::new(12_000), "krw", &ours)),
            None,
            "case of the code"
        );
        assert!(asked(&charged(Won::new(1), "KRW", &ours))
            .unwrap()
            .contains("amount 1"));
        assert!(asked(&charged(Won::new(12_000), "USD", &ours))
            .unwrap()
            .contains("currency"));
        let other = uuid::Uuid::new_v4().to_string();
        assert!(asked(&charged(Won::new(12_000), "KRW", &other))
            .unwrap()
            .contains("reference"));
        assert_eq!(
            charge_mismatch(None, Won::new(12_000), "KRW", booking),
            None,
            "not reported"
        );
    }
}
