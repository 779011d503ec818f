//! The embedded SQLite store. SQLite has one writer at a time, so each seat operation is a short
//! `BEGIN IMMEDIATE` transaction on the single write connection: the conditional UPDATE (with
//! lazy expiry in its WHERE) runs, its row count is compared with the request, and anything short
//! of all rolls back. Reads use a separate pool and never wait for the writer (WAL mode).
//! With no database server, "the database's clock" is this process's clock. The capabilities'
//! statements are in `<capability>/sqlite.rs`.

use super::*;
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};
use std::str::FromStr;

#[derive(Clone)]
pub struct SqliteStore {
    pub(super) write: SqlitePool,
    pub(super) read: SqlitePool,
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

    pub(super) async fn migrate(&self) -> Result<(), StoreError> {
        sqlx::migrate!("../migrations/sqlite")
            .run(&self.write)
            .await?;
        Ok(())
    }

    pub(super) async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query("select 1").execute(&self.read).await?;
        Ok(())
    }
}
