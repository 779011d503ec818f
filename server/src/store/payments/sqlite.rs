use super::*;
use crate::store::sqlite::{from_millis, json_codes, millis, now_ms};

#[async_trait::async_trait]
impl Payments for SqliteStore {
    async fn booking_for_hold(&self, new: &NewBooking) -> Result<BookingRow, StoreError> {
        let now = millis(Utc::now());
        sqlx::query(
            "insert into booking (id, showtime_id, hold_id, customer_id, seats, amount_krw,
                                  created_at, updated_at)
             values (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7) on conflict (hold_id) do nothing",
        )
        .bind(new.id.0)
        .bind(new.hold.showtime_id().0)
        .bind(new.hold.as_uuid())
        .bind(new.customer.0)
        .bind(json_codes(&new.seats))
        .bind(new.amount)
        .bind(now)
        .execute(&self.write)
        .await?;
        let (id, status, amount): (uuid::Uuid, String, i64) =
            sqlx::query_as("select id, status, amount_krw from booking where hold_id = ?1")
                .bind(new.hold.as_uuid())
                .fetch_one(&self.write)
                .await?;
        Ok(BookingRow {
            id: BookingId(id),
            status,
            amount,
        })
    }

    async fn payment_session(&self, booking: BookingId) -> Result<PaymentSessions, StoreError> {
        // One statement, so the open session and the count are read at the same moment (two
        // checkouts racing must agree on the attempt number).
        let row: (
            Option<String>,
            Option<String>,
            Option<String>,
            Option<i64>,
            Option<i64>,
            i64,
            i64,
        ) = sqlx::query_as(
            "select p.provider, p.provider_session_id, p.payment_url, p.amount_krw,
                        p.session_expires_at, c.n, c.paid
                   from (select count(*) as n, coalesce(sum(status = 'PAID'), 0) as paid
                           from payment where booking_id = ?1) c
                   left join payment p on p.booking_id = ?1 and p.status = 'PENDING'
                  order by p.created_at
                  limit 1",
        )
        .bind(booking.0)
        .fetch_one(&self.write)
        .await?;
        let (provider, session_id, payment_url, amount, expires_at, count, paid) = row;
        let open = match (provider, session_id, payment_url, amount, expires_at) {
            (
                Some(provider),
                Some(session_id),
                Some(payment_url),
                Some(amount),
                Some(expires_at),
            ) => Some(PaymentSessionRow {
                booking,
                provider,
                session_id,
                payment_url,
                amount,
                expires_at: from_millis(expires_at)?,
            }),
            _ => None,
        };
        Ok(PaymentSessions {
            open,
            count,
            paid: paid > 0,
        })
    }

    async fn record_payment_session(&self, p: &PaymentSessionRow) -> Result<(), StoreError> {
        let now = millis(Utc::now());
        sqlx::query(
            "insert into payment (id, booking_id, provider, provider_session_id, amount_krw,
                                  payment_url, session_expires_at, created_at, updated_at)
             values (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8) on conflict (provider_session_id) do nothing",
        )
        .bind(uuid::Uuid::new_v4())
        .bind(p.booking.0)
        .bind(&p.provider)
        .bind(&p.session_id)
        .bind(p.amount)
        .bind(&p.payment_url)
        .bind(millis(p.expires_at))
        .bind(now)
        .execute(&self.write)
        .await?;
        Ok(())
    }

    async fn record_payment_report(
        &self,
        report: &PaymentReport,
    ) -> Result<ReportOutcome, StoreError> {
        let now = millis(Utc::now());
        let paid_amount = report
            .charged
            .as_ref()
            .filter(|_| report.paid)
            .map(|c| c.amount);
        let mut tx = self.write.begin_with("BEGIN IMMEDIATE").await?;
        let recorded: Option<(uuid::Uuid, i64, String)> = sqlx::query_as(
            "update payment set status = ?2, provider_payment_id = ?3, paid_amount = ?5,
                                updated_at = ?4
              where provider_session_id = ?1
                and (status = 'PENDING' or (?2 = 'PAID' and status in ('DECLINED', 'EXPIRED')))
             returning booking_id, (select b.amount_krw from booking b where b.id = booking_id),
                       currency",
        )
        .bind(&report.session_id)
        .bind(if report.paid { "PAID" } else { "DECLINED" })
        .bind(&report.payment_id)
        .bind(now)
        .bind(paid_amount)
        .fetch_optional(&mut *tx)
        .await?;
        let Some((booking, amount, currency)) = recorded else {
            let known: Option<i32> =
                sqlx::query_scalar("select 1 from payment where provider_session_id = ?1")
                    .bind(&report.session_id)
                    .fetch_optional(&mut *tx)
                    .await?;
            return Ok(if known.is_some() {
                ReportOutcome::Duplicate
            } else {
                ReportOutcome::UnknownSession
            });
        };
        let mismatch = report
            .paid
            .then(|| charge_mismatch(report.charged.as_ref(), amount, &currency, booking))
            .flatten();
        if let Some(mismatch) = &mismatch {
            sqlx::query("update payment set mismatch = ?2 where provider_session_id = ?1")
                .bind(&report.session_id)
                .bind(mismatch)
                .execute(&mut *tx)
                .await?;
        }
        if report.paid {
            sqlx::query(
                "insert into outbox (aggregate_id, event_type, payload, created_at, next_attempt_at)
                 values (?1, 'PaymentSucceeded', ?2, ?3, ?3)",
            )
            .bind(booking)
            .bind(payment_succeeded(report, booking, mismatch.as_deref()))
            .bind(now)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(if mismatch.is_some() {
            ReportOutcome::Mismatched
        } else {
            ReportOutcome::Recorded
        })
    }

    async fn bookings(&self, filter: BookingFilter) -> Result<Vec<BookingRecord>, StoreError> {
        type Row = (
            uuid::Uuid,
            i64,
            uuid::Uuid,
            String,
            i64,
            String,
            Option<String>,
            i64,
            i64,
        );
        let columns =
            "select id, showtime_id, customer_id, seats, amount_krw, status, failure_reason,
                              created_at, updated_at from booking";
        let rows: Vec<Row> = match filter {
            BookingFilter::One(id) => {
                sqlx::query_as(&format!("{columns} where id = ?1"))
                    .bind(id.0)
                    .fetch_all(&self.read)
                    .await?
            }
            BookingFilter::OfCustomer(customer) => {
                sqlx::query_as(&format!(
                    "{columns} where customer_id = ?1 order by created_at desc limit 50"
                ))
                .bind(customer.0)
                .fetch_all(&self.read)
                .await?
            }
        };
        let mut out = Vec::with_capacity(rows.len());
        for (
            id,
            showtime,
            customer,
            seats,
            amount,
            status,
            failure_reason,
            created_at,
            updated_at,
        ) in rows
        {
            let payments: Vec<(String, i64, String, i64, i64)> = sqlx::query_as(
                "select status, amount_krw, payment_url, session_expires_at, updated_at
                   from payment where booking_id = ?1 order by created_at",
            )
            .bind(id)
            .fetch_all(&self.read)
            .await?;
            out.push(BookingRecord {
                id: BookingId(id),
                showtime: ShowtimeId(showtime),
                customer: CustomerId(customer),
                seats: serde_json::from_str(&seats)
                    .map_err(|e| StoreError::Corrupt(e.to_string()))?,
                amount,
                status,
                failure_reason,
                created_at: from_millis(created_at)?,
                updated_at: from_millis(updated_at)?,
                payments: payments
                    .into_iter()
                    .map(|(status, amount, payment_url, pay_before, updated_at)| {
                        Ok(PaymentRecord {
                            status,
                            amount,
                            payment_url,
                            pay_before: from_millis(pay_before)?,
                            updated_at: from_millis(updated_at)?,
                        })
                    })
                    .collect::<Result<_, StoreError>>()?,
            });
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
              where status = 'PENDING' and created_at < ?1 - ?2
              order by created_at limit ?3",
        )
        .bind(now_ms(now))
        .bind(older_than.as_millis() as i64)
        .bind(limit)
        .fetch_all(&self.read)
        .await?)
    }

    async fn expire_payment(&self, session_id: &str) -> Result<bool, StoreError> {
        Ok(sqlx::query(
            "update payment set status = 'EXPIRED', updated_at = ?2
              where provider_session_id = ?1 and status = 'PENDING'",
        )
        .bind(session_id)
        .bind(millis(Utc::now()))
        .execute(&self.write)
        .await?
        .rows_affected()
            == 1)
    }
}
