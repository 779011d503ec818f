//! What a booking may have given back at the counter, and how a refund splits it.

use super::*;

/// Why a booking is not refunded or exchanged at the counter (see `booking_at_counter!`).
pub(super) enum AtCounter {
    ShiftClosed,
    NotFound,
    Refused(String),
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
    pub(super) amount_krw: i64,
    pub(super) tender: Option<String>,
    /// Owed back at the counter (its showtime was cancelled): given back whole, even when
    /// some of its seats were checked in before the cancellation.
    pub(super) owed: bool,
}

impl RefundFacts {
    /// The seats a refund gives back, those the booking keeps, and the amount: the booking's
    /// whole amount for all its seats, else the seats' prices (at most what is left to give).
    pub(super) fn split(
        &self,
        refund: &CounterRefundRow,
    ) -> Result<(Vec<String>, Vec<String>, i64), String> {
        let giving = match &refund.seats {
            None => self.seats.0.clone(),
            Some(seats) => seats.clone(),
        };
        if let Some(seat) = giving.iter().find(|s| !self.seats.0.contains(s)) {
            return Err(format!("seat {seat} is not in this booking"));
        }
        let keeping: Vec<String> = self
            .seats
            .0
            .iter()
            .filter(|s| !giving.contains(s))
            .cloned()
            .collect();
        let amount = match keeping.is_empty() {
            true => self.amount_krw,
            false => refund.partial_amount.clamp(0, self.amount_krw),
        };
        Ok((giving, keeping, amount))
    }

    /// Why the booking cannot be `what` (refunded, exchanged) at the counter, if it cannot.
    pub(super) fn refusal(&self, what: &str) -> Option<String> {
        if self.status != BookingStatus::Confirmed {
            Some(format!("only a confirmed booking is {what} at the counter"))
        } else if self.refunded {
            Some("this booking was refunded already".into())
        } else if self.checked_in && !self.owed {
            Some(format!(
                "this ticket was checked in at the door: it is not {what}"
            ))
        } else {
            None
        }
    }
}
