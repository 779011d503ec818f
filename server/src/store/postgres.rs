//! The PostgreSQL store. Each seat operation is a single statement: it locks the rows it needs
//! in seat-code order (`for update`, so overlapping holds queue instead of deadlocking), decides
//! in the database, and writes. One statement = one round trip and a row lock held for as long
//! as the statement runs, never while a person or a gateway is waited on. The capabilities'
//! statements are in `<capability>/postgres.rs`.

use super::*;
use sqlx::postgres::{PgPool, PgPoolOptions};

#[derive(Clone)]
pub struct PgStore {
    pub(super) pool: PgPool,
    /// Straight to PostgreSQL when `pool` goes through a pooler in transaction mode: the
    /// migrations hold an advisory lock for their session, which only a real session keeps.
    direct_url: Option<String>,
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
        Ok(Self {
            pool,
            direct_url: None,
        })
    }

    /// Runs the migrations over `url` (`DATABASE_DIRECT_URL`) instead of the pool's.
    pub fn with_direct_url(mut self, url: Option<String>) -> Self {
        self.direct_url = url;
        self
    }

    pub fn pool(&self) -> &PgPool {
        &self.pool
    }

    pub(super) async fn migrate(&self) -> Result<(), StoreError> {
        let migrator = sqlx::migrate!("../migrations/postgres");
        let direct = match &self.direct_url {
            Some(url) => Some(PgPoolOptions::new().max_connections(1).connect(url).await?),
            None => None,
        };
        let pool = direct.as_ref().unwrap_or(&self.pool);
        accept_comment_edits(pool, &migrator).await?;
        migrator.run(pool).await?;
        if let Some(direct) = direct {
            direct.close().await;
        }
        Ok(())
    }

    pub(super) async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query("select 1").execute(&self.pool).await?;
        Ok(())
    }
}

/// Migrations whose comments were reworded after databases had applied them: the version and
/// the checksum (SHA-384 of the file) it had before. sqlx refuses to start on a database whose
/// recorded checksum differs from the file's, so the recorded one is moved to the new text — but
/// only where it is exactly the old text's: any other difference still stops the start.
/// Only ever add edits that change comments and nothing else.
pub const MIGRATION_COMMENT_EDITS: &[(i64, &str)] = &[
    (
        20261129000001,
        "2a2e91a89ecc6354a9d8525a03e788bf499778762940b494478e99039383893caf4e223b27828154efeb8def70a2bed4",
    ),
    (
        20261130000001,
        "821709a924e1ca427bfe50830393a8e938417c49eedf9ea66b581b9dd5807ab2de2d4f702ab85c54bd96581a399764c8",
    ),
    (
        20261130000002,
        "9cd6348c905ba494a0e0f609974c5e2903833175b9e3ea9c8b49ee4f5c5ecffc0f4276204efc43fdf58b978d71d6b565",
    ),
];

/// Records the current checksum of each migration in [`MIGRATION_COMMENT_EDITS`] where the database
/// applied its previous text.
async fn accept_comment_edits(
    pool: &PgPool,
    migrator: &sqlx::migrate::Migrator,
) -> Result<(), StoreError> {
    let applied: Option<String> =
        sqlx::query_scalar("select to_regclass('_sqlx_migrations')::text")
            .fetch_one(pool)
            .await?;
    if applied.is_none() {
        return Ok(());
    }
    for (version, before) in MIGRATION_COMMENT_EDITS {
        let Some(migration) = migrator.iter().find(|m| m.version == *version) else {
            continue;
        };
        sqlx::query(
            "update _sqlx_migrations set checksum = $2
              where version = $1 and checksum = decode($3, 'hex')",
        )
        .bind(version)
        .bind(&*migration.checksum)
        .bind(before)
        .execute(pool)
        .await?;
    }
    Ok(())
}
