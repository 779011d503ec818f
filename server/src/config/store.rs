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
        Ok(Self {
            database,
            data_dir,
            demo_data: env.flag("DEMO_DATA", true)?,
            db_max_connections: env
                .whole("DB_MAX_CONNECTIONS", 32)?
                .try_into()
                .context("DB_MAX_CONNECTIONS is too large")?,
        })
    }

    /// PostgreSQL: production, where shared secrets are required.
    pub fn is_production(&self) -> bool {
        matches!(self.database, Database::Postgres(_))
    }
}
