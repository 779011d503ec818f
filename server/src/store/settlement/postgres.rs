use super::*;
use crate::store::holds::postgres::confirm_in;
use crate::store::postgres::append_event;

/// A settled booking's new status and failure reason.
const SET_BOOKING_STATUS: &str =
    "update booking set status = $2, failure_reason = coalesce($3, failure_reason),
                        updated_at = now()
      where id = $1";
/// An outbox item done.
const MARK_PROCESSED: &str = "update outbox set processed_at = now() where id = $1";

#[async_trait::async_trait]
impl Settlements for PgStore {
    async fn claim_outbox(
        &self,
        types: &[&str],
        limit: i64,
        lease: Duration,
    ) -> Result<Vec<OutboxItem>, StoreError> {
        let rows: Vec<ClaimedRow> = sqlx::query_as(
            "update outbox o
                set attempts = o.attempts + 1,
                    next_attempt_at = now() + $3::bigint * interval '1 millisecond'
              where o.id in (select id from outbox
                              where processed_at is null and parked_at is null
                                and event_type = any($1)
                                and next_attempt_at <= now()
                              order by id limit $2
                                for update skip locked)
             returning o.id, o.aggregate_id, o.event_type, o.payload::text as payload,
                       o.attempts::bigint as attempts",
        )
        .bind(types)
        .bind(limit)
        .bind(lease.as_millis() as i64)
        .fetch_all(&self.pool)
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
        Ok(sqlx::query_scalar(PARKED_COUNT)
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
        // A shared lock on the showtime's row first: a cancellation (which updates that row)
        // and this settlement go one after the other. Whichever is second sees what the first
        // committed — the facts below are read by a later statement, so with the cancellation
        // in them; a cancellation after this sees the payment this confirms, and refunds it.
        sqlx::query(
            "select 1 from showtime
              where id = (select showtime_id from booking where id = $1) for share",
        )
        .bind(booking.0)
        .execute(&mut *tx)
        .await?;
        // The booking's row lock makes its settlements wait for each other.
        let facts: Option<BookingFacts> = sqlx::query_as(
            "select b.showtime_id, b.hold_id, b.status, b.seats, b.tickets,
                    coalesce(coalesce(st.sales_close_at, st.starts_at) > coalesce($2::timestamptz, now())
                             and st.cancelled_at is null, false)
                        as sales_open
               from booking b left join showtime st on st.id = b.showtime_id
              where b.id = $1
                for update of b",
        )
        .bind(booking.0)
        .bind(now)
        .fetch_optional(&mut *tx)
        .await?;
        let payment: Option<PaidPayment> = sqlx::query_as(&format!("{PAID_PAYMENT} for update"))
            .bind(payment_id)
            .bind(booking.0)
            .fetch_optional(&mut *tx)
            .await?;
        let writes = match next_step(booking, payment_id, facts, payment) {
            NextStep::Write(writes) => writes,
            NextStep::Confirm(facts, paid) => {
                let booked =
                    confirm_in(&mut *tx, facts.showtime_id, facts.hold_id, booking, now).await?;
                Some(Writes::after_confirm(
                    booking, facts, payment_id, paid, booked,
                )?)
            }
        };
        let settlement = write_settlement!(tx, writes, booking: booking, payment: payment_id);
        finish_item!(tx, item);
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
        let refunded: Option<Refunded> = sqlx::query_as(&format!(
            "{MARK_REFUNDED}, updated_at = now() {REFUNDED_RETURNING}"
        ))
        .bind(payment_id)
        .fetch_optional(&mut *tx)
        .await?;
        if let Some(refunded) = refunded {
            append_event(
                &mut tx,
                &refund_issued(booking, payment_id, refund_id, refunded),
            )
            .await?;
        }
        finish_item!(tx, item);
        Ok(())
    }
}
