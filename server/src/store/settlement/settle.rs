//! The settlement's transactions: payment events taken from the outbox under a lease, retried or
//! parked; a paid payment settled (confirmed, or refunded); a refund recorded.

use super::*;

impl Store {
    /// Takes up to `limit` unprocessed outbox events of these types whose time has come, and
    /// leases them for `lease` (another worker takes them after that unless they are marked
    /// processed). Several workers at once never take the same event (on PostgreSQL rows
    /// another worker is taking are passed by; SQLite has one writer).
    pub async fn claim_outbox(
        &self,
        types: &[&str],
        limit: i64,
        lease: Duration,
    ) -> Result<Vec<OutboxItem>, StoreError> {
        let mut conn = self.writer().await?;
        let claim = format!(
            "update outbox
                set attempts = attempts + 1,
                    next_attempt_at = coalesce($3, current_timestamp) + $4
              where id in (select id from outbox
                            where processed_at is null and parked_at is null
                              and {}
                              and next_attempt_at <= coalesce($3, current_timestamp)
                            order by id limit $2
                            {})
          returning id, aggregate_id, event_type, cast(payload as text) as payload,
                    cast(attempts as bigint) as attempts",
            conn.in_list("event_type", 1),
            conn.row_lock("for update skip locked")
        );
        let types = List(types.iter().map(|t| t.to_string()).collect());
        let rows: Vec<ClaimedRow> = on!(&mut conn, c => {
            sqlx::query_as(&claim)
                .bind(types)
                .bind(limit)
                .bind(Moment(None))
                .bind(Span::from(lease))
                .fetch_all(c)
                .await?
        });
        Ok(rows.into_iter().map(OutboxItem::from).collect())
    }

    /// Puts off the next attempt at an outbox event that failed, keeping its error.
    pub async fn retry_outbox(
        &self,
        item: i64,
        after: Duration,
        error: &str,
    ) -> Result<(), StoreError> {
        let retry = "update outbox set next_attempt_at = coalesce($2, current_timestamp) + $3,
                                       last_error = $4
                      where id = $1 and processed_at is null";
        on!(&mut self.writer().await?, c => {
            sqlx::query(retry)
                .bind(item)
                .bind(Moment(None))
                .bind(Span::from(after))
                .bind(error)
                .execute(c)
                .await?;
        });
        Ok(())
    }

    /// Stops retrying an outbox event: it stays unprocessed, with its last error, for an
    /// operator.
    pub async fn park_outbox(&self, item: i64, error: &str) -> Result<(), StoreError> {
        let park = "update outbox set parked_at = coalesce($3, current_timestamp),
                                      last_error = $2
                     where id = $1";
        on!(&mut self.writer().await?, c => {
            sqlx::query(park)
                .bind(item)
                .bind(error)
                .bind(Moment(None))
                .execute(c)
                .await?;
        });
        Ok(())
    }

    /// Outbox events parked for an operator.
    pub async fn parked_count(&self) -> Result<i64, StoreError> {
        let parked =
            "select count(*) from outbox where processed_at is null and parked_at is not null";
        Ok(on!(&mut self.reader().await?, c => {
            sqlx::query_scalar(parked).fetch_one(c).await?
        }))
    }

    /// In one transaction: confirms the paid booking's seats with the fenced confirm, or fails
    /// the booking and asks for a refund; writes the resulting events; marks `item` processed.
    pub async fn settle_payment(
        &self,
        item: i64,
        booking: BookingId,
        payment_id: &str,
        now: Now,
    ) -> Result<Settlement, StoreError> {
        // One time for the facts and the confirm, taken before waiting for SQLite's writer.
        let now = self.fence(now);
        let mut tx = self.begin().await?;
        lock_showtime_of(&mut tx, booking).await?;
        let facts = booking_facts(&mut tx, booking, now).await?;
        let payment = paid_payment(&mut tx, booking, payment_id).await?;
        let writes = match next_step(booking, payment_id, facts, payment) {
            NextStep::Write(writes) => writes,
            NextStep::Confirm(facts, paid) => {
                let booked = tx
                    .confirm(facts.showtime_id, facts.hold_id, booking, now)
                    .await?;
                Some(Writes::after_confirm(
                    booking, facts, payment_id, paid, booked,
                )?)
            }
        };
        let Some(writes) = writes else {
            mark_processed(&mut tx, item).await?;
            tx.commit().await?;
            return Ok(Settlement::AlreadySettled);
        };
        if let Some((status, reason)) = writes.booking {
            set_booking_status(&mut tx, booking, status, reason).await?;
        }
        set_outcome(&mut tx, payment_id, writes.outcome).await?;
        for event in &writes.events {
            tx.append_event(event).await?;
        }
        mark_processed(&mut tx, item).await?;
        tx.commit().await?;
        Ok(writes.settlement)
    }

    /// In one transaction: the payment REFUNDED, a `RefundIssued` event (giving back `seats`),
    /// `item` processed.
    pub async fn finish_refund(
        &self,
        item: i64,
        booking: BookingId,
        (payment_id, refund_id): (&str, &str),
        seats: &[String],
    ) -> Result<(), StoreError> {
        let mut tx = self.begin().await?;
        if let Some(refunded) = mark_refunded(&mut tx, payment_id).await? {
            let event = refund_issued(booking, (payment_id, refund_id), refunded, seats);
            tx.append_event(&event).await?;
        }
        mark_processed(&mut tx, item).await?;
        tx.commit().await?;
        Ok(())
    }
}

/// On PostgreSQL, a shared lock on the booking's showtime row: a cancellation (which updates
/// that row) and this settlement go one after the other. Whichever is second sees what the
/// first committed — the facts are read by a later statement, so with the cancellation in
/// them; a cancellation after this sees the payment this confirms, and refunds it. SQLite's one
/// writer makes the transaction the only one.
async fn lock_showtime_of(tx: &mut Tx, booking: BookingId) -> Result<(), StoreError> {
    if let Dialect::Postgres(tx) = tx {
        sqlx::query(
            "select 1 from showtime
              where id = (select showtime_id from booking where id = $1) for share",
        )
        .bind(booking.0)
        .execute(&mut **tx)
        .await?;
    }
    Ok(())
}

/// What settling needs to know of the booking, and whether its showtime still sells at `now`
/// (its row locked on PostgreSQL: its settlements wait for each other).
async fn booking_facts(
    tx: &mut Tx,
    booking: BookingId,
    now: Now,
) -> Result<Option<BookingFacts>, StoreError> {
    let facts = format!(
        "select b.showtime_id, b.hold_id, b.status, b.seats, b.tickets,
                coalesce(coalesce(st.sales_close_at, st.starts_at)
                             > coalesce($2, current_timestamp)
                         and st.cancelled_at is null, false) as sales_open
           from booking b left join showtime st on st.id = b.showtime_id
          where b.id = $1 {}",
        tx.row_lock("for update of b")
    );
    Ok(on!(tx, c => {
        sqlx::query_as(&facts).bind(booking.0).bind(Moment(now)).fetch_optional(c).await?
    }))
}

/// The booking's paid payment `payment_id` (locked, on PostgreSQL).
async fn paid_payment(
    tx: &mut Tx,
    booking: BookingId,
    payment_id: &str,
) -> Result<Option<PaidPayment>, StoreError> {
    let paid = format!(
        "select outcome, mismatch, coalesce(paid_amount, amount_krw) as paid
           from payment
          where provider_payment_id = $1 and booking_id = $2 and status = 'PAID' {}",
        tx.row_lock("for update")
    );
    Ok(on!(tx, c => {
        sqlx::query_as(&paid).bind(payment_id).bind(booking.0).fetch_optional(c).await?
    }))
}

/// A settled booking's new status and failure reason.
async fn set_booking_status(
    tx: &mut Tx,
    booking: BookingId,
    status: BookingStatus,
    reason: Option<&str>,
) -> Result<(), StoreError> {
    let set = "update booking set status = $2, failure_reason = coalesce($3, failure_reason),
                                  updated_at = coalesce($4, current_timestamp)
                where id = $1";
    on!(tx, c => {
        sqlx::query(set)
            .bind(booking.0)
            .bind(status)
            .bind(reason)
            .bind(Moment(None))
            .execute(c)
            .await?;
    });
    Ok(())
}

/// What became of the paid payment (confirmed, or to be refunded).
async fn set_outcome(tx: &mut Tx, payment_id: &str, outcome: &str) -> Result<(), StoreError> {
    let set = "update payment set outcome = $2 where provider_payment_id = $1";
    on!(tx, c => {
        sqlx::query(set).bind(payment_id).bind(outcome).execute(c).await?;
    });
    Ok(())
}

/// A PAID payment marked REFUNDED: its showtime and what was paid (`None`: not PAID).
async fn mark_refunded(tx: &mut Tx, payment_id: &str) -> Result<Option<Refunded>, StoreError> {
    let mark = "update payment set status = 'REFUNDED',
                                   updated_at = coalesce($2, current_timestamp)
                 where provider_payment_id = $1 and status = 'PAID'
             returning (select b.showtime_id from booking b where b.id = booking_id)
                           as showtime_id,
                       coalesce(paid_amount, amount_krw) as amount";
    Ok(on!(tx, c => {
        sqlx::query_as(mark).bind(payment_id).bind(Moment(None)).fetch_optional(c).await?
    }))
}

/// An outbox item done.
async fn mark_processed(tx: &mut Tx, item: i64) -> Result<(), StoreError> {
    let mark = "update outbox set processed_at = coalesce($2, current_timestamp) where id = $1";
    on!(tx, c => {
        sqlx::query(mark).bind(item).bind(Moment(None)).execute(c).await?;
    });
    Ok(())
}
