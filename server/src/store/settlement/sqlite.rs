use super::*;
use crate::store::holds::sqlite::confirm_in;
use crate::store::sqlite::append_event;

/// A settled booking's new status and failure reason.
const SET_BOOKING_STATUS: &str =
    "update booking set status = $2, failure_reason = coalesce($3, failure_reason),
                        updated_at = $4
      where id = $1";
/// An outbox item done.
const MARK_PROCESSED: &str = "update outbox set processed_at = $2 where id = $1";

#[async_trait::async_trait]
impl Settlements for SqliteStore {
    async fn claim_outbox(
        &self,
        types: &[&str],
        limit: i64,
        lease: Duration,
    ) -> Result<Vec<OutboxItem>, StoreError> {
        let rows: Vec<ClaimedRow> = sqlx::query_as(
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
        .bind(At::or_now(None))
        .bind(lease.as_millis() as i64)
        .fetch_all(&self.write)
        .await?;
        Ok(rows.into_iter().map(OutboxItem::from).collect())
    }

    async fn retry_outbox(
        &self,
        item: i64,
        after: Duration,
        error: &str,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "update outbox set next_attempt_at = $2 + $3, last_error = $4
              where id = $1 and processed_at is null",
        )
        .bind(item)
        .bind(At::or_now(None))
        .bind(after.as_millis() as i64)
        .bind(error)
        .execute(&self.write)
        .await?;
        Ok(())
    }

    async fn park_outbox(&self, item: i64, error: &str) -> Result<(), StoreError> {
        sqlx::query("update outbox set parked_at = $3, last_error = $2 where id = $1")
            .bind(item)
            .bind(error)
            .bind(At::or_now(None))
            .execute(&self.write)
            .await?;
        Ok(())
    }

    async fn parked_count(&self) -> Result<i64, StoreError> {
        Ok(sqlx::query_scalar(PARKED_COUNT)
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
        let at = At::or_now(now);
        let wall = At::or_now(None);
        // The single writer makes this transaction the only one: nothing to lock.
        let mut tx = self.write.begin_with("BEGIN IMMEDIATE").await?;
        let facts: Option<BookingFacts> = sqlx::query_as(
            "select b.showtime_id, b.hold_id, b.status, b.seats, b.tickets,
                    coalesce(coalesce(st.sales_close_at, st.starts_at) > $2 and st.cancelled_at is null, 0)
                        as sales_open
               from booking b left join showtime st on st.id = b.showtime_id
              where b.id = $1",
        )
        .bind(booking.0)
        .bind(at)
        .fetch_optional(&mut *tx)
        .await?;
        let payment: Option<PaidPayment> = sqlx::query_as(PAID_PAYMENT)
            .bind(payment_id)
            .bind(booking.0)
            .fetch_optional(&mut *tx)
            .await?;
        let writes = match next_step(booking, payment_id, facts, payment) {
            NextStep::Write(writes) => writes,
            NextStep::Confirm(facts, paid) => {
                let booked =
                    confirm_in(&mut tx, facts.showtime_id, facts.hold_id, booking, at).await?;
                Some(Writes::after_confirm(
                    booking, facts, payment_id, paid, booked,
                )?)
            }
        };
        let settlement =
            write_settlement!(tx, writes, booking: booking, payment: payment_id, stamp: wall);
        finish_item!(tx, item, stamp: wall);
        Ok(settlement)
    }

    async fn finish_refund(
        &self,
        item: i64,
        booking: BookingId,
        payment_id: &str,
        refund_id: &str,
    ) -> Result<(), StoreError> {
        let wall = At::or_now(None);
        let mut tx = self.write.begin_with("BEGIN IMMEDIATE").await?;
        let refunded: Option<Refunded> = sqlx::query_as(&format!(
            "{MARK_REFUNDED}, updated_at = $2 {REFUNDED_RETURNING}"
        ))
        .bind(payment_id)
        .bind(wall)
        .fetch_optional(&mut *tx)
        .await?;
        if let Some(refunded) = refunded {
            append_event(
                &mut tx,
                &refund_issued(booking, payment_id, refund_id, refunded),
            )
            .await?;
        }
        finish_item!(tx, item, stamp: wall);
        Ok(())
    }
}
