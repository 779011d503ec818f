use super::*;
use crate::store::postgres::append_event;

/// A payment-report transaction on PostgreSQL.
struct PgReport<'a>(sqlx::Transaction<'a, sqlx::Postgres>);

impl report::ReportSteps for PgReport<'_> {
    report_steps!();
}

#[async_trait::async_trait]
impl Payments for PgStore {
    async fn booking_for_hold(&self, new: &NewBooking) -> Result<BookingRow, StoreError> {
        let seats = SeatList(new.seats.iter().map(|s| s.to_string()).collect());
        sqlx::query(
            "insert into booking (id, showtime_id, hold_id, customer_id, seats, amount_krw, email,
                                  language, tickets)
             values ($1, $2, $3, $4, $5, $6, $7, $8, $9)
             on conflict (hold_id) do update
                set email = coalesce(excluded.email, booking.email),
                    language = coalesce(excluded.language, booking.language)
              where booking.status = 'PENDING' and excluded.email is not null
                and (booking.tickets is null or booking.tickets = excluded.tickets)
                and not exists (select 1 from payment p
                                 where p.booking_id = booking.id and p.status = 'PAID')",
        )
        .bind(new.id.0)
        .bind(new.hold.showtime_id().get())
        .bind(new.hold.as_uuid())
        .bind(new.customer.0)
        .bind(seats)
        .bind(new.amount)
        .bind(new.email.as_deref())
        .bind(new.language.as_deref())
        .bind(crate::store::write_tickets(&new.tickets))
        .execute(&self.pool)
        .await?;
        let row: StoredBookingOfHold = sqlx::query_as(BOOKING_OF_HOLD)
            .bind(new.hold.as_uuid())
            .fetch_one(&self.pool)
            .await?;
        Ok(row.into())
    }

    async fn payment_session(&self, booking: BookingId) -> Result<PaymentSessions, StoreError> {
        // One statement, so the open session and the count are read at the same moment (two
        // checkouts racing must agree on the attempt number).
        let row: StoredSessions = sqlx::query_as(
            "select p.provider, p.provider_session_id, p.payment_url, p.amount_krw,
                    p.session_expires_at, c.n, c.paid
               from (select count(*) as n, count(*) filter (where status = 'PAID') as paid
                       from payment where booking_id = $1) c
               left join payment p on p.booking_id = $1 and p.status = 'PENDING'
              order by p.created_at
              limit 1",
        )
        .bind(booking.0)
        .fetch_one(&self.pool)
        .await?;
        Ok(row.sessions(booking))
    }

    async fn record_payment_session(&self, p: &PaymentSessionRow) -> Result<(), StoreError> {
        sqlx::query(
            "insert into payment (id, booking_id, provider, provider_session_id, amount_krw,
                                  payment_url, session_expires_at)
             values ($1, $2, $3, $4, $5, $6, $7) on conflict (provider_session_id) do nothing",
        )
        .bind(uuid::Uuid::new_v4())
        .bind(p.booking.0)
        .bind(&p.provider)
        .bind(&p.session_id)
        .bind(p.amount)
        .bind(&p.payment_url)
        .bind(At(p.expires_at))
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn record_payment_report(
        &self,
        report: &PaymentReport,
    ) -> Result<ReportOutcome, StoreError> {
        let (status, paid_amount) = reported(report);
        let mut tx = PgReport(self.pool.begin().await?);
        let recorded: Option<Recorded> = sqlx::query_as(
            "update payment set status = $2, provider_payment_id = $3, paid_amount = $4,
                                updated_at = now()
              where provider_session_id = $1
                and (status = 'PENDING' or ($2 = 'PAID' and status in ('DECLINED', 'EXPIRED')))
             returning booking_id, (select b.amount_krw from booking b where b.id = booking_id),
                       currency::text",
        )
        .bind(&report.session_id)
        .bind(status)
        .bind(&report.payment_id)
        .bind(paid_amount)
        .fetch_optional(&mut *tx.0)
        .await?;
        report::finish_report(tx, report, recorded).await
    }

    async fn bookings(&self, filter: BookingFilter) -> Result<Vec<BookingRecord>, StoreError> {
        let rows: Vec<StoredBooking> = sqlx::query_as(&filter.select())
            .bind(filter.key())
            .fetch_all(&self.pool)
            .await?;
        let mut out = Vec::with_capacity(rows.len());
        for row in rows {
            let payments = sqlx::query_as(PAYMENTS_OF_BOOKING).bind(row.id);
            out.push(row.record(payments.fetch_all(&self.pool).await?));
        }
        Ok(out)
    }

    async fn stale_payments(
        &self,
        older_than: Duration,
        now: Now,
        limit: i64,
    ) -> Result<Vec<String>, StoreError> {
        Ok(sqlx::query_scalar(
            "select provider_session_id from payment
              where status = 'PENDING'
                and created_at < coalesce($1::timestamptz, now()) - $2::bigint * interval '1 millisecond'
              order by created_at limit $3",
        )
        .bind(now)
        .bind(older_than.as_millis() as i64)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?)
    }

    async fn expire_payment(&self, session_id: &str) -> Result<bool, StoreError> {
        Ok(sqlx::query(
            "update payment set status = 'EXPIRED', updated_at = now()
              where provider_session_id = $1 and status = 'PENDING'",
        )
        .bind(session_id)
        .execute(&self.pool)
        .await?
        .rows_affected()
            == 1)
    }
}
