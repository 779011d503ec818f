use super::*;

#[async_trait::async_trait]
impl Idempotency for PgStore {
    async fn idempotency_begin(
        &self,
        customer: CustomerId,
        key: &str,
        fingerprint: &str,
        now: Now,
    ) -> Result<IdempotencyBegin, StoreError> {
        // A key past its 24 hours, or held by a request that died, is free again.
        sqlx::query(
            "delete from idempotency_key
              where customer_id = $1 and key = $2
                and (created_at < coalesce($3::timestamptz, now()) - $4::interval
                     or (state = 'IN_FLIGHT' and created_at < coalesce($3::timestamptz, now()) - $5::interval))",
        )
        .bind(customer.0)
        .bind(key)
        .bind(now)
        .bind(IDEMPOTENCY_KEEP)
        .bind(IDEMPOTENCY_IN_FLIGHT_LIMIT)
        .execute(&self.pool)
        .await?;
        let claimed = sqlx::query(
            "insert into idempotency_key (customer_id, key, fingerprint, created_at)
             values ($1, $2, $3, coalesce($4::timestamptz, now())) on conflict do nothing",
        )
        .bind(customer.0)
        .bind(key)
        .bind(fingerprint)
        .bind(now)
        .execute(&self.pool)
        .await?
        .rows_affected()
            == 1;
        if claimed {
            return Ok(IdempotencyBegin::Started);
        }
        let stored: Option<(String, String, Option<i32>, Option<String>)> = sqlx::query_as(
            "select fingerprint, state, response_status, response_body
               from idempotency_key where customer_id = $1 and key = $2",
        )
        .bind(customer.0)
        .bind(key)
        .fetch_optional(&self.pool)
        .await?;
        // Gone between the two statements (abandoned): the caller may simply try again.
        Ok(stored.map_or(IdempotencyBegin::InFlight, |s| {
            idempotency_verdict(fingerprint, s)
        }))
    }

    async fn purge_idempotency_keys(&self, now: Now) -> Result<u64, StoreError> {
        Ok(sqlx::query(
            "delete from idempotency_key where created_at < coalesce($1::timestamptz, now()) - $2::interval",
        )
        .bind(now)
        .bind(IDEMPOTENCY_KEEP)
        .execute(&self.pool)
        .await?
        .rows_affected())
    }
}
