//! Where the data lives.

use super::Env;
use anyhow::{bail, Context};
use std::path::PathBuf;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Database {
    /// `sqlite://…` or the embedded default file.
    Sqlite(String),
    Postgres(String),
}

#[derive(Clone, Debug)]
pub struct StoreConfig {
    pub database: Database,
    /// The embedded database, generated secrets, kept files (`DATA_DIR`, default `data`).
    pub data_dir: PathBuf,
    /// Create demo halls and showtimes when the database has no hall.
    pub demo_data: bool,
    /// Largest number of database connections this process opens (PostgreSQL).
    pub db_max_connections: u32,
    /// A connection straight to PostgreSQL (`DATABASE_DIRECT_URL`) when `DATABASE_URL` goes
    /// through a pooler in transaction mode (PgBouncer): the migrations' lock and the outbox's
    /// `LISTEN` hold a session, which such a pooler does not keep. Unset: `DATABASE_URL`.
    pub direct_url: Option<String>,
}

impl StoreConfig {
    pub(super) fn from_env(env: &Env) -> anyhow::Result<Self> {
        let data_dir = PathBuf::from(env.get("DATA_DIR").unwrap_or_else(|| "data".into()));
        let database = match env.get("DATABASE_URL").filter(|s| !s.is_empty()) {
            None => Database::Sqlite(format!("sqlite://{}", data_dir.join("seats.db").display())),
            Some(url) if url.starts_with("sqlite:") => Database::Sqlite(url),
            Some(url) if url.starts_with("postgres://") || url.starts_with("postgresql://") => {
                Database::Postgres(url)
            }
            Some(_) => bail!("DATABASE_URL must start with sqlite:, postgres:// or postgresql://"),
        };
        let direct_url = match (env.non_empty("DATABASE_DIRECT_URL"), &database) {
            (None, _) => None,
            (Some(url), Database::Postgres(_))
                if url.starts_with("postgres://") || url.starts_with("postgresql://") =>
            {
                Some(url)
            }
            (Some(_), Database::Postgres(_)) => {
                bail!("DATABASE_DIRECT_URL must start with postgres:// or postgresql://")
            }
            (Some(_), Database::Sqlite(_)) => {
                bail!("DATABASE_DIRECT_URL is for PostgreSQL behind a pooler; DATABASE_URL is not PostgreSQL")
            }
        };
        Ok(Self {
            database,
            data_dir,
            demo_data: env.flag("DEMO_DATA", true)?,
            db_max_connections: env
                .whole("DB_MAX_CONNECTIONS", 32)?
                .try_into()
                .context("DB_MAX_CONNECTIONS is too large")?,
            direct_url,
        })
    }

    /// PostgreSQL: production, where shared secrets are required.
    pub fn is_production(&self) -> bool {
        matches!(self.database, Database::Postgres(_))
    }

    /// Where sessions that must stay on one server connection go (PostgreSQL only).
    pub fn session_url(&self) -> Option<&str> {
        match &self.database {
            Database::Postgres(url) => Some(self.direct_url.as_deref().unwrap_or(url)),
            Database::Sqlite(_) => None,
        }
    }
}
