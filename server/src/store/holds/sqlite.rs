use super::*;

/// Why a hold must be refused before its seats are looked at: the showtime is cancelled, its
/// sales have closed or not yet opened, or the customer's or the address's live holds are at their cap (see `HoldLimits`).
async fn hold_refusal(
    tx: &mut sqlx::Transaction<'_, sqlx::Sqlite>,
    req: &HoldRequest<'_>,
    addr: Option<&str>,
    now: At,
) -> Result<Option<HoldRefusal>, StoreError> {
    let window: Option<(bool, bool, bool)> = sqlx::query_as(
        "select coalesce(sales_close_at, starts_at) > $2, coalesce(sales_open_at > $2, 0),
                cancelled_at is not null
           from showtime where id = $1",
    )
    .bind(req.showtime.get())
    .bind(now)
    .fetch_optional(&mut **tx)
    .await?;
    match window {
        Some((_, _, true)) => return Ok(Some(HoldRefusal::Cancelled)),
        Some((true, false, _)) => {}
        Some((true, true, _)) => return Ok(Some(HoldRefusal::SalesNotOpen)),
        _ => return Ok(Some(HoldRefusal::SalesClosed)),
    }
    let live = "from seat_hold h
                where h.showtime_id = $1 and h.expires_at >= $2 and {who}
                  and exists (select 1 from show_seat s
                               where s.showtime_id = h.showtime_id and s.hold_id = h.hold_id
                                 and s.status = 'HELD')";
    if let Some(max) = req.limits.holds_per_customer {
        let holds: i64 = sqlx::query_scalar(&format!(
            "select count(*) {}",
            live.replace("{who}", "h.customer_id = $3")
        ))
        .bind(req.showtime.get())
        .bind(now)
        .bind(req.customer.0)
        .fetch_one(&mut **tx)
        .await?;
        if holds >= i64::from(max) {
            return Ok(Some(HoldRefusal::HoldLimit));
        }
    }
    if let (Some(max), Some(addr)) = (req.limits.seats_per_address, addr) {
        let seats: i64 = sqlx::query_scalar(&format!(
            "select coalesce(sum(h.seat_count), 0) {}",
            live.replace("{who}", "h.client_addr = $3")
        ))
        .bind(req.showtime.get())
        .bind(now)
        .bind(addr)
        .fetch_one(&mut **tx)
        .await?;
        if seats + req.seats.len() as i64 > i64::from(max) {
            return Ok(Some(HoldRefusal::AddressLimit));
        }
    }
    if let Some(cooldown) = req.limits.cooldown {
        let codes = List(req.seats.to_vec());
        let since =
            At(now.0 - chrono::Duration::from_std(cooldown).unwrap_or(chrono::Duration::MAX));
        let (released, ended): (i64, Option<At>) = sqlx::query_as(
            "select count(*), max(coalesce(h.ended_at, h.expires_at)) from seat_hold h
              where h.showtime_id = $1 and (h.customer_id = $2 or h.client_addr = $3)
                and coalesce(h.ended_at, h.expires_at) <= $4
                and coalesce(h.ended_at, h.expires_at) > $5
                and exists (select 1 from json_each(h.seats) j
                             where j.value in (select value from json_each($6)))
                and not exists (select 1 from booking b
                                 where b.hold_id = h.hold_id and b.status = 'CONFIRMED')",
        )
        .bind(req.showtime.get())
        .bind(req.customer.0)
        .bind(addr)
        .bind(now)
        .bind(since)
        .bind(&codes)
        .fetch_one(&mut **tx)
        .await?;
        // Letting seats go once or twice is changing one's mind; a third time is a renewal.
        if let (2.., Some(ended)) = (released, ended) {
            return Ok(Some(HoldRefusal::Cooldown(ended.after(cooldown).0)));
        }
    }
    Ok(None)
}

/// Its own statements of [`Store`]'s holds.
impl SqliteStore {
    pub(super) async fn hold(
        &self,
        req: HoldRequest<'_>,
        now: Now,
    ) -> Result<HoldOutcome, StoreError> {
        let now = At::or_now(now);
        let expires = now.after(req.ttl);
        let codes = List(req.seats.to_vec());
        let addr = req.client_addr.map(|a| a.to_string());
        let mut tx = self.write.begin_with("BEGIN IMMEDIATE").await?;
        // The single writer makes these checks and the update below one decision.
        if let Some(refusal) = hold_refusal(&mut tx, &req, addr.as_deref(), now).await? {
            tx.rollback().await?;
            return Ok(HoldOutcome::Refused(refusal));
        }
        let held = sqlx::query_as::<_, (String, i64)>(
            "update show_seat
                set status = 'HELD', hold_id = $1, customer_id = $2, hold_expires_at = $3,
                    booking_id = null, version = version + 1
              where showtime_id = $4 and seat_code in (select value from json_each($5))
                and (blocked is null or (blocked = 'HOUSE' and $7))
                and (status = 'AVAILABLE' or (status = 'HELD' and hold_expires_at < $6))
             returning seat_code, version",
        )
        .bind(req.hold_id.as_uuid())
        .bind(req.customer.0)
        .bind(expires)
        .bind(req.showtime.get())
        .bind(&codes)
        .bind(now)
        .bind(req.house_ok)
        .fetch_all(&mut *tx)
        .await?;
        if held.len() != req.seats.len() {
            tx.rollback().await?;
            let found = sqlx::query_as::<_, (String, bool)>(
                "select seat_code, (blocked is null or (blocked = 'HOUSE' and $4))
                        and (status = 'AVAILABLE' or (status = 'HELD' and hold_expires_at < $3))
                   from show_seat where showtime_id = $1 and seat_code in (select value from json_each($2))",
            )
            .bind(req.showtime.get())
            .bind(&codes)
            .bind(now)
            .bind(req.house_ok)
            .fetch_all(&self.read)
            .await?;
            let mut outcome = rejection(req.seats, found);
            if let HoldOutcome::Rejected {
                unavailable,
                unknown,
            } = &mut outcome
            {
                // The report is read after the rollback; if the blocker left meanwhile, still
                // say which seats were requested so the client can retry knowingly.
                if unavailable.is_empty() && unknown.is_empty() {
                    *unavailable = req.seats.to_vec();
                }
            }
            return Ok(outcome);
        }
        sqlx::query(
            "insert into seat_hold (showtime_id, hold_id, customer_id, seats, seat_count, expires_at,
                                    client_addr)
             values ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(req.showtime.get())
        .bind(req.hold_id.as_uuid())
        .bind(req.customer.0)
        .bind(&codes)
        .bind(req.seats.len() as i64)
        .bind(expires)
        .bind(&addr)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(HoldOutcome::Held {
            expires_at: expires.0,
            changes: changes(held, SeatStatus::Held)?,
        })
    }

    pub(super) async fn cancel(
        &self,
        hold: HoldId,
        customer: CustomerId,
    ) -> Result<CancelOutcome, StoreError> {
        let showtime = hold.showtime_id();
        let mut tx = self.write.begin_with("BEGIN IMMEDIATE").await?;
        let freed = sqlx::query_as::<_, (String, i64, Option<String>)>(
            "update show_seat
                set status = 'AVAILABLE', hold_id = null, customer_id = null, hold_expires_at = null,
                    version = version + 1
              where showtime_id = $1 and hold_id = $2 and customer_id = $3 and status = 'HELD'
             returning seat_code, version, blocked",
        )
        .bind(showtime.get())
        .bind(hold.as_uuid())
        .bind(customer.0)
        .fetch_all(&mut *tx)
        .await?;
        if !freed.is_empty() {
            // Its cool-down starts now (see `HoldLimits::cooldown`).
            sqlx::query(
                "update seat_hold set ended_at = $3
                  where showtime_id = $1 and hold_id = $2 and ended_at is null",
            )
            .bind(showtime.get())
            .bind(hold.as_uuid())
            .bind(At::or_now(None))
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        if !freed.is_empty() {
            return Ok(CancelOutcome::Released(released(freed)?));
        }
        let owner: Option<uuid::Uuid> = sqlx::query_scalar(
            "select customer_id from seat_hold where showtime_id = $1 and hold_id = $2",
        )
        .bind(showtime.get())
        .bind(hold.as_uuid())
        .fetch_optional(&self.read)
        .await?;
        Ok(cancel_refusal(owner, customer))
    }

    pub(super) async fn active_hold(
        &self,
        showtime: ShowtimeId,
        customer: CustomerId,
        now: Now,
    ) -> Result<Option<ActiveHold>, StoreError> {
        let row = sqlx::query_as::<_, (uuid::Uuid, At, String)>(
            "select hold_id, max(hold_expires_at), group_concat(seat_code, ',')
               from show_seat
              where showtime_id = $1 and customer_id = $2 and status = 'HELD' and hold_expires_at >= $3
              group by hold_id
              order by 2 desc
              limit 1",
        )
        .bind(showtime.get())
        .bind(customer.0)
        .bind(At::or_now(now))
        .fetch_optional(&self.read)
        .await?;
        row.map(|(hold, expires, seats)| {
            active_hold(
                hold,
                expires.0,
                seats.split(',').map(String::from).collect(),
            )
        })
        .transpose()
    }

    pub(super) async fn confirm(
        &self,
        hold: HoldId,
        booking: BookingId,
        now: Now,
    ) -> Result<Option<Vec<SeatChange>>, StoreError> {
        let mut tx = self.write.begin_with("BEGIN IMMEDIATE").await?;
        let booked = super::super::dialect::sqlite_confirm(
            &mut tx,
            hold.showtime_id(),
            hold.as_uuid(),
            booking,
            At::or_now(now),
        )
        .await?;
        if booked.is_empty() {
            return Ok(None);
        }
        tx.commit().await?;
        Ok(Some(changes(booked, SeatStatus::Booked)?))
    }

    pub(super) async fn sweep(&self, now: Now) -> Result<Vec<Released>, StoreError> {
        let rows = sqlx::query_as::<_, (i64, String, i64, Option<String>)>(
            "update show_seat
                set status = 'AVAILABLE', hold_id = null, customer_id = null, hold_expires_at = null,
                    version = version + 1
              where status = 'HELD'
                and (hold_expires_at < $1
                     or showtime_id in (select id from showtime where cancelled_at is not null))
             returning showtime_id, seat_code, version, blocked",
        )
        .bind(At::or_now(now))
        .fetch_all(&self.write)
        .await?;
        let mut out: Vec<Released> = Vec::new();
        for (showtime, code, version, blocked) in rows {
            let change = released(vec![(code, version, blocked)])?;
            match out.iter_mut().find(|r| r.showtime.get() == showtime) {
                Some(r) => r.changes.extend(change),
                None => out.push(Released {
                    showtime: stored_showtime(showtime)?,
                    changes: change,
                }),
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
        let at = At::or_now(now);
        let recorded: Option<(uuid::Uuid, i64)> = sqlx::query_as(
            "select customer_id, seat_count from seat_hold where showtime_id = $1 and hold_id = $2",
        )
        .bind(showtime.get())
        .bind(hold.as_uuid())
        .fetch_optional(&self.read)
        .await?;
        let held: Vec<(String, At)> = sqlx::query_as(
            "select seat_code, hold_expires_at from show_seat
              where showtime_id = $1 and hold_id = $2 and status = 'HELD' and hold_expires_at >= $3",
        )
        .bind(showtime.get())
        .bind(hold.as_uuid())
        .bind(at)
        .fetch_all(&self.read)
        .await?;
        let held = held.into_iter().map(|(c, e)| (c, e.0)).collect();
        hold_check(customer, recorded, held, at.0)
    }

    pub(super) async fn purge_holds(
        &self,
        now: Now,
        retention: chrono::Duration,
    ) -> Result<u64, StoreError> {
        let at = At::or_now(now);
        let mut holds = 0;
        loop {
            let n = sqlx::query(
                "delete from seat_hold where rowid in (
                     select rowid from seat_hold where expires_at < $1 - $2 limit $3)",
            )
            .bind(at)
            .bind(retention.num_milliseconds())
            .bind(PURGE_BATCH)
            .execute(&self.write)
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
