use super::*;

/// Claims due messages no live lease holds, first messages before resends (`again:…`: a
/// console's or a customer's), so a burst of resends never delays a first ticket; `for update skip locked`, so workers of other
/// processes claiming at the same moment pass these by.
const CLAIM: &str = "update outgoing_mail m
        set leased_until = coalesce($1::timestamptz, now()) + make_interval(secs => $2::float8),
            attempts = m.attempts + 1
      where m.id in (select id from outgoing_mail
                      where status = 'queued'
                        and next_attempt_at <= coalesce($1::timestamptz, now())
                        and (leased_until is null
                             or leased_until <= coalesce($1::timestamptz, now()))
                      order by event_id like 'again:%', next_attempt_at, id
                      limit $3
                      for update skip locked)
  returning m.id, m.booking_id, m.kind, m.attempts";

const DONE: &str = "update outgoing_mail
        set status = $3,
            sent_at = case when $3 = 'sent' then coalesce($2::timestamptz, now()) end,
            next_attempt_at = coalesce($2::timestamptz, now()) + make_interval(secs => $4::float8),
            last_error = $5,
            leased_until = null
      where id = $1 and attempts = $6 and status = 'queued'";

#[async_trait::async_trait]
impl Mail for PgStore {
    async fn claim_mail(
        &self,
        now: Now,
        lease: Duration,
        limit: i64,
    ) -> Result<Vec<MailJob>, StoreError> {
        let rows = sqlx::query_as(CLAIM)
            .bind(now)
            .bind(lease.as_secs_f64())
            .bind(limit)
            .fetch_all(&self.pool)
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
            .bind(now)
            .bind(status)
            .bind(after.as_secs_f64())
            .bind(error)
            .bind(job.attempts)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() == 1)
    }

    async fn recent_mail(&self, limit: i64) -> Result<Vec<MailRow>, StoreError> {
        recent_mail!(&self.pool, limit)
    }

    async fn mail_counts(&self) -> Result<(i64, i64), StoreError> {
        mail_counts!(&self.pool)
    }
}
