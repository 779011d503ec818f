//! What the box office's transactions decide, as pure functions of what they read: the
//! transactions (`counter.rs`, `returns.rs`, `door.rs`) apply the answers.

use super::*;
use app::domain::{GivenBack, SeatCode, SeatGivenBack, TicketType};
use app::error::Reason;

/// Whether a sale (or an exchange) may go on, from its shift being open and its showtime's
/// `(cancelled, on sale)` state; the refusal otherwise.
pub(super) fn sale_refusal(shift_open: bool, state: Option<(bool, bool)>) -> Option<CounterSold> {
    match (shift_open, state) {
        (false, _) => Some(CounterSold::ShiftClosed),
        (true, Some((false, true))) => None,
        (true, Some((true, _))) => Some(CounterSold::Cancelled),
        (true, _) => Some(CounterSold::SalesClosed),
    }
}

/// Whether a booking may be `what` (refunded, exchanged) at the counter: the shift open, the
/// booking found, and its facts allowing it.
pub(super) fn at_counter(
    shift_open: bool,
    facts: Option<RefundFacts>,
    what: &str,
) -> Result<RefundFacts, AtCounter> {
    match (shift_open, facts) {
        (false, _) => Err(AtCounter::ShiftClosed),
        (_, None) => Err(AtCounter::NotFound),
        (_, Some(facts)) => match facts.refusal(what) {
            Some(why) => Err(AtCounter::Refused(why)),
            None => Ok(facts),
        },
    }
}

/// How a refund is given back: the sale's tender, or the gateway for an online booking given
/// back whole; why not otherwise.
pub(super) fn refund_method(
    tender: Option<&str>,
    paid_online: bool,
    whole: bool,
) -> Result<String, Reason> {
    match (tender, paid_online) {
        (Some(tender), _) => Ok(tender.to_string()),
        (None, true) if whole => Ok("gateway".to_string()),
        (None, true) => Err(Reason::new("invalid.online_whole", &[])),
        (None, false) => Err(Reason::new("invalid.no_payment", &[])),
    }
}

/// The channel a counter refund of `method` is counted in.
pub(super) fn refund_channel(method: &str) -> SalesChannel {
    if method == "comp" {
        SalesChannel::Complimentary
    } else {
        SalesChannel::BoxOffice
    }
}

/// Why an exchange of `from` for the clerk's hold is refused by what the booking is now, if it
/// is: the same showtime, and seats that are the booking's.
pub(super) fn exchange_refusal(
    booking: &RefundFacts,
    exchange: &CounterExchangeRow,
) -> Option<Reason> {
    if booking.showtime_id != exchange.hold.showtime_id().get() {
        return Some(Reason::new("invalid.exchange_showtime", &[]));
    }
    exchange
        .from
        .iter()
        .find(|s| !booking.seats.0.contains(s))
        .map(|seat| {
            Reason::new(
                "invalid.seat_not_in_booking",
                &[
                    ("seat", seat.to_string()),
                    ("seats", booking.seats.texts().join(", ")),
                ],
            )
        })
}

/// The booking's seats after an exchange: those it keeps, then those it gets.
pub(super) fn seats_after_exchange(
    seats: &[SeatCode],
    exchange: &CounterExchangeRow,
) -> Vec<SeatCode> {
    let mut after: Vec<SeatCode> = seats
        .iter()
        .filter(|s| !exchange.from.contains(s))
        .cloned()
        .collect();
    after.extend(exchange.to.iter().cloned());
    after
}

/// Which of the `asked` seats a scan may check in, from what the booking is now (`None`: not a
/// confirmed booking; `(refunded, seats)` otherwise): a seat refunded or exchanged since the
/// caller read the booking is not let in. The scan's answer when none may be.
pub(super) fn seats_to_admit(
    now: Option<(bool, SeatList)>,
    asked: &[SeatCode],
) -> Result<Vec<SeatCode>, Scanned> {
    let seats: Vec<SeatCode> = match now {
        None => return Err(Scanned::NotFound),
        Some((true, _)) => return Err(Scanned::Refunded),
        Some((false, now)) => asked
            .iter()
            .filter(|s| now.0.contains(s))
            .cloned()
            .collect(),
    };
    match seats.is_empty() {
        true => Err(Scanned::Refunded),
        false => Ok(seats),
    }
}

impl RefundFacts {
    /// The seats a refund gives back, those the booking keeps, and the amount: the booking's
    /// whole amount for all its seats, else what those seats were sold for (at most what is
    /// left to give).
    pub(super) fn split(
        &self,
        refund: &CounterRefundRow,
    ) -> Result<(Vec<SeatCode>, Vec<SeatCode>, Won), Reason> {
        let giving = match &refund.seats {
            None => self.seats.0.clone(),
            Some(seats) => seats.clone(),
        };
        if let Some(seat) = giving.iter().find(|s| !self.seats.0.contains(s)) {
            return Err(Reason::new(
                "invalid.seat_not_in_booking",
                &[
                    ("seat", seat.to_string()),
                    ("seats", self.seats.texts().join(", ")),
                ],
            ));
        }
        let keeping: Vec<SeatCode> = self
            .seats
            .0
            .iter()
            .filter(|s| !giving.contains(s))
            .cloned()
            .collect();
        // Each seat given back at what it was sold for, as the booking says now (read under its
        // lock: an exchange in between moved the types with the seats); a booking made before
        // types: the engine's price of the seats.
        let sold: Vec<SoldSeat> = crate::store::read_list(self.tickets.as_deref());
        let partial = match sold.is_empty() {
            true => refund.partial_amount,
            false => sold
                .iter()
                .filter(|t| giving.iter().any(|g| g.as_str() == t.seat))
                .map(|t| t.price)
                .sum(),
        };
        let amount = match keeping.is_empty() {
            true => self.amount_krw,
            false => partial.clamp(Won::ZERO, self.amount_krw),
        };
        Ok((giving, keeping, amount))
    }

    /// Every seat the booking gave back: those before, then `seats` given back now as `state`,
    /// each as it was sold (a booking made before types: adult, at an even share of its amount).
    pub(super) fn given_back(&self, seats: &[SeatCode], state: GivenBack) -> Vec<SeatGivenBack> {
        let mut all: Vec<SeatGivenBack> = crate::store::read_list(self.given_back.as_deref());
        let sold: Vec<SoldSeat> = crate::store::read_list(self.tickets.as_deref());
        let share = Won::new(self.amount_krw.get() / self.seats.0.len().max(1) as i64);
        all.extend(seats.iter().map(|seat| {
            let sold = sold.iter().find(|t| t.seat == seat.as_str());
            SeatGivenBack {
                seat: seat.to_string(),
                ticket_type: sold.map_or(TicketType::Adult, |t| t.ticket_type),
                price: sold.map_or(share, |t| t.price),
                state,
            }
        }));
        all
    }

    /// Why the booking cannot be `what` (`refunded`, `exchanged`) at the counter, if it cannot.
    pub(super) fn refusal(&self, what: &str) -> Option<Reason> {
        let what = ("what_key", format!("invalid.what.{what}"));
        if self.status != BookingStatus::Confirmed {
            Some(Reason::new("invalid.counter_not_confirmed", &[what]))
        } else if self.refunded {
            Some(Reason::new("invalid.refunded_already", &[]))
        } else if self.checked_in && !self.owed {
            Some(Reason::new("invalid.checked_in_not", &[what]))
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sale_needs_an_open_shift_and_a_showtime_on_sale() {
        assert!(sale_refusal(true, Some((false, true))).is_none());
        assert!(matches!(
            sale_refusal(false, Some((false, true))),
            Some(CounterSold::ShiftClosed)
        ));
        assert!(matches!(
            sale_refusal(true, Some((true, true))),
            Some(CounterSold::Cancelled)
        ));
        assert!(matches!(
            sale_refusal(true, Some((false, false))),
            Some(CounterSold::SalesClosed)
        ));
        assert!(matches!(
            sale_refusal(true, None),
            Some(CounterSold::SalesClosed)
        ));
    }

    #[test]
    fn a_refund_goes_back_by_its_tender_and_an_online_one_only_whole() {
        assert_eq!(refund_method(Some("cash"), false, false).unwrap(), "cash");
        assert_eq!(refund_method(None, true, true).unwrap(), "gateway");
        assert!(refund_method(None, true, false).is_err());
        assert!(refund_method(None, false, true).is_err());
    }

    #[test]
    fn a_scan_lets_in_only_the_seats_the_booking_still_has() {
        let codes = |s: &[&str]| -> Vec<SeatCode> {
            s.iter().map(|s| SeatCode::parse(s).unwrap()).collect()
        };
        let seats = |s: &[&str]| List(codes(s));
        let asked = codes(&["A1", "A2"]);
        assert_eq!(
            seats_to_admit(Some((false, seats(&["A2", "A3"]))), &asked).unwrap(),
            codes(&["A2"])
        );
        assert!(matches!(
            seats_to_admit(None, &asked),
            Err(Scanned::NotFound)
        ));
        assert!(matches!(
            seats_to_admit(Some((true, seats(&["A1"]))), &asked),
            Err(Scanned::Refunded)
        ));
        assert!(matches!(
            seats_to_admit(Some((false, seats(&["B1"]))), &asked),
            Err(Scanned::Refunded)
        ));
    }
}
