use super::*;
use crate::store::sqlite::{millis, now_ms};

/// The showtime of a refunded booking (named in `RefundIssued`).
async fn refund_showtime(
    tx: &mut sqlx::Transaction<'_, sqlx::Sqlite>,
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
impl Settlements for SqliteStore {
    async fn claim_outbox(
        &self,
        types: &[&str],
        limit: i64,
        lease: Duration,
    ) -> Result<Vec<OutboxItem>, StoreError> {
        let now = millis(Utc::now());
        let rows: Vec<(i64, uuid::Uuid, String, String, i64)> = sqlx::query_as(
            "update outbox set attempts = attempts + 1, next_attempt_at = $3 + $4
              where id in (select id from outbox
                            where processed_at is null and parked_at is null
                              and event_type in (select value from json_each($1))
                              and next_attempt_at <= $3
                            order by id limit $2)
             returning id, aggregate_id, event_type, payload, attempts",
        )
        .bind(serde_json::to_string(types).expect("strings serialise"))
        .bind(limit)
        .bind(now)
        .bind(lease.as_millis() as i64)
        .fetch_all(&self.write)
        .await?;
        rows.into_iter()
            .map(|(id, booking, event_type, payload, attempts)| {
                Ok(OutboxItem {
                    id,
                    booking: BookingId(booking),
                    event_type,
                    payload: serde_json::from_str(&payload)
                        .map_err(|e| StoreError::Corrupt(e.to_string()))?,
                    attempts,
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
            "update outbox set next_attempt_at = $2, last_error = $3
              where id = $1 and processed_at is null",
        )
        .bind(item)
        .bind(millis(Utc::now()) + after.as_millis() as i64)
        .bind(error)
        .execute(&self.write)
        .await?;
        Ok(())
    }

    async fn park_outbox(&self, item: i64, error: &str) -> Result<(), StoreError> {
        sqlx::query("update outbox set parked_at = $3, last_error = $2 where id = $1")
            .bind(item)
            .bind(error)
            .bind(millis(Utc::now()))
            .execute(&self.write)
            .await?;
        Ok(())
    }

    async fn parked_count(&self) -> Result<i64, StoreError> {
        Ok(sqlx::query_scalar(
            "select count(*) from outbox where processed_at is null and parked_at is not null",
        )
        .fetch_one(&self.read)
        .await?)
    }

    async fn settle_payment(
        &self,
        item: i64,
        booking: BookingId,
        payment_id: &str,
        now: Now,
    ) -> Result<Settlement, StoreError> {
        let at = now_ms(now);
        let wall = millis(Utc::now());
        let mut tx = self.write.begin_with("BEGIN IMMEDIATE").await?;
        let row: Option<(i64, uuid::Uuid, String, String, bool)> = sqlx::query_as(
            "select b.showtime_id, b.hold_id, b.status, b.seats, coalesce(st.starts_at > $2, 0)
               from booking b left join showtime st on st.id = b.showtime_id
              where b.id = $1",
        )
        .bind(booking.0)
        .bind(at)
        .fetch_optional(&mut *tx)
        .await?;
        let payment: Option<(Option<String>, Option<String>, i64)> = sqlx::query_as(
            "select outcome, mismatch, coalesce(paid_amount, amount_krw) from payment
              where provider_payment_id = $1 and booking_id = $2 and status = 'PAID'",
        )
        .bind(payment_id)
        .bind(booking.0)
        .fetch_optional(&mut *tx)
        .await?;
        let processed = "update outbox set processed_at = $2 where id = $1";
        let (Some((showtime, hold, status, seats, open)), Some((outcome, mismatch, paid))) =
            (row, payment)
        else {
            sqlx::query(processed)
                .bind(item)
                .bind(wall)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
            return Ok(Settlement::AlreadySettled);
        };
        let seats: Vec<String> =
            serde_json::from_str(&seats).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let mut decision = settle_decision(&status, outcome.as_deref(), mismatch.is_some(), open);
        let mut booked = Vec::new();
        if decision == SettleDecision::Confirm {
            // The fenced confirm: all of the hold's seats still held by it and not expired, or
            // none.
            let expected: Option<i64> = sqlx::query_scalar(
                "select seat_count from seat_hold where showtime_id = $1 and hold_id = $2",
            )
            .bind(showtime)
            .bind(hold)
            .fetch_optional(&mut *tx)
            .await?;
            let held: i64 = sqlx::query_scalar(
                "select count(*) from show_seat
                  where showtime_id = $1 and hold_id = $2 and status = 'HELD' and hold_expires_at >= $3",
            )
            .bind(showtime)
            .bind(hold)
            .bind(at)
            .fetch_one(&mut *tx)
            .await?;
            if expected.is_some_and(|n| n == held && n > 0) {
                booked = sqlx::query_as::<_, (String, i64)>(
                    "update show_seat
                        set status = 'BOOKED', booking_id = $3, hold_expires_at = null, version = version + 1
                      where showtime_id = $1 and hold_id = $2 and status = 'HELD' and hold_expires_at >= $4
                     returning seat_code, version",
                )
                .bind(showtime)
                .bind(hold)
                .bind(booking.0)
                .bind(at)
                .fetch_all(&mut *tx)
                .await?;
            } else {
                decision = SettleDecision::Refund {
                    fail_booking: true,
                    reason: LAPSED_REASON,
                };
            }
        }
        let event = |kind: &str, extra: serde_json::Value| {
            sqlx::query(
                "insert into outbox (aggregate_id, event_type, payload, created_at, next_attempt_at)
                 values ($1, $2, $3, $4, $4)",
            )
            .bind(booking.0)
            .bind(kind.to_string())
            .bind(booking_event(kind, booking.0, extra))
            .bind(wall)
        };
        let settlement = match decision {
            SettleDecision::AlreadySettled => Settlement::AlreadySettled,
            SettleDecision::Confirm => {
                sqlx::query(
                    "update booking set status = 'CONFIRMED', updated_at = $2 where id = $1",
                )
                .bind(booking.0)
                .bind(wall)
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
                        "update booking set status = 'FAILED', failure_reason = $2, updated_at = $3
                          where id = $1",
                    )
                    .bind(booking.0)
                    .bind(reason)
                    .bind(wall)
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
        sqlx::query(processed)
            .bind(item)
            .bind(wall)
            .execute(&mut *tx)
            .await?;
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
        let wall = millis(Utc::now());
        let mut tx = self.write.begin_with("BEGIN IMMEDIATE").await?;
        let amount: Option<i64> = sqlx::query_scalar(
            "update payment set status = 'REFUNDED', updated_at = $2
              where provider_payment_id = $1 and status = 'PAID'
             returning coalesce(paid_amount, amount_krw)",
        )
        .bind(payment_id)
        .bind(wall)
        .fetch_optional(&mut *tx)
        .await?;
        if let Some(amount) = amount {
            let extra = serde_json::json!({ "showtimeId": refund_showtime(&mut tx, booking).await?, "paymentId": payment_id, "refundId": refund_id, "amount": amount });
            sqlx::query(
                "insert into outbox (aggregate_id, event_type, payload, created_at, next_attempt_at)
                 values ($1, 'RefundIssued', $2, $3, $3)",
            )
            .bind(booking.0)
            .bind(booking_event("RefundIssued", booking.0, extra))
            .bind(wall)
            .execute(&mut *tx)
            .await?;
        }
        sqlx::query("update outbox set processed_at = $2 where id = $1")
            .bind(item)
            .bind(wall)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }
}
