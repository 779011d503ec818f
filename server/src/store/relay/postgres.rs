use super::*;

#[async_trait::async_trait]
impl Relay for PgStore {
    async fn take_relay_lease(
        &self,
        name: &str,
        owner: &str,
        lease: Duration,
    ) -> Result<bool, StoreError> {
        let taken: Option<String> = sqlx::query_scalar(
            "insert into relay_lease (name, owner, expires_at)
             values ($1, $2, now() + $3::bigint * interval '1 millisecond')
             on conflict (name) do update
                set owner = excluded.owner, expires_at = excluded.expires_at
              where relay_lease.owner = excluded.owner or relay_lease.expires_at < now()
             returning owner",
        )
        .bind(name)
        .bind(owner)
        .bind(lease.as_millis() as i64)
        .fetch_optional(&self.pool)
        .await?;
        Ok(taken.is_some())
    }

    async fn drop_relay_lease(&self, name: &str, owner: &str) -> Result<(), StoreError> {
        sqlx::query("delete from relay_lease where name = $1 and owner = $2")
            .bind(name)
            .bind(owner)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    async fn unpublished_events(&self, limit: i64) -> Result<Vec<OutboxEvent>, StoreError> {
        let rows: Vec<UnpublishedRow> = sqlx::query_as(&unpublished_sql("payload::text"))
            .bind(limit)
            .fetch_all(&self.pool)
            .await?;
        Ok(rows.into_iter().map(OutboxEvent::from).collect())
    }

    async fn mark_published(
        &self,
        name: &str,
        owner: &str,
        ids: &[i64],
    ) -> Result<u64, StoreError> {
        Ok(sqlx::query(
            "update outbox set published_at = now()
              where id = any($3) and published_at is null
                and exists (select 1 from relay_lease
                             where name = $1 and owner = $2 and expires_at >= now())",
        )
        .bind(name)
        .bind(owner)
        .bind(ids)
        .execute(&self.pool)
        .await?
        .rows_affected())
    }

    async fn unpublished_count(&self) -> Result<i64, StoreError> {
        Ok(sqlx::query_scalar(&unpublished_count_sql())
            .fetch_one(&self.pool)
            .await?)
    }
}
