use super::*;

#[async_trait::async_trait]
impl Payments for PgStore {
    async fn booking_for_hold(&self, new: &NewBooking) -> Result<BookingRow, StoreError> {
        let seats: Vec<&str> = new.seats.iter().map(SeatCode::as_str).collect();
        sqlx::query(
            "insert into booking (id, showtime_id, hold_id, customer_id, seats, amount_krw)
             values ($1, $2, $3, $4, $5, $6) on conflict (hold_id) do nothing",
        )
        .bind(new.id.0)
        .bind(new.hold.showtime_id().0)
        .bind(new.hold.as_uuid())
        .bind(new.customer.0)
        .bind(&seats)
        .bind(new.amount)
        .execute(&self.pool)
        .await?;
        let (id, status, amount): (uuid::Uuid, String, i64) =
            sqlx::query_as("select id, status, amount_krw from booking where hold_id = $1")
                .bind(new.hold.as_uuid())
                .fetch_one(&self.pool)
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
            Option<DateTime<Utc>>,
            i64,
            i64,
        ) = sqlx::query_as(
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
                expires_at,
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
        .bind(p.expires_at)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn record_payment_report(
        &self,
        report: &PaymentReport,
    ) -> Result<ReportOutcome, StoreError> {
        let mut tx = self.pool.begin().await?;
        let paid_amount = report
            .charged
            .as_ref()
            .filter(|_| report.paid)
            .map(|c| c.amount);
        let recorded: Option<(uuid::Uuid, i64, String)> = sqlx::query_as(
            "update payment set status = $2, provider_payment_id = $3, paid_amount = $4,
                                updated_at = now()
              where provider_session_id = $1
                and (status = 'PENDING' or ($2 = 'PAID' and status in ('DECLINED', 'EXPIRED')))
             returning booking_id, (select b.amount_krw from booking b where b.id = booking_id),
                       currency::text",
        )
        .bind(&report.session_id)
        .bind(if report.paid { "PAID" } else { "DECLINED" })
        .bind(&report.payment_id)
        .bind(paid_amount)
        .fetch_optional(&mut *tx)
        .await?;
        let Some((booking, amount, currency)) = recorded else {
            let known: Option<i32> =
                sqlx::query_scalar("select 1 from payment where provider_session_id = $1")
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
            sqlx::query("update payment set mismatch = $2 where provider_session_id = $1")
                .bind(&report.session_id)
                .bind(mismatch)
                .execute(&mut *tx)
                .await?;
        }
        if report.paid {
            sqlx::query(
                "insert into outbox (aggregate_id, event_type, payload)
                 values ($1, 'PaymentSucceeded', $2::jsonb)",
            )
            .bind(booking)
            .bind(payment_succeeded(report, booking, mismatch.as_deref()))
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
            Vec<String>,
            i64,
            String,
            Option<String>,
            DateTime<Utc>,
            DateTime<Utc>,
        );
        let columns =
            "select id, showtime_id, customer_id, seats, amount_krw, status, failure_reason,
                              created_at, updated_at from booking";
        let rows: Vec<Row> = match filter {
            BookingFilter::One(id) => {
                sqlx::query_as(&format!("{columns} where id = $1"))
                    .bind(id.0)
                    .fetch_all(&self.pool)
                    .await?
            }
            BookingFilter::OfCustomer(customer) => {
                sqlx::query_as(&format!(
                    "{columns} where customer_id = $1 order by created_at desc limit 50"
                ))
                .bind(customer.0)
                .fetch_all(&self.pool)
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
            let payments: Vec<(String, i64, String, DateTime<Utc>, DateTime<Utc>)> =
                sqlx::query_as(
                    "select status, amount_krw, payment_url, session_expires_at, updated_at
                   from payment where booking_id = $1 order by created_at",
                )
                .bind(id)
                .fetch_all(&self.pool)
                .await?;
            out.push(BookingRecord {
                id: BookingId(id),
                showtime: ShowtimeId(showtime),
                customer: CustomerId(customer),
                seats,
                amount,
                status,
                failure_reason,
                created_at,
                updated_at,
                payments: payments
                    .into_iter()
                    .map(
                        |(status, amount, payment_url, pay_before, updated_at)| PaymentRecord {
                            status,
                            amount,
                            payment_url,
                            pay_before,
                            updated_at,
                        },
                    )
                    .collect(),
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
