use super::*;

mod statements;

pub use statements::*;

/// Its own statements of [`Store`]'s holds.
impl PgStore {
    pub(super) async fn hold(
        &self,
        req: HoldRequest<'_>,
        now: Now,
    ) -> Result<HoldOutcome, StoreError> {
        type Row = (
            String,
            Option<String>,
            Option<bool>,
            Option<i64>,
            Option<DateTime<Utc>>,
            Option<DateTime<Utc>>,
        );
        let cap = |n: Option<u32>| n.map(|n| i32::try_from(n).unwrap_or(i32::MAX));
        let rows = sqlx::query_as::<_, Row>(HOLD_SQL)
            .bind(req.showtime.get())
            .bind(List(req.seats.to_vec()))
            .bind(req.hold_id.as_uuid())
            .bind(req.customer.0)
            .bind(now)
            .bind(i64::try_from(req.ttl.as_millis()).unwrap_or(i64::MAX))
            .bind(req.client_addr.map(|a| a.to_string()))
            .bind(cap(req.limits.holds_per_customer))
            .bind(cap(req.limits.seats_per_address))
            .bind(req.house_ok)
            .bind(
                req.limits
                    .cooldown
                    .map(|c| i64::try_from(c.as_millis()).unwrap_or(i64::MAX)),
            )
            .fetch_all(&self.pool)
            .await?;
        let verdict = rows.first().map_or("TAKEN", |r| r.0.as_str());
        match verdict {
            "CLOSED" => return Ok(HoldOutcome::Refused(HoldRefusal::SalesClosed)),
            "NOT_OPEN" => return Ok(HoldOutcome::Refused(HoldRefusal::SalesNotOpen)),
            "CANCELLED" => return Ok(HoldOutcome::Refused(HoldRefusal::Cancelled)),
            "HOLD_LIMIT" => return Ok(HoldOutcome::Refused(HoldRefusal::HoldLimit)),
            "ADDRESS_LIMIT" => return Ok(HoldOutcome::Refused(HoldRefusal::AddressLimit)),
            "COOLDOWN" => {
                let until = rows.first().and_then(|r| r.5).unwrap_or_else(Utc::now);
                return Ok(HoldOutcome::Refused(HoldRefusal::Cooldown(until)));
            }
            _ => {}
        }
        let held: Vec<_> = rows
            .iter()
            .filter_map(|(_, c, _, v, at, _)| Some((c.clone()?, (*v)?, (*at)?)))
            .collect();
        if verdict == "OK" && held.len() == req.seats.len() {
            let expires_at = held[0].2;
            let held = held.into_iter().map(|(c, v, _)| (c, v)).collect();
            return Ok(HoldOutcome::Held {
                expires_at,
                changes: changes(held, SeatStatus::Held)?,
            });
        }
        if !held.is_empty() {
            // `seats_check` rolls a partial hold back, so this cannot happen.
            return Err(StoreError::Corrupt(format!(
                "hold moved {} of {} seats",
                held.len(),
                req.seats.len()
            )));
        }
        Ok(rejection(
            req.seats,
            rows.into_iter()
                .filter_map(|(_, c, free, _, _, _)| Some((c?, free?)))
                .collect(),
        ))
    }

    pub(super) async fn cancel(
        &self,
        hold: HoldId,
        customer: CustomerId,
    ) -> Result<CancelOutcome, StoreError> {
        let showtime = hold.showtime_id();
        let freed = sqlx::query_as::<_, (String, i64, Option<String>)>(CANCEL_SQL)
            .bind(showtime.get())
            .bind(hold.as_uuid())
            .bind(customer.0)
            .fetch_all(&self.pool)
            .await?;
        if !freed.is_empty() {
            return Ok(CancelOutcome::Released(released(freed)?));
        }
        // Nothing released: only now find out why, to answer 403 or 404 (changes nothing).
        let owner: Option<uuid::Uuid> = sqlx::query_scalar(
            "select customer_id from seat_hold where showtime_id = $1 and hold_id = $2",
        )
        .bind(showtime.get())
        .bind(hold.as_uuid())
        .fetch_optional(&self.pool)
        .await?;
        Ok(cancel_refusal(owner, customer))
    }

    pub(super) async fn active_hold(
        &self,
        showtime: ShowtimeId,
        customer: CustomerId,
        now: Now,
    ) -> Result<Option<ActiveHold>, StoreError> {
        let row = sqlx::query_as::<_, (uuid::Uuid, DateTime<Utc>, Vec<String>)>(
            "select hold_id, max(hold_expires_at), array_agg(seat_code::text)
               from show_seat
              where showtime_id = $1 and customer_id = $2 and status = 'HELD'
                and hold_expires_at >= coalesce($3, now())
              group by hold_id
              order by 2 desc
              limit 1",
        )
        .bind(showtime.get())
        .bind(customer.0)
        .bind(now)
        .fetch_optional(&self.pool)
        .await?;
        row.map(|(hold, expires, seats)| active_hold(hold, expires, seats))
            .transpose()
    }

    pub(super) async fn confirm(
        &self,
        hold: HoldId,
        booking: BookingId,
        now: Now,
    ) -> Result<Option<Vec<SeatChange>>, StoreError> {
        let booked = super::super::dialect::pg_confirm(
            &self.pool,
            hold.showtime_id(),
            hold.as_uuid(),
            booking,
            now,
        )
        .await?;
        (!booked.is_empty())
            .then(|| changes(booked, SeatStatus::Booked))
            .transpose()
    }

    pub(super) async fn sweep(&self, now: Now) -> Result<Vec<Released>, StoreError> {
        let showtimes: Vec<i64> = sqlx::query_scalar(
            "select distinct s.showtime_id from show_seat s
              where s.status = 'HELD'
                and (s.hold_expires_at < coalesce($1, now())
                     or exists (select 1 from showtime st
                                 where st.id = s.showtime_id and st.cancelled_at is not null))",
        )
        .bind(now)
        .fetch_all(&self.pool)
        .await?;
        let mut out = Vec::new();
        for showtime in showtimes {
            let rows = sqlx::query_as::<_, (String, i64, Option<String>)>(SWEEP_SQL)
                .bind(showtime)
                .bind(now)
                .fetch_all(&self.pool)
                .await?;
            if !rows.is_empty() {
                out.push(Released {
                    showtime: stored_showtime(showtime)?,
                    changes: released(rows)?,
                });
            }
        }
        Ok(out)
    }

    pub(super) async fn check_hold(
        &self,
        hold: HoldId,
        customer: CustomerId,
        now: Now,
    ) -> Result<HoldCheck, StoreError> {
        let showtime = hold.showtime_id();
        let (recorded, at): (Option<(uuid::Uuid, i32)>, DateTime<Utc>) = {
            let row: (Option<uuid::Uuid>, Option<i32>, DateTime<Utc>) = sqlx::query_as(
                "select h.customer_id, h.seat_count, coalesce($3::timestamptz, now())
                   from (select 1) one
                   left join seat_hold h on h.showtime_id = $1 and h.hold_id = $2",
            )
            .bind(showtime.get())
            .bind(hold.as_uuid())
            .bind(now)
            .fetch_one(&self.pool)
            .await?;
            (row.0.zip(row.1), row.2)
        };
        let held: Vec<(String, DateTime<Utc>)> = sqlx::query_as(
            "select seat_code, hold_expires_at from show_seat
              where showtime_id = $1 and hold_id = $2 and status = 'HELD' and hold_expires_at >= $3",
        )
        .bind(showtime.get())
        .bind(hold.as_uuid())
        .bind(at)
        .fetch_all(&self.pool)
        .await?;
        hold_check(customer, recorded.map(|(o, c)| (o, i64::from(c))), held, at)
    }

    pub(super) async fn purge_holds(
        &self,
        now: Now,
        retention: chrono::Duration,
    ) -> Result<u64, StoreError> {
        let mut holds = 0;
        loop {
            let n = sqlx::query(
                "delete from seat_hold where (showtime_id, hold_id) in (
                     select showtime_id, hold_id from seat_hold
                      where expires_at < coalesce($1::timestamptz, now()) - $2::interval
                      limit $3)",
            )
            .bind(now)
            .bind(retention)
            .bind(PURGE_BATCH)
            .execute(&self.pool)
            .await?
            .rows_affected();
            holds += n;
            if n < PURGE_BATCH as u64 {
                break;
            }
        }
        Ok(holds)
    }
}
