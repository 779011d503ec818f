use super::*;
use crate::store::holds::postgres::CONFIRM_SQL;

/// The showtime of a refunded booking (named in `RefundIssued`).
async fn refund_showtime(
    tx: &mut sqlx::Transaction<'_, sqlx::Postgres>,
    booking: BookingId,
) -> Result<i64, StoreError> {
    Ok(
        sqlx::query_scalar("select showtime_id from booking where id = $1")
            .bind(booking.0)
            .fetch_one(&mut **tx)
            .await?,
    )
}

#[async_trait::async_trait]
impl Settlements for PgStore {
    async fn claim_outbox(
        &self,
        types: &[&str],
        limit: i64,
        lease: Duration,
    ) -> Result<Vec<OutboxItem>, StoreError> {
        let rows: Vec<(i64, uuid::Uuid, String, String, i32)> = sqlx::query_as(
            "update outbox o
                set attempts = o.attempts + 1,
                    next_attempt_at = now() + $3::bigint * interval '1 millisecond'
              where o.id in (select id from outbox
                              where processed_at is null and parked_at is null
                                and event_type = any($1)
                                and next_attempt_at <= now()
                              order by id limit $2
                                for update skip locked)
             returning o.id, o.aggregate_id, o.event_type, o.payload::text, o.attempts",
        )
        .bind(types)
        .bind(limit)
        .bind(lease.as_millis() as i64)
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter()
            .map(|(id, booking, event_type, payload, attempts)| {
                Ok(OutboxItem {
                    id,
                    booking: BookingId(booking),
                    event_type,
                    payload: serde_json::from_str(&payload)
                        .map_err(|e| StoreError::Corrupt(e.to_string()))?,
                    attempts: i64::from(attempts),
                })
            })
            .collect()
    }

    async fn retry_outbox(
        &self,
        item: i64,
        after: Duration,
        error: &str,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "update outbox set next_attempt_at = now() + $2::bigint * interval '1 millisecond',
                               last_error = $3
              where id = $1 and processed_at is null",
        )
        .bind(item)
        .bind(after.as_millis() as i64)
        .bind(error)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn park_outbox(&self, item: i64, error: &str) -> Result<(), StoreError> {
        sqlx::query("update outbox set parked_at = now(), last_error = $2 where id = $1")
            .bind(item)
            .bind(error)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    async fn parked_count(&self) -> Result<i64, StoreError> {
        Ok(sqlx::query_scalar(
            "select count(*) from outbox where processed_at is null and parked_at is not null",
        )
        .fetch_one(&self.pool)
        .await?)
    }

    async fn settle_payment(
        &self,
        item: i64,
        booking: BookingId,
        payment_id: &str,
        now: Now,
    ) -> Result<Settlement, StoreError> {
        let mut tx = self.pool.begin().await?;
        let row: Option<(i64, uuid::Uuid, String, Vec<String>, bool)> = sqlx::query_as(
            "select b.showtime_id, b.hold_id, b.status, b.seats,
                    coalesce(st.starts_at > coalesce($2::timestamptz, now()), false)
               from booking b left join showtime st on st.id = b.showtime_id
              where b.id = $1
                for update of b",
        )
        .bind(booking.0)
        .bind(now)
        .fetch_optional(&mut *tx)
        .await?;
        let payment: Option<(Option<String>, Option<String>, i64)> = sqlx::query_as(
            "select outcome::text, mismatch, coalesce(paid_amount, amount_krw) from payment
              where provider_payment_id = $1 and booking_id = $2 and status = 'PAID'
                for update",
        )
        .bind(payment_id)
        .bind(booking.0)
        .fetch_optional(&mut *tx)
        .await?;
        let processed = "update outbox set processed_at = now() where id = $1";
        let (Some((showtime, hold, status, seats, open)), Some((outcome, mismatch, paid))) =
            (row, payment)
        else {
            sqlx::query(processed).bind(item).execute(&mut *tx).await?;
            tx.commit().await?;
            return Ok(Settlement::AlreadySettled);
        };
        let decision = settle_decision(&status, outcome.as_deref(), mismatch.is_some(), open);
        let booked: Vec<(String, i64)> = if decision == SettleDecision::Confirm {
            sqlx::query_as(CONFIRM_SQL)
                .bind(showtime)
                .bind(hold)
                .bind(booking.0)
                .bind(now)
                .fetch_all(&mut *tx)
                .await?
        } else {
            Vec::new()
        };
        let decision = match decision {
            SettleDecision::Confirm if booked.is_empty() => SettleDecision::Refund {
                fail_booking: true,
                reason: LAPSED_REASON,
            },
            other => other,
        };
        let event = |kind: &str, extra: serde_json::Value| {
            sqlx::query(
                "insert into outbox (aggregate_id, event_type, payload) values ($1, $2, $3::jsonb)",
            )
            .bind(booking.0)
            .bind(kind.to_string())
            .bind(booking_event(kind, booking.0, extra))
        };
        let settlement = match decision {
            SettleDecision::AlreadySettled => Settlement::AlreadySettled,
            SettleDecision::Confirm => {
                sqlx::query(
                    "update booking set status = 'CONFIRMED', updated_at = now() where id = $1",
                )
                .bind(booking.0)
                .execute(&mut *tx)
                .await?;
                sqlx::query(
                    "update payment set outcome = 'CONFIRMED' where provider_payment_id = $1",
                )
                .bind(payment_id)
                .execute(&mut *tx)
                .await?;
                event(
                    "BookingConfirmed",
                    serde_json::json!({
                        "showtimeId": showtime, "seats": seats, "amount": paid, "paymentId": payment_id,
                    }),
                )
                .execute(&mut *tx)
                .await?;
                Settlement::Confirmed {
                    showtime: ShowtimeId(showtime),
                    seats: changes(booked, SeatStatus::Booked)?,
                }
            }
            SettleDecision::Refund {
                fail_booking,
                reason,
            } => {
                let extra = serde_json::json!({
                    "showtimeId": showtime, "paymentId": payment_id, "amount": paid, "reason": reason,
                });
                if fail_booking {
                    sqlx::query(
                        "update booking set status = 'FAILED', failure_reason = $2, updated_at = now()
                          where id = $1",
                    )
                    .bind(booking.0)
                    .bind(reason)
                    .execute(&mut *tx)
                    .await?;
                    event("BookingFailed", extra.clone())
                        .execute(&mut *tx)
                        .await?;
                }
                sqlx::query("update payment set outcome = 'REFUND' where provider_payment_id = $1")
                    .bind(payment_id)
                    .execute(&mut *tx)
                    .await?;
                event("RefundDue", extra).execute(&mut *tx).await?;
                if fail_booking {
                    Settlement::Failed { reason }
                } else {
                    Settlement::Refunded { reason }
                }
            }
        };
        sqlx::query(processed).bind(item).execute(&mut *tx).await?;
        tx.commit().await?;
        Ok(settlement)
    }

    async fn finish_refund(
        &self,
        item: i64,
        booking: BookingId,
        payment_id: &str,
        refund_id: &str,
    ) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        let amount: Option<i64> = sqlx::query_scalar(
            "update payment set status = 'REFUNDED', updated_at = now()
              where provider_payment_id = $1 and status = 'PAID'
             returning coalesce(paid_amount, amount_krw)",
        )
        .bind(payment_id)
        .fetch_optional(&mut *tx)
        .await?;
        if let Some(amount) = amount {
            let extra = serde_json::json!({ "showtimeId": refund_showtime(&mut tx, booking).await?, "paymentId": payment_id, "refundId": refund_id, "amount": amount });
            sqlx::query(
                "insert into outbox (aggregate_id, event_type, payload)
                 values ($1, 'RefundIssued', $2::jsonb)",
            )
            .bind(booking.0)
            .bind(booking_event("RefundIssued", booking.0, extra))
            .execute(&mut *tx)
            .await?;
        }
        sqlx::query("update outbox set processed_at = now() where id = $1")
            .bind(item)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }
}
