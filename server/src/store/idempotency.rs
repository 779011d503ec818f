//! Idempotency keys: a customer's key claimed durably before its request runs, answered again
//! for a repeat, refused for another request or while the first still runs.

use super::dialect::on;
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

/// How long an idempotency key is kept.
pub const IDEMPOTENCY_KEEP: chrono::Duration = chrono::Duration::hours(24);

/// A request still IN_FLIGHT after this long is taken to have died; its key may be used again.
pub const IDEMPOTENCY_IN_FLIGHT_LIMIT: chrono::Duration = chrono::Duration::minutes(2);

/// A key as stored: fingerprint, state, and the answer once done.
type StoredKey = (String, String, Option<i32>, Option<String>);

impl Store {
    /// Claims `key` for a request with this `fingerprint` (see [`IdempotencyBegin`]).
    pub async fn idempotency_begin(
        &self,
        customer: CustomerId,
        key: &str,
        fingerprint: &str,
        now: Now,
    ) -> Result<IdempotencyBegin, StoreError> {
        let mut tx = self.begin().await?;
        free_lapsed_key(&mut tx, customer, key, now).await?;
        let verdict = if claim_key(&mut tx, customer, key, fingerprint, now).await? {
            IdempotencyBegin::Started
        } else {
            // Gone since the claim was refused (abandoned): the caller may simply try again.
            read_key(&mut tx, customer, key)
                .await?
                .map_or(IdempotencyBegin::InFlight, |stored| {
                    idempotency_verdict(fingerprint, stored)
                })
        };
        tx.commit().await?;
        Ok(verdict)
    }

    /// Stores the answer of the request that claimed `key`.
    pub async fn idempotency_finish(
        &self,
        customer: CustomerId,
        key: &str,
        status: u16,
        body: &str,
    ) -> Result<(), StoreError> {
        let finish = "update idempotency_key
                         set state = 'DONE', response_status = $3, response_body = $4
                       where customer_id = $1 and key = $2";
        on!(&mut self.writer().await?, c => {
            sqlx::query(finish)
                .bind(customer.0)
                .bind(key)
                .bind(i32::from(status))
                .bind(body)
                .execute(c)
                .await?;
        });
        Ok(())
    }

    /// Frees `key` after a failure worth retrying (nothing was decided), so a retry runs the
    /// request again.
    pub async fn idempotency_abandon(
        &self,
        customer: CustomerId,
        key: &str,
    ) -> Result<(), StoreError> {
        let abandon = "delete from idempotency_key
                        where customer_id = $1 and key = $2 and state = 'IN_FLIGHT'";
        on!(&mut self.writer().await?, c => {
            sqlx::query(abandon).bind(customer.0).bind(key).execute(c).await?;
        });
        Ok(())
    }

    /// Deletes keys older than [`IDEMPOTENCY_KEEP`] at `now`; how many.
    pub async fn purge_idempotency_keys(&self, now: Now) -> Result<u64, StoreError> {
        let purge = "delete from idempotency_key
                      where created_at < coalesce($1, current_timestamp) - $2";
        let deleted = on!(&mut self.writer().await?, c => {
            sqlx::query(purge)
                .bind(Moment(now))
                .bind(Span(IDEMPOTENCY_KEEP))
                .execute(c)
                .await?
                .rows_affected()
        });
        Ok(deleted)
    }
}

/// A key past its 24 hours, or held by a request that died, is free again.
async fn free_lapsed_key(
    tx: &mut Tx,
    customer: CustomerId,
    key: &str,
    now: Now,
) -> Result<(), StoreError> {
    let free = "delete from idempotency_key
                 where customer_id = $1 and key = $2
                   and (created_at < coalesce($3, current_timestamp) - $4
                        or (state = 'IN_FLIGHT'
                            and created_at < coalesce($3, current_timestamp) - $5))";
    on!(tx, c => {
        sqlx::query(free)
            .bind(customer.0)
            .bind(key)
            .bind(Moment(now))
            .bind(Span(IDEMPOTENCY_KEEP))
            .bind(Span(IDEMPOTENCY_IN_FLIGHT_LIMIT))
            .execute(c)
            .await?;
    });
    Ok(())
}

/// Claims `key` unless it is stored already; whether it was claimed. On PostgreSQL a claim made
/// by a transaction still open waits for it, so the key is then read as that one left it.
async fn claim_key(
    tx: &mut Tx,
    customer: CustomerId,
    key: &str,
    fingerprint: &str,
    now: Now,
) -> Result<bool, StoreError> {
    let claim = "insert into idempotency_key (customer_id, key, fingerprint, created_at)
                 values ($1, $2, $3, coalesce($4, current_timestamp))
                 on conflict do nothing";
    let claimed = on!(tx, c => {
        sqlx::query(claim)
            .bind(customer.0)
            .bind(key)
            .bind(fingerprint)
            .bind(Moment(now))
            .execute(c)
            .await?
            .rows_affected()
    });
    Ok(claimed == 1)
}

async fn read_key(
    tx: &mut Tx,
    customer: CustomerId,
    key: &str,
) -> Result<Option<StoredKey>, StoreError> {
    let read = "select fingerprint, state, response_status, response_body
                  from idempotency_key where customer_id = $1 and key = $2";
    let stored: Option<StoredKey> = on!(tx, c => {
        sqlx::query_as(read)
            .bind(customer.0)
            .bind(key)
            .fetch_optional(c)
            .await?
    });
    Ok(stored)
}

/// [`IdempotencyBegin`] for a key already stored.
fn idempotency_verdict(fingerprint: &str, stored: StoredKey) -> IdempotencyBegin {
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
