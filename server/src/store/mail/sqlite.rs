use super::*;

/// Claims due messages no live lease holds, first messages before resends (`again:…`: a
/// console's or a customer's), so a burst of resends never delays a first ticket (one writer at a time: nobody else claims them).
const CLAIM: &str = "update outgoing_mail
        set leased_until = $1 + $2, attempts = attempts + 1
      where id in (select id from outgoing_mail
                    where status = 'queued' and next_attempt_at <= $1
                      and (leased_until is null or leased_until <= $1)
                    order by event_id like 'again:%', next_attempt_at, id
                    limit $3)
  returning id, booking_id, kind, attempts";

const DONE: &str = "update outgoing_mail
        set status = $3,
            sent_at = case when $3 = 'sent' then $2 end,
            next_attempt_at = $2 + $4,
            last_error = $5,
            leased_until = null
      where id = $1 and attempts = $6 and status = 'queued'";

#[async_trait::async_trait]
impl Mail for SqliteStore {
    async fn claim_mail(
        &self,
        now: Now,
        lease: Duration,
        limit: i64,
    ) -> Result<Vec<MailJob>, StoreError> {
        let rows = sqlx::query_as(CLAIM)
            .bind(At::or_now(now))
            .bind(lease.as_millis() as i64)
            .bind(limit)
            .fetch_all(&self.write)
            .await?;
        jobs(rows)
    }

    async fn mail_done(
        &self,
        job: &MailJob,
        now: Now,
        outcome: &MailOutcome,
    ) -> Result<bool, StoreError> {
        let (status, after, error) = outcome.columns();
        let done = sqlx::query(DONE)
            .bind(job.id)
            .bind(At::or_now(now))
            .bind(status)
            .bind(after.as_millis() as i64)
            .bind(error)
            .bind(job.attempts)
            .execute(&self.write)
            .await?;
        Ok(done.rows_affected() == 1)
    }

    async fn recent_mail(&self, limit: i64) -> Result<Vec<MailRow>, StoreError> {
        recent_mail!(&self.read, limit)
    }

    async fn mail_counts(&self) -> Result<(i64, i64), StoreError> {
        mail_counts!(&self.read)
    }
}
