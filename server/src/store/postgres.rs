//! The PostgreSQL store. Each seat operation is a single statement: it locks the rows it needs
//! in seat-code order (`for update`, so overlapping holds queue instead of deadlocking), decides
//! in the database, and writes. One statement = one round trip and a row lock held for as long
//! as the statement runs, never while a person or a gateway is waited on. The capabilities'
//! statements are in `<capability>/postgres.rs`.

use super::*;
use sqlx::postgres::{PgPool, PgPoolOptions};

pub struct PgStore {
    pub(super) pool: PgPool,
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
}

/// Writes `event` to the outbox in `tx`: it exists (and is published) only if `tx` commits.
pub(super) async fn append_event(
    tx: &mut sqlx::Transaction<'_, sqlx::Postgres>,
    event: &Envelope,
) -> Result<(), StoreError> {
    sqlx::query(
        "insert into outbox (aggregate_id, event_type, payload) values ($1, $2, $3::jsonb)",
    )
    .bind(event.booking_id)
    .bind(event.event.kind())
    .bind(event.to_json())
    .execute(&mut **tx)
    .await?;
    Ok(())
}
