//! What the box office's transactions decide, as pure functions of what they read: the
//! transactions (`counter.rs`, `returns.rs`, `door.rs`) apply the answers.

use super::*;
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
                    ("seat", seat.clone()),
                    ("seats", booking.seats.0.join(", ")),
                ],
            )
        })
}

/// The booking's seats after an exchange: those it keeps, then those it gets.
pub(super) fn seats_after_exchange(seats: &[String], exchange: &CounterExchangeRow) -> Vec<String> {
    let mut after: Vec<String> = seats
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
    asked: &[String],
) -> Result<Vec<String>, Scanned> {
    let seats: Vec<String> = match now {
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
        let seats = |s: &[&str]| SeatList(s.iter().map(|s| s.to_string()).collect());
        let asked = vec!["A1".to_string(), "A2".to_string()];
        assert_eq!(
            seats_to_admit(Some((false, seats(&["A2", "A3"]))), &asked).unwrap(),
            vec!["A2".to_string()]
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
