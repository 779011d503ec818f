//! Test support, by concern:
//! - `db.rs`: a fresh database per test on either backend, and raw reads of what is really
//!   stored;
//! - `helpers.rs`: an engine over it with a clock the test can move, waiting on state, seat
//!   codes;
//! - `servers.rs`: a server on a random port, its clients (staff signed in, pages, the live
//!   map); `session.rs`: a browser's session, with a method per server function;
//! - `processes.rs`: real processes — the server binary, Redis (one or a cluster), the payment
//!   sandbox, an SMTP server.

/// Declares each named `async fn name(backend: Backend)` as two tests, `postgres::name` and
/// `sqlite::name`: one contract, both backends.
macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {
        mod postgres {
            $(#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $name() { super::$name(super::Backend::Postgres).await }) *
        }
        mod sqlite {
            $(#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $name() { super::$name(super::Backend::Sqlite).await }) *
        }
    };
}

mod db;
mod helpers;
mod processes;
mod servers;
mod session;

pub use db::*;
pub use helpers::*;
pub use processes::*;
pub use servers::*;
pub use session::*;

use app::domain::{SeatCode, SeatSelection, ShowtimeId};
use chrono::{TimeZone, Utc};
use server::clock::Clock;
use server::engine::Engine;
use server::seed::demo_halls;
use server::store::{PgStore, SqliteStore, Store};
use sqlx::{PgPool, SqlitePool};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;
use uuid::Uuid;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Postgres,
    Sqlite,
}
