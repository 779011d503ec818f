//! Refunds and exchanges at the counter: what a booking may have given back (`RefundFacts`; how
//! a refund splits it is decided in `decision.rs`), and the two transactions, written once for
//! both dialects.

mod steps;

use super::counter::{shift_open, showtime_state};
use super::*;
use crate::store::sql::seat_texts;
use app::domain::{GivenBack, Won};
use app::error::Reason;
use steps::*;

/// Why a booking is not refunded or exchanged at the counter (see `booking_at_counter`).
pub(super) enum AtCounter {
    ShiftClosed,
    NotFound,
    Refused(Reason),
}

impl From<AtCounter> for CounterRefunded {
    fn from(refusal: AtCounter) -> Self {
        match refusal {
            AtCounter::ShiftClosed => Self::ShiftClosed,
            AtCounter::NotFound => Self::NotFound,
            AtCounter::Refused(why) => Self::Refused(why),
        }
    }
}

impl From<AtCounter> for CounterExchanged {
    fn from(refusal: AtCounter) -> Self {
        match refusal {
            AtCounter::ShiftClosed => Self::ShiftClosed,
            AtCounter::NotFound => Self::NotFound,
            AtCounter::Refused(why) => Self::Refused(why),
        }
    }
}

/// `REFUND_FACTS`.
#[derive(sqlx::FromRow)]
pub(super) struct RefundFacts {
    pub(super) showtime_id: i64,
    pub(super) seats: SeatList,
    pub(super) status: BookingStatus,
    pub(super) refunded: bool,
    /// Read in a statement of its own (see `CHECKED_IN`).
    #[sqlx(skip)]
    pub(super) checked_in: bool,
    pub(super) amount_krw: Won,
    /// Each seat's type and price as sold, JSON (see `store::read_list`).
    pub(super) tickets: Option<String>,
    /// The seats it gave back before, JSON (see `store::read_list`).
    pub(super) given_back: Option<String>,
    pub(super) tender: Option<String>,
    /// Owed back at the counter (its showtime was cancelled): given back whole, even when
    /// some of its seats were checked in before the cancellation.
    pub(super) owed: bool,
}

/// In `tx`: the shift still open (its row shared in PostgreSQL), then the booking's row locked
/// and read, then (a statement of its own, after the lock: a check-in committed before it is
/// seen, and a check-in takes the booking's row too, so none commits in between) whether it was
/// checked in; its facts if it may be `what` at the counter.
async fn booking_at_counter(
    tx: &mut Tx,
    shift: i64,
    booking: BookingId,
    what: &str,
) -> Result<Result<RefundFacts, AtCounter>, StoreError> {
    let open = shift_open(tx, shift).await?;
    let mut facts = match open {
        true => refund_facts(tx, booking).await?,
        false => None,
    };
    if let Some(facts) = facts.as_mut() {
        facts.checked_in = checked_in(tx, booking).await?;
    }
    Ok(at_counter(open, facts, what))
}

impl Store {
    /// Refunds seats of a confirmed booking not refunded nor checked in at the counter, in one
    /// transaction: what it
    /// gives back and the amount are the booking's facts' (`RefundFacts::split`), how is
    /// `refund_method`'s; the seats freed, the booking's seats and amount now, the refund's row,
    /// then either the owed refund paid (a cancelled showtime's sale, already counted) or the
    /// refund's event (`RefundDue` for an online payment, which the refund worker pays back, else
    /// `RefundIssued`), and the audit line.
    pub async fn refund_at_counter(
        &self,
        refund: &CounterRefundRow,
        at: At,
    ) -> Result<CounterRefunded, StoreError> {
        let mut tx = self.begin().await?;
        let booking =
            match booking_at_counter(&mut tx, refund.shift, refund.booking, "refunded").await? {
                Ok(booking) => booking,
                Err(refusal) => return Ok(refusal.into()),
            };
        let (giving, keeping, amount) = match booking.split(refund) {
            Ok(split) => split,
            Err(why) => return Ok(CounterRefunded::Refused(why)),
        };
        // A cancelled showtime's counter sale: owed back whole, and already counted as refunded in
        // the figures (its `RefundOwed`): paying it out writes no second refund event.
        let owed = booking.owed;
        if owed && !keeping.is_empty() {
            return Ok(CounterRefunded::Refused(Reason::new(
                "invalid.owed_whole",
                &[],
            )));
        }
        let paid = paid_online(&mut tx, refund.booking).await?;
        let method = match refund_method(
            booking.tender.as_deref(),
            paid.is_some(),
            keeping.is_empty(),
        ) {
            Ok(method) => method,
            Err(why) => return Ok(CounterRefunded::Refused(why)),
        };
        let released =
            release_booked(&mut tx, booking.showtime_id, refund.booking, &giving).await?;
        if released.len() != giving.len() {
            tx.rollback().await?;
            return Ok(CounterRefunded::Refused(Reason::new(
                "invalid.seats_changed",
                &[],
            )));
        }
        // The seats kept keep their types; a booking given back whole keeps what it was sold as.
        let kept: Vec<SoldSeat> = crate::store::read_list::<SoldSeat>(booking.tickets.as_deref())
            .into_iter()
            .filter(|t| keeping.iter().any(|k| k.as_str() == t.seat))
            .collect();
        let kept = (!keeping.is_empty() && !kept.is_empty()).then_some(kept.as_slice());
        let after = BookingAfter {
            seats: &keeping,
            less: amount,
            refunded: amount,
            whole: keeping.is_empty(),
            tickets: kept,
            given_back: &booking.given_back(&giving, GivenBack::Refunded),
        };
        set_booking_seats(&mut tx, refund.booking, &after, at).await?;
        insert_refund(&mut tx, refund, &giving, &method, amount, at).await?;
        let showtime = stored_showtime(booking.showtime_id)?;
        let detail = match owed {
            true => {
                pay_owed(&mut tx, refund.booking, at, refund.shift).await?;
                format!(
                    "{}: {method} {amount} (owed back: its showtime was cancelled)",
                    refund.audit.detail
                )
            }
            false => {
                let event = match &paid {
                    Some((payment_id, paid_amount)) if booking.tender.is_none() => {
                        if !mark_payment_refund(&mut tx, payment_id).await? {
                            tx.rollback().await?;
                            return Ok(CounterRefunded::Refused(Reason::new(
                                "invalid.refund_under_way",
                                &[],
                            )));
                        }
                        BookingEvent::RefundDue {
                            showtime_id: showtime,
                            payment_id: payment_id.clone(),
                            amount: *paid_amount,
                            reason: "refunded at the box office".into(),
                            seats: seat_texts(&giving),
                        }
                    }
                    _ => BookingEvent::RefundIssued {
                        showtime_id: showtime,
                        payment_id: format!("{method}:{}", refund.booking.0),
                        refund_id: format!("counter:{}", uuid::Uuid::new_v4()),
                        amount,
                        channel: refund_channel(&method),
                        seats: seat_texts(&giving),
                    },
                };
                tx.append_event(&Envelope::new(refund.booking.0, event))
                    .await?;
                // The amount and method are decided here: the line says them.
                format!("{}: {method} {amount}", refund.audit.detail)
            }
        };
        let mut facts = refund.audit.facts.clone();
        facts.extend([
            app::domain::AuditFact::Tender(method.clone()),
            app::domain::AuditFact::Amount(amount),
        ]);
        let line = AuditLine {
            detail,
            facts,
            ..refund.audit.clone()
        };
        record_audit(&mut tx, &line).await?;
        tx.commit().await?;
        Ok(CounterRefunded::Refunded {
            showtime,
            seats: crate::store::released(released)?,
            amount,
            method,
        })
    }

    /// Cancels a customer's own online booking (confirmed, not refunded, not checked in, not sold
    /// at the counter) in one transaction: the booking's row locked and its facts read, as a
    /// counter refund does; every seat back on sale, the booking refunded, its payment marked for
    /// refund and `RefundDue` written for the refund worker. Whose booking it is is the engine's to
    /// check before; the cut-off (the showtime starts more than `cutoff` after `now`, else the
    /// database's clock) is checked in this transaction.
    pub async fn cancel_booking(
        &self,
        booking: BookingId,
        now: Now,
        cutoff: chrono::Duration,
    ) -> Result<OnlineCancelled, StoreError> {
        let at = At::or_now(now);
        let fence = self.fence(now);
        let mut tx = self.begin().await?;
        let Some(mut facts) = refund_facts(&mut tx, booking).await? else {
            return Ok(OnlineCancelled::NotFound);
        };
        // The cut-off by the one clock, in this transaction: never a process's own.
        if !before_cutoff(&mut tx, facts.showtime_id, fence, cutoff).await? {
            let minutes = cutoff.num_minutes().to_string();
            return Ok(OnlineCancelled::Refused(Reason::new(
                "invalid.cancel_too_late",
                &[("minutes", minutes)],
            )));
        }
        facts.checked_in = checked_in(&mut tx, booking).await?;
        let refuse = |key: &str| Ok(OnlineCancelled::Refused(Reason::new(key, &[])));
        if facts.status != BookingStatus::Confirmed || facts.refunded {
            return refuse("invalid.cancel_not_confirmed");
        }
        if facts.tender.is_some() || facts.owed {
            return refuse("invalid.cancel_at_counter");
        }
        if facts.checked_in {
            return refuse("invalid.cancel_checked_in");
        }
        let Some((payment_id, paid)) = paid_online(&mut tx, booking).await? else {
            return refuse("invalid.cancel_at_counter");
        };
        let released = release_booked(&mut tx, facts.showtime_id, booking, &facts.seats.0).await?;
        if released.len() != facts.seats.0.len()
            || !mark_payment_refund(&mut tx, &payment_id).await?
        {
            tx.rollback().await?;
            return refuse("invalid.cancel_not_confirmed");
        }
        let after = BookingAfter {
            seats: &[],
            less: facts.amount_krw,
            refunded: paid,
            whole: true,
            tickets: None,
            given_back: &facts.given_back(&facts.seats.0, GivenBack::Refunded),
        };
        set_booking_seats(&mut tx, booking, &after, at).await?;
        let showtime = stored_showtime(facts.showtime_id)?;
        let refund = BookingEvent::RefundDue {
            showtime_id: showtime,
            payment_id,
            amount: paid,
            reason: "cancelled by the customer".into(),
            seats: seat_texts(&facts.seats.0),
        };
        tx.append_event(&Envelope::new(booking.0, refund)).await?;
        tx.commit().await?;
        Ok(OnlineCancelled::Cancelled {
            showtime,
            seats: crate::store::released(released)?,
            amount: paid,
        })
    }

    /// Exchanges seats of a confirmed booking for the clerk's hold in one transaction (the ticket
    /// stays valid):
    /// the showtime's row (shared, in PostgreSQL) before the booking's, in the order a cancellation
    /// takes them (showtime, then its counter bookings): never a deadlock. The booking's seats
    /// freed, the hold's booked for it by the fenced confirm — both whole or nothing — the hold used
    /// up, `SeatsExchanged` and the audit line.
    pub async fn exchange_at_counter(
        &self,
        exchange: &CounterExchangeRow,
        at: At,
        now: Now,
    ) -> Result<CounterExchanged, StoreError> {
        let fence = self.fence(now);
        let mut tx = self.begin().await?;
        let state = showtime_state(&mut tx, exchange.hold.showtime_id().get(), fence).await?;
        if state != Some((false, true)) {
            return Ok(CounterExchanged::Refused(Reason::new(
                "invalid.exchange_closed",
                &[],
            )));
        }
        let booking =
            match booking_at_counter(&mut tx, exchange.shift, exchange.booking, "exchanged").await?
            {
                Ok(booking) => booking,
                Err(refusal) => return Ok(refusal.into()),
            };
        if let Some(why) = exchange_refusal(&booking, exchange) {
            return Ok(CounterExchanged::Refused(why));
        }
        let released = release_booked(
            &mut tx,
            booking.showtime_id,
            exchange.booking,
            &exchange.from,
        )
        .await?;
        let hold = exchange.hold;
        let booked = tx
            .confirm(hold.showtime_id(), hold.as_uuid(), exchange.booking, fence)
            .await?;
        if released.len() != exchange.from.len() || booked.len() != exchange.to.len() {
            tx.rollback().await?;
            return Ok(CounterExchanged::HoldLapsed);
        }
        let seats = seats_after_exchange(&booking.seats.0, exchange);
        // Each new seat at the type and price of the seat it replaces (paired by category).
        let tickets: Vec<SoldSeat> =
            crate::store::read_list::<SoldSeat>(booking.tickets.as_deref())
                .into_iter()
                .map(|mut t| {
                    if let Some(at) = exchange.from.iter().position(|f| f.as_str() == t.seat) {
                        t.seat = exchange.to[at].to_string();
                    }
                    t
                })
                .collect();
        let tickets = (!tickets.is_empty()).then_some(tickets.as_slice());
        let after = BookingAfter {
            seats: &seats,
            less: Won::ZERO,
            refunded: Won::ZERO,
            whole: false,
            tickets,
            given_back: &booking.given_back(&exchange.from, GivenBack::Exchanged),
        };
        set_booking_seats(&mut tx, exchange.booking, &after, at).await?;
        // The hold is used up: nothing else confirms it.
        delete_hold(&mut tx, exchange.hold).await?;
        let exchanged = BookingEvent::SeatsExchanged {
            showtime_id: stored_showtime(booking.showtime_id)?,
            released: seat_texts(&exchange.from),
            booked: seat_texts(&exchange.to),
            seats: seat_texts(&seats),
        };
        tx.append_event(&Envelope::new(exchange.booking.0, exchanged))
            .await?;
        record_audit(&mut tx, &exchange.audit).await?;
        tx.commit().await?;
        Ok(CounterExchanged::Exchanged {
            released: crate::store::released(released)?,
            booked: changes(booked, SeatStatus::Booked)?,
        })
    }
}
