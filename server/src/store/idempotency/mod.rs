//! Idempotency keys: a customer's key claimed durably before its request runs, answered again
//! for a repeat, refused for another request or while the first still runs.

mod postgres;
mod sqlite;

use super::*;

/// What an idempotency key says about a request that carries it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdempotencyBegin {
    /// First use (or the old one lapsed): run the request, then finish or abandon the key.
    Started,
    /// The same request finished before: answer this again.
    Replay { status: u16, body: String },
    /// The same key is being used by a request that is still running.
    InFlight,
    /// The key was used with a different request.
    Mismatch,
}

/// A key's request done: its answer kept for repeats.
const FINISH_KEY: &str =
    "update idempotency_key set state = 'DONE', response_status = $3, response_body = $4
      where customer_id = $1 and key = $2";
/// A key whose request failed before answering: forgotten, so a retry runs it again.
const ABANDON_KEY: &str =
    "delete from idempotency_key where customer_id = $1 and key = $2 and state = 'IN_FLIGHT'";

/// How long an idempotency key is kept.
pub const IDEMPOTENCY_KEEP: chrono::Duration = chrono::Duration::hours(24);

/// A request still IN_FLIGHT after this long is taken to have died; its key may be used again.
pub const IDEMPOTENCY_IN_FLIGHT_LIMIT: chrono::Duration = chrono::Duration::minutes(2);

/// [`IdempotencyBegin`] for a key already stored with `(fingerprint, state, status, body)`.
pub(crate) fn idempotency_verdict(
    fingerprint: &str,
    stored: (String, String, Option<i32>, Option<String>),
) -> IdempotencyBegin {
    let (stored_fingerprint, state, status, body) = stored;
    if stored_fingerprint != fingerprint {
        return IdempotencyBegin::Mismatch;
    }
    match (state.as_str(), status, body) {
        ("DONE", Some(status), Some(body)) => IdempotencyBegin::Replay {
            status: status as u16,
            body,
        },
        _ => IdempotencyBegin::InFlight,
    }
}

#[async_trait::async_trait]
pub trait Idempotency: Send + Sync {
    /// Claims `key` for a request with this `fingerprint` (see [`IdempotencyBegin`]).
    async fn idempotency_begin(
        &self,
        customer: CustomerId,
        key: &str,
        fingerprint: &str,
        now: Now,
    ) -> Result<IdempotencyBegin, StoreError>;

    /// Deletes keys older than [`IDEMPOTENCY_KEEP`] at `now`; how many.
    async fn purge_idempotency_keys(&self, now: Now) -> Result<u64, StoreError>;
}

/// Ending a claimed key, the same statements in both dialects (`idempotency_outcome!`).
#[async_trait::async_trait]
pub trait IdempotencyOutcome: Send + Sync {
    /// Stores the answer of the request that claimed `key`.
    async fn idempotency_finish(
        &self,
        customer: CustomerId,
        key: &str,
        status: u16,
        body: &str,
    ) -> Result<(), StoreError>;

    /// Frees `key` after a failure worth retrying (nothing was decided).
    async fn idempotency_abandon(&self, customer: CustomerId, key: &str) -> Result<(), StoreError>;
}

/// `impl IdempotencyOutcome for $store`, writing through `self.$write`.
macro_rules! idempotency_outcome {
    ($store:ty, $write:ident) => {
        #[async_trait::async_trait]
        impl IdempotencyOutcome for $store {
            async fn idempotency_finish(
                &self,
                customer: CustomerId,
                key: &str,
                status: u16,
                body: &str,
            ) -> Result<(), StoreError> {
                sqlx::query(FINISH_KEY)
                    .bind(customer.0)
                    .bind(key)
                    .bind(i32::from(status))
                    .bind(body)
                    .execute(&self.$write)
                    .await?;
                Ok(())
            }

            async fn idempotency_abandon(
                &self,
                customer: CustomerId,
                key: &str,
            ) -> Result<(), StoreError> {
                let abandon = sqlx::query(ABANDON_KEY).bind(customer.0).bind(key);
                abandon.execute(&self.$write).await?;
                Ok(())
            }
        }
    };
}

// impl IdempotencyOutcome for PgStore, and for SqliteStore:
idempotency_outcome!(PgStore, pool);
idempotency_outcome!(SqliteStore, write);
