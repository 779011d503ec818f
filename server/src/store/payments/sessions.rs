//! Payment sessions at the gateway: opened at checkout, what the gateway reports about them
//! (recorded once, checked against what was asked), and those reconciliation looks up.

use super::*;

impl Store {
    /// The booking's open (PENDING) payment session, if any, how many sessions it has had (a
    /// declined payment may be followed by another) and whether one of them is PAID.
    pub async fn payment_session(&self, booking: BookingId) -> Result<PaymentSessions, StoreError> {
        // One statement, so the open session and the count are read at the same moment (two
        // checkouts racing must agree on the attempt number).
        let sessions = "select p.provider, p.provider_session_id, p.payment_url, p.amount_krw,
                               p.session_expires_at, c.n, c.paid
               from (select count(*) as n,
                            coalesce(sum(case when status = 'PAID' then 1 else 0 end), 0) as paid
                       from payment where booking_id = $1) c
               left join payment p on p.booking_id = $1 and p.status = 'PENDING'
              order by p.created_at
              limit 1";
        let row: StoredSessions = on!(&mut self.writer().await?, c => {
            sqlx::query_as(sessions).bind(booking.0).fetch_one(c).await?
        });
        Ok(row.sessions(booking))
    }

    /// Records a payment session (PENDING); recording the same session again changes nothing.
    pub async fn record_payment_session(&self, p: &PaymentSessionRow) -> Result<(), StoreError> {
        let insert = "insert into payment (id, booking_id, provider, provider_session_id,
                                           amount_krw, payment_url, session_expires_at,
                                           created_at, updated_at)
             values ($1, $2, $3, $4, $5, $6, $7, coalesce($8, current_timestamp),
                     coalesce($8, current_timestamp))
             on conflict (provider_session_id) do nothing";
        on!(&mut self.writer().await?, c => {
            sqlx::query(insert)
                .bind(uuid::Uuid::new_v4())
                .bind(p.booking.0)
                .bind(&p.provider)
                .bind(&p.session_id)
                .bind(p.amount)
                .bind(&p.payment_url)
                .bind(At(p.expires_at))
                .bind(Moment(None))
                .execute(c)
                .await?;
        });
        Ok(())
    }

    /// Records a payment's outcome once: a PENDING payment becomes PAID (with a
    /// `PaymentSucceeded` outbox event in the same transaction) or DECLINED; any repeat, even
    /// concurrent, changes nothing. A paid report whose charge does not match the session is
    /// recorded as such (it will be refunded, not confirmed).
    pub async fn record_payment_report(
        &self,
        report: &PaymentReport,
    ) -> Result<ReportOutcome, StoreError> {
        let mut tx = self.begin().await?;
        let Some(recorded) = record_report(&mut tx, report).await? else {
            let known = payment_known(&mut tx, &report.session_id).await?;
            return Ok(ReportOutcome::unrecorded(known));
        };
        let mismatch = recorded.mismatch(report);
        if let Some(mismatch) = &mismatch {
            set_mismatch(&mut tx, &report.session_id, mismatch).await?;
        }
        if report.paid {
            let event = payment_succeeded(report, recorded.booking_id, mismatch.clone());
            tx.append_event(&event).await?;
        }
        tx.commit().await?;
        Ok(ReportOutcome::recorded(mismatch.is_some()))
    }

    /// Sessions of payments still PENDING that were created more than `older_than` before
    /// `now` (reconciliation asks the gateway about them), oldest first.
    pub async fn stale_payments(
        &self,
        older_than: Duration,
        now: Now,
        limit: i64,
    ) -> Result<Vec<String>, StoreError> {
        let stale = "select provider_session_id from payment
                      where status = 'PENDING'
                        and created_at < coalesce($1, current_timestamp) - $2
                      order by created_at limit $3";
        Ok(on!(&mut self.reader().await?, c => {
            sqlx::query_scalar(stale)
                .bind(Moment(now))
                .bind(Span::from(older_than))
                .bind(limit)
                .fetch_all(c)
                .await?
        }))
    }

    /// A PENDING payment whose session expired unpaid becomes EXPIRED; nothing else changes.
    pub async fn expire_payment(&self, session_id: &str) -> Result<bool, StoreError> {
        let expire = "update payment set status = 'EXPIRED',
                                         updated_at = coalesce($2, current_timestamp)
                       where provider_session_id = $1 and status = 'PENDING'";
        let expired = on!(&mut self.writer().await?, c => {
            sqlx::query(expire)
                .bind(session_id)
                .bind(Moment(None))
                .execute(c)
                .await?
                .rows_affected()
        });
        Ok(expired == 1)
    }
}

/// The payment as the gateway reports it, unless it was recorded before (a PENDING payment, or
/// a payment paid after all that was DECLINED or EXPIRED): its booking, what that costs and
/// the currency asked in. `None`: the report changes nothing.
async fn record_report(
    tx: &mut Tx,
    report: &PaymentReport,
) -> Result<Option<Recorded>, StoreError> {
    let (status, paid_amount) = reported(report);
    let record = "update payment set status = $2, provider_payment_id = $3, paid_amount = $4,
                                     updated_at = coalesce($5, current_timestamp)
                   where provider_session_id = $1
                     and (status = 'PENDING'
                          or ($2 = 'PAID' and status in ('DECLINED', 'EXPIRED')))
               returning booking_id,
                         (select b.amount_krw from booking b where b.id = booking_id)
                             as amount_krw,
                         cast(currency as text) as currency";
    Ok(on!(tx, c => {
        sqlx::query_as(record)
            .bind(&report.session_id)
            .bind(status)
            .bind(&report.payment_id)
            .bind(paid_amount)
            .bind(Moment(None))
            .fetch_optional(c)
            .await?
    }))
}

/// Whether the gateway's session is a payment of ours.
async fn payment_known(tx: &mut Tx, session_id: &str) -> Result<bool, StoreError> {
    let known = "select 1 from payment where provider_session_id = $1";
    let known: Option<i32> = on!(tx, c => {
        sqlx::query_scalar(known).bind(session_id).fetch_optional(c).await?
    });
    Ok(known.is_some())
}

/// Records that the charge did not match what the session asked for.
async fn set_mismatch(tx: &mut Tx, session_id: &str, mismatch: &str) -> Result<(), StoreError> {
    let set = "update payment set mismatch = $2 where provider_session_id = $1";
    on!(tx, c => {
        sqlx::query(set).bind(session_id).bind(mismatch).execute(c).await?;
    });
    Ok(())
}
