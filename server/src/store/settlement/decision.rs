//! What settling a paid payment does, decided from what its transaction read, the same for both
//! dialects: the decision, and the writes that carry it out (each dialect applies them with
//! its own statements, in the settling transaction).

use super::*;
use app::domain::Won;

/// What a settling transaction reads of the booking (and whether the showtime still sells).
#[derive(sqlx::FromRow)]
pub(super) struct BookingFacts {
    #[sqlx(try_from = "i64")]
    pub(super) showtime_id: ShowtimeId,
    pub(super) hold_id: uuid::Uuid,
    pub(super) status: BookingStatus,
    pub(super) seats: SeatList,
    /// Each seat's type and price, JSON (see `store::read_list`).
    pub(super) tickets: Option<String>,
    pub(super) sales_open: bool,
}

/// What a settling transaction reads of the paid payment: its outcome so far, whether its
/// charge matched, and what it took.
#[derive(sqlx::FromRow)]
pub(super) struct PaidPayment {
    pub(super) outcome: Option<String>,
    pub(super) mismatch: Option<String>,
    pub(super) paid: Won,
}

impl PaidPayment {
    fn decision(&self, facts: &BookingFacts) -> SettleDecision {
        settle_decision(
            facts.status,
            self.outcome.as_deref(),
            self.mismatch.is_some(),
            facts.sales_open,
        )
    }
}

/// Where settling goes once the booking and its paid payment are read (in either dialect).
pub(super) enum NextStep {
    /// Write these (`None`: nothing to write, already settled or nothing found).
    Write(Option<Writes>),
    /// Confirm the hold's seats first (the dialect's fenced statement), then
    /// [`Writes::after_confirm`] with what it booked and what was paid.
    Confirm(BookingFacts, Won),
}

pub(super) fn next_step(
    booking: BookingId,
    payment_id: &str,
    facts: Option<BookingFacts>,
    payment: Option<PaidPayment>,
) -> NextStep {
    let (Some(facts), Some(payment)) = (facts, payment) else {
        return NextStep::Write(None);
    };
    match payment.decision(&facts) {
        SettleDecision::AlreadySettled => NextStep::Write(None),
        SettleDecision::Refund {
            fail_booking,
            reason,
        } => NextStep::Write(Some(Writes::refund(
            booking,
            &facts,
            payment_id,
            payment.paid,
            fail_booking,
            reason,
        ))),
        SettleDecision::Confirm => NextStep::Confirm(facts, payment.paid),
    }
}

/// The writes a settlement makes, decided once for both dialects; each applies them with its
/// own statements, in the settling transaction.
pub(super) struct Writes {
    /// The booking's new status and failure reason, when it changes.
    pub(super) booking: Option<(BookingStatus, Option<&'static str>)>,
    /// What the payment became (`payment.outcome`).
    pub(super) outcome: &'static str,
    pub(super) events: Vec<Envelope>,
    pub(super) settlement: Settlement,
}

impl Writes {
    fn confirmed(
        booking: BookingId,
        facts: BookingFacts,
        payment_id: &str,
        paid: Won,
        seats: Vec<SeatChange>,
    ) -> Result<Self, StoreError> {
        let hold = app::domain::HoldId::from_uuid(facts.hold_id)
            .ok_or_else(|| StoreError::Corrupt(format!("hold id {}", facts.hold_id)))?;
        let event = BookingEvent::BookingConfirmed {
            showtime_id: facts.showtime_id,
            seats: facts.seats.texts(),
            tickets: crate::store::read_list(facts.tickets.as_deref()),
            amount: paid,
            payment_id: payment_id.into(),
            // Settled payments come from the gateway: sold online.
            channel: app::domain::SalesChannel::Online,
        };
        Ok(Self {
            booking: Some((BookingStatus::Confirmed, None)),
            outcome: "CONFIRMED",
            events: vec![Envelope::new(booking.0, event)],
            settlement: Settlement::Confirmed {
                showtime: facts.showtime_id,
                seats,
                hold,
            },
        })
    }

    /// After the fenced confirm: confirmed if it booked the seats, else refunded (the hold had
    /// lapsed or its seats went to someone else, who keeps them).
    pub(super) fn after_confirm(
        booking: BookingId,
        facts: BookingFacts,
        payment_id: &str,
        paid: Won,
        booked: Vec<(String, i64)>,
    ) -> Result<Self, StoreError> {
        Ok(if booked.is_empty() {
            Self::refund(booking, &facts, payment_id, paid, true, LAPSED_REASON)
        } else {
            Self::confirmed(
                booking,
                facts,
                payment_id,
                paid,
                changes(booked, SeatStatus::Booked)?,
            )?
        })
    }

    fn refund(
        booking: BookingId,
        facts: &BookingFacts,
        payment_id: &str,
        paid: Won,
        fail_booking: bool,
        reason: &'static str,
    ) -> Self {
        let refund = BookingEvent::RefundDue {
            showtime_id: facts.showtime_id,
            payment_id: payment_id.into(),
            amount: paid,
            reason: reason.into(),
            // A failed booking was sold no seat, and a payment given back otherwise (a second
            // one, say) leaves the booking's seats as they are.
            seats: Vec::new(),
        };
        let mut events = vec![Envelope::new(booking.0, refund)];
        if fail_booking {
            let failed = BookingEvent::BookingFailed {
                showtime_id: facts.showtime_id,
                payment_id: payment_id.into(),
                amount: paid,
                reason: reason.into(),
            };
            events.insert(0, Envelope::new(booking.0, failed));
        }
        Self {
            booking: fail_booking.then_some((BookingStatus::Failed, Some(reason))),
            outcome: "REFUND",
            events,
            settlement: if fail_booking {
                Settlement::Failed { reason }
            } else {
                Settlement::Refunded { reason }
            },
        }
    }
}

/// What settling a paid payment does, decided from what its transaction read: the booking's
/// status, the payment's (its outcome so far, whether its charge matched) and whether the
/// showtime's sales are still open. `Confirm` still has to pass the fenced confirm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SettleDecision {
    AlreadySettled,
    Confirm,
    Refund {
        fail_booking: bool,
        reason: &'static str,
    },
}

fn settle_decision(
    booking_status: BookingStatus,
    outcome: Option<&str>,
    mismatch: bool,
    sales_open: bool,
) -> SettleDecision {
    let pending = booking_status == BookingStatus::Pending;
    if outcome.is_some() {
        SettleDecision::AlreadySettled
    } else if mismatch {
        SettleDecision::Refund {
            fail_booking: pending,
            reason: MISMATCH_REASON,
        }
    } else if !pending {
        SettleDecision::Refund {
            fail_booking: false,
            reason: NOT_NEEDED_REASON,
        }
    } else if !sales_open {
        SettleDecision::Refund {
            fail_booking: true,
            reason: CLOSED_REASON,
        }
    } else {
        SettleDecision::Confirm
    }
}

/// Failure reasons recorded on a booking (and in its events).
pub const LAPSED_REASON: &str =
    "the hold had expired or its seats were taken when the payment arrived";

pub const CLOSED_REASON: &str = "sales for the showtime had closed when the payment arrived";

pub const MISMATCH_REASON: &str =
    "the payment did not match the order (amount, currency or reference)";

/// Why a payment the booking did not need is refunded (the booking is left as it was).
pub const NOT_NEEDED_REASON: &str = "the booking had already been paid or had failed";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settling_confirms_only_a_matching_first_payment_in_time_and_refunds_every_other() {
        use SettleDecision::*;
        assert_eq!(
            settle_decision(BookingStatus::Pending, None, false, true),
            Confirm
        );
        assert_eq!(
            settle_decision(BookingStatus::Pending, Some("CONFIRMED"), false, true),
            AlreadySettled
        );
        assert_eq!(
            settle_decision(BookingStatus::Pending, Some("REFUND"), true, true),
            AlreadySettled
        );
        let refund = |fail_booking, reason| Refund {
            fail_booking,
            reason,
        };
        assert_eq!(
            settle_decision(BookingStatus::Pending, None, true, true),
            refund(true, MISMATCH_REASON)
        );
        assert_eq!(
            settle_decision(BookingStatus::Confirmed, None, false, true),
            refund(false, NOT_NEEDED_REASON),
            "a second payment of a paid booking"
        );
        assert_eq!(
            settle_decision(BookingStatus::Failed, None, false, true),
            refund(false, NOT_NEEDED_REASON)
        );
        assert_eq!(
            settle_decision(BookingStatus::Pending, None, false, false),
            refund(true, CLOSED_REASON)
        );
    }
}
