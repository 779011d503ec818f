//! The transactions of refunds and exchanges at the counter, as both dialects run them.

/// In `$tx`: shift `$shift` still open (its row shared in PostgreSQL), then booking `$booking`'s
/// row locked and read, then (a statement of its own, after the lock: a check-in committed
/// before it is seen, and a check-in takes the booking's row too, so none commits in between)
/// whether it was checked in; `Ok` with its facts if it may be `$what` at the counter.
macro_rules! booking_at_counter {
    ($tx:ident, $shift:expr, $booking:expr, $what:literal) => {{
        let booking: BookingId = $booking;
        let open: Option<i64> = sqlx::query_scalar(&format!("{SHIFT_OPEN}{}", LOCK_SHIFT))
            .bind($shift)
            .fetch_optional(&mut *$tx)
            .await?;
        let facts: Option<RefundFacts> = match open {
            None => None,
            Some(_) => {
                sqlx::query_as(&format!("{REFUND_FACTS}{}", LOCK_BOOKING))
                    .bind(booking.0)
                    .fetch_optional(&mut *$tx)
                    .await?
            }
        };
        match (open, facts) {
            (None, _) => Err(AtCounter::ShiftClosed),
            (_, None) => Err(AtCounter::NotFound),
            (_, Some(mut facts)) => {
                facts.checked_in = sqlx::query_scalar(CHECKED_IN)
                    .bind(booking.0)
                    .fetch_one(&mut *$tx)
                    .await?;
                match facts.refusal($what) {
                    Some(why) => Err(AtCounter::Refused(why)),
                    None => Ok(facts),
                }
            }
        }
    }};
}

/// A refund at the counter in `$tx` (see [`BoxOffice::refund_at_counter`]); `$seat_in` is the
/// dialect's "seat code is in list `$3`".
macro_rules! refund_at_counter {
    ($tx:ident, $refund:expr, $at:expr, seat_in: $seat_in:literal) => {{
        let refund: &CounterRefundRow = $refund;
        let at: At = $at;
        let booking = match booking_at_counter!($tx, refund.shift, refund.booking, "refunded") {
            Ok(booking) => booking,
            Err(refusal) => return Ok(refusal.into()),
        };
        let (giving, keeping, amount) = match booking.split(refund) {
            Ok(split) => split,
            Err(why) => return Ok(CounterRefunded::Refused(why)),
        };
        // A cancelled showtime's counter sale: owed back whole, and already counted as refunded
        // in the figures (its `RefundOwed`): paying it out writes no second refund event.
        let owed = booking.owed;
        if owed && !keeping.is_empty() {
            return Ok(CounterRefunded::Refused(
                "its showtime was cancelled: the whole booking is given back".into(),
            ));
        }
        let paid: Option<(String, i64)> = sqlx::query_as(&format!("{PAID_ONLINE}{}", LOCK_PAYMENT))
            .bind(refund.booking.0)
            .fetch_optional(&mut *$tx)
            .await?;
        let method = match (&booking.tender, &paid) {
            (Some(tender), _) => tender.clone(),
            (None, Some(_)) if keeping.is_empty() => "gateway".to_string(),
            (None, Some(_)) => {
                return Ok(CounterRefunded::Refused(
                    "an online booking is refunded whole (its payment goes back in one piece)"
                        .into(),
                ))
            }
            (None, None) => {
                return Ok(CounterRefunded::Refused(
                    "this booking has no payment to give back".into(),
                ))
            }
        };
        let released: Vec<(String, i64, Option<String>)> = sqlx::query_as(&format!(
            "{RELEASE_BOOKED} and seat_code {} {RETURNING}",
            $seat_in
        ))
        .bind(booking.showtime_id)
        .bind(refund.booking.0)
        .bind(SeatList(giving.clone()))
        .fetch_all(&mut *$tx)
        .await?;
        if released.len() != giving.len() {
            $tx.rollback().await?;
            return Ok(CounterRefunded::Refused(
                "the booking's seats changed meanwhile; try again".into(),
            ));
        }
        sqlx::query(SET_BOOKING_SEATS)
            .bind(refund.booking.0)
            .bind(SeatList(keeping.clone()))
            .bind(amount)
            .bind(keeping.is_empty())
            .bind(at)
            .execute(&mut *$tx)
            .await?;
        sqlx::query(INSERT_REFUND)
            .bind(refund.booking.0)
            .bind(refund.shift)
            .bind(SeatList(giving.clone()))
            .bind(&method)
            .bind(amount)
            .bind(refund.approved_by)
            .bind(at)
            .execute(&mut *$tx)
            .await?;
        let showtime = stored_showtime(booking.showtime_id)?;
        if owed {
            sqlx::query(PAY_OWED)
                .bind(refund.booking.0)
                .bind(at)
                .bind(refund.shift)
                .execute(&mut *$tx)
                .await?;
            let line = AuditLine {
                detail: format!(
                    "{}: {method} {amount} (owed back: its showtime was cancelled)",
                    refund.audit.detail
                ),
                ..refund.audit.clone()
            };
            record_audit!($tx, &line);
            $tx.commit().await?;
            return Ok(CounterRefunded::Refunded {
                showtime,
                seats: crate::store::released(released)?,
                amount,
                method,
            });
        }
        let event = match &paid {
            Some((payment_id, paid_amount)) if booking.tender.is_none() => {
                let marked = sqlx::query(
                    "update payment set outcome = 'REFUND'
                      where provider_payment_id = $1 and outcome = 'CONFIRMED'",
                )
                .bind(payment_id)
                .execute(&mut *$tx)
                .await?;
                if marked.rows_affected() != 1 {
                    $tx.rollback().await?;
                    return Ok(CounterRefunded::Refused(
                        "its payment is being refunded already".into(),
                    ));
                }
                BookingEvent::RefundDue {
                    showtime_id: showtime,
                    payment_id: payment_id.clone(),
                    amount: *paid_amount,
                    reason: "refunded at the box office".into(),
                }
            }
            _ => BookingEvent::RefundIssued {
                showtime_id: showtime,
                payment_id: format!("{method}:{}", refund.booking.0),
                refund_id: format!("counter:{}", uuid::Uuid::new_v4()),
                amount,
                channel: if method == "comp" {
                    SalesChannel::Complimentary
                } else {
                    SalesChannel::BoxOffice
                },
            },
        };
        append_event(&mut $tx, &Envelope::new(refund.booking.0, event)).await?;
        // The amount and method are decided here: the line says them.
        let line = AuditLine {
            detail: format!("{}: {method} {amount}", refund.audit.detail),
            ..refund.audit.clone()
        };
        record_audit!($tx, &line);
        $tx.commit().await?;
        Ok(CounterRefunded::Refunded {
            showtime,
            seats: crate::store::released(released)?,
            amount,
            method,
        })
    }};
}

/// An exchange at the counter in `$tx` (see [`BoxOffice::exchange_at_counter`]): `$confirm`
/// books the clerk's hold for the booking and evaluates to the `(code, version)` rows it booked;
/// `$seat_in` as for refunds.
macro_rules! exchange_at_counter {
    ($tx:ident, $exchange:expr, $at:expr, fence: $fence:expr, seat_in: $seat_in:literal, $confirm:expr) => {{
        let exchange: &CounterExchangeRow = $exchange;
        let at: At = $at;
        // The showtime's row (shared, in PostgreSQL) before the booking's, in the order a
        // cancellation takes them (showtime, then its counter bookings): never a deadlock.
        let state: Option<(bool, bool)> = sqlx::query_as(&showtime_state!())
            .bind(exchange.hold.showtime_id().get())
            .bind($fence)
            .fetch_optional(&mut *$tx)
            .await?;
        if state != Some((false, true)) {
            return Ok(CounterExchanged::Refused(
                "this showtime's sales have closed (or it was cancelled)".into(),
            ));
        }
        let booking = match booking_at_counter!($tx, exchange.shift, exchange.booking, "exchanged")
        {
            Ok(booking) => booking,
            Err(refusal) => return Ok(refusal.into()),
        };
        if booking.showtime_id != exchange.hold.showtime_id().get() {
            return Ok(CounterExchanged::Refused(
                "an exchange is for seats of the same showtime".into(),
            ));
        }
        if let Some(seat) = exchange.from.iter().find(|s| !booking.seats.0.contains(s)) {
            return Ok(CounterExchanged::Refused(format!(
                "seat {seat} is not in this booking"
            )));
        }
        let released: Vec<(String, i64, Option<String>)> = sqlx::query_as(&format!(
            "{RELEASE_BOOKED} and seat_code {} {RETURNING}",
            $seat_in
        ))
        .bind(booking.showtime_id)
        .bind(exchange.booking.0)
        .bind(SeatList(exchange.from.clone()))
        .fetch_all(&mut *$tx)
        .await?;
        let booked: Vec<(String, i64)> = $confirm;
        if released.len() != exchange.from.len() || booked.len() != exchange.to.len() {
            $tx.rollback().await?;
            return Ok(CounterExchanged::HoldLapsed);
        }
        let mut seats: Vec<String> = booking
            .seats
            .0
            .iter()
            .filter(|s| !exchange.from.contains(s))
            .cloned()
            .collect();
        seats.extend(exchange.to.iter().cloned());
        let seats_now = seats.clone();
        sqlx::query(SET_BOOKING_SEATS)
            .bind(exchange.booking.0)
            .bind(SeatList(seats))
            .bind(0i64)
            .bind(false)
            .bind(at)
            .execute(&mut *$tx)
            .await?;
        // The hold is used up: nothing else confirms it.
        sqlx::query("delete from seat_hold where showtime_id = $1 and hold_id = $2")
            .bind(exchange.hold.showtime_id().get())
            .bind(exchange.hold.as_uuid())
            .execute(&mut *$tx)
            .await?;
        let exchanged = BookingEvent::SeatsExchanged {
            showtime_id: stored_showtime(booking.showtime_id)?,
            released: exchange.from.clone(),
            booked: exchange.to.clone(),
            seats: seats_now,
        };
        append_event(&mut $tx, &Envelope::new(exchange.booking.0, exchanged)).await?;
        record_audit!($tx, &exchange.audit);
        $tx.commit().await?;
        Ok(CounterExchanged::Exchanged {
            released: crate::store::released(released)?,
            booked: changes(booked, SeatStatus::Booked)?,
        })
    }};
}
