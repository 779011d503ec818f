use super::*;

#[async_trait::async_trait]
impl Relay for SqliteStore {
    async fn take_relay_lease(
        &self,
        name: &str,
        owner: &str,
        lease: Duration,
    ) -> Result<bool, StoreError> {
        let now = At::or_now(None);
        let taken: Option<String> = sqlx::query_scalar(
            "insert into relay_lease (name, owner, expires_at) values ($1, $2, $3 + $4)
             on conflict (name) do update
                set owner = excluded.owner, expires_at = excluded.expires_at
              where relay_lease.owner = excluded.owner or relay_lease.expires_at < $3
             returning owner",
        )
        .bind(name)
        .bind(owner)
        .bind(now)
        .bind(lease.as_millis() as i64)
        .fetch_optional(&self.write)
        .await?;
        Ok(taken.is_some())
    }

    async fn drop_relay_lease(&self, name: &str, owner: &str) -> Result<(), StoreError> {
        sqlx::query("delete from relay_lease where name = $1 and owner = $2")
            .bind(name)
            .bind(owner)
            .execute(&self.write)
            .await?;
        Ok(())
    }

    async fn unpublished_events(&self, limit: i64) -> Result<Vec<OutboxEvent>, StoreError> {
        let rows: Vec<UnpublishedRow> = sqlx::query_as(&unpublished_sql("payload"))
            .bind(limit)
            .fetch_all(&self.read)
            .await?;
        Ok(rows.into_iter().map(OutboxEvent::from).collect())
    }

    async fn mark_published(
        &self,
        name: &str,
        owner: &str,
        ids: &[i64],
    ) -> Result<u64, StoreError> {
        let now = At::or_now(None);
        Ok(sqlx::query(
            "update outbox set published_at = $3
              where id in (select value from json_each($4)) and published_at is null
                and exists (select 1 from relay_lease
                             where name = $1 and owner = $2 and expires_at >= $3)",
        )
        .bind(name)
        .bind(owner)
        .bind(now)
        .bind(serde_json::to_string(ids).expect("numbers serialise"))
        .execute(&self.write)
        .await?
        .rows_affected())
    }

    async fn unpublished_count(&self) -> Result<i64, StoreError> {
        Ok(sqlx::query_scalar(&unpublished_count_sql())
            .fetch_one(&self.read)
            .await?)
    }
}
