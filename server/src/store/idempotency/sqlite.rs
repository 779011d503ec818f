use super::*;

#[async_trait::async_trait]
impl Idempotency for SqliteStore {
    async fn idempotency_begin(
        &self,
        customer: CustomerId,
        key: &str,
        fingerprint: &str,
        now: Now,
    ) -> Result<IdempotencyBegin, StoreError> {
        let at = At::or_now(now);
        let mut tx = self.write.begin_with("BEGIN IMMEDIATE").await?;
        // A key past its 24 hours, or held by a request that died, is free again.
        sqlx::query(
            "delete from idempotency_key
              where customer_id = $1 and key = $2
                and (created_at < $3 - $4 or (state = 'IN_FLIGHT' and created_at < $3 - $5))",
        )
        .bind(customer.0)
        .bind(key)
        .bind(at)
        .bind(IDEMPOTENCY_KEEP.num_milliseconds())
        .bind(IDEMPOTENCY_IN_FLIGHT_LIMIT.num_milliseconds())
        .execute(&mut *tx)
        .await?;
        let stored: Option<(String, String, Option<i32>, Option<String>)> = sqlx::query_as(
            "select fingerprint, state, response_status, response_body
               from idempotency_key where customer_id = $1 and key = $2",
        )
        .bind(customer.0)
        .bind(key)
        .fetch_optional(&mut *tx)
        .await?;
        let verdict = match stored {
            Some(stored) => idempotency_verdict(fingerprint, stored),
            None => {
                sqlx::query(
                    "insert into idempotency_key (customer_id, key, fingerprint, created_at)
                     values ($1, $2, $3, $4)",
                )
                .bind(customer.0)
                .bind(key)
                .bind(fingerprint)
                .bind(at)
                .execute(&mut *tx)
                .await?;
                IdempotencyBegin::Started
            }
        };
        tx.commit().await?;
        Ok(verdict)
    }

    async fn purge_idempotency_keys(&self, now: Now) -> Result<u64, StoreError> {
        Ok(
            sqlx::query("delete from idempotency_key where created_at < $1 - $2")
                .bind(At::or_now(now))
                .bind(IDEMPOTENCY_KEEP.num_milliseconds())
                .execute(&self.write)
                .await?
                .rows_affected(),
        )
    }
}
