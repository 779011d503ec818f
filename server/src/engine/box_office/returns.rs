//! Giving back at the counter, with a supervisor's approval: a refund (all seats, or some), and
//! an exchange of seats for as many of the same price categories in the same showtime.

use super::*;
use crate::store::seat_texts;
use app::domain::SeatCode;

#[async_trait::async_trait]
impl Returns for Engine {
    /// Refunds a whole booking at the counter, with a supervisor's approval.
    async fn refund_at_counter(
        &self,
        actor: &Actor,
        request: &CounterRefundRequest,
    ) -> Result<CounterRefund, InventoryError> {
        let booking = self.booking_named(&request.booking).await?;
        let shift = self.open_shift_id(actor).await?;
        let seats = match &request.seats {
            Some(seats) => Some(self.seats_of_booking(booking, seats).await?),
            None => None,
        };
        let partial_amount = match &seats {
            Some((showtime, seats)) => self.price_of(booking, *showtime, seats).await?,
            None => Won::ZERO,
        };
        let (approved_by, approver) = self.approver(actor, request.approval.as_ref()).await?;
        let what = match &seats {
            Some((_, seats)) => format!("seats {}", seat_texts(seats).join(" ")),
            None => "all seats".into(),
        };
        // The amount and method are the store's decision: the line names the booking, the
        // seats and the approver; the answer and the shift's figures carry the amount.
        let mut facts = vec![AuditFact::Booking(booking.0.to_string())];
        facts.push(match &seats {
            Some((_, seats)) => AuditFact::Seats(seat_texts(seats)),
            None => AuditFact::AllSeats,
        });
        facts.push(AuditFact::ApprovedBy(approver.clone()));
        let audit = self.audit_line(
            actor,
            "counter_refund",
            Said::new(
                format!("booking {} {what}, approved by {approver}", booking.0),
                facts,
            ),
        );
        let row = CounterRefundRow {
            booking,
            shift,
            approved_by,
            seats: seats.map(|(_, seats)| seats),
            partial_amount,
            audit,
        };
        match self.store.refund_at_counter(&row, self.now_at()).await? {
            CounterRefunded::Refunded {
                showtime,
                seats,
                amount,
                method,
            } => {
                self.relay_wake.notify_one();
                self.refund_wake.notify_one();
                let codes: Vec<_> = seats.iter().map(|s| s.code.clone()).collect();
                self.gate.release_booked(showtime, &codes, booking).await;
                self.announce_released(showtime, seats.clone()).await;
                Ok(CounterRefund {
                    booking_id: booking,
                    showtime_id: showtime,
                    seats,
                    amount,
                    method,
                })
            }
            CounterRefunded::NotFound => Err(InventoryError::BookingNotFound),
            CounterRefunded::Refused(why) => Err(InventoryError::NotRefundable(why)),
            CounterRefunded::ShiftClosed => Err(InventoryError::ShiftClosed),
        }
    }

    /// Exchanges seats of a booking for the clerk's hold of as many seats of the same price
    /// categories in the same showtime, with a supervisor's approval (as for refunds: another
    /// customer's seats are moved); the booking's code stays valid, the seats' own codes follow
    /// the seats. Writes `SeatsExchanged`.
    async fn exchange_at_counter(
        &self,
        actor: &Actor,
        request: &CounterExchangeRequest,
    ) -> Result<CounterExchange, InventoryError> {
        let booking = self.booking_named(&request.booking).await?;
        let shift = self.open_shift_id(actor).await?;
        let clerk = CustomerId::of_clerk(actor.member.id);
        let (showtime, from) = self.seats_of_booking(booking, &request.seats).await?;
        if showtime != request.hold_id.showtime_id() {
            return Err(InventoryError::invalid("invalid.exchange_showtime", &[]));
        }
        let live = self.live_hold(request.hold_id, clerk).await?;
        let to: Vec<SeatCode> = live.seats.clone();
        let layout = self.layout(showtime).await?;
        let categories = |seats: &[SeatCode]| {
            let mut list: Vec<String> = seats
                .iter()
                .filter_map(|code| layout.seats.iter().find(|s| s.code == *code))
                .map(|s| s.category.clone())
                .collect();
            list.sort();
            list
        };
        if categories(&from) != categories(&to) {
            return Err(InventoryError::invalid(
                "invalid.exchange_categories",
                &[
                    ("from", seat_texts(&from).join(", ")),
                    ("to", seat_texts(&to).join(", ")),
                ],
            ));
        }
        // Each seat given up paired with a new one of its category: the new seat is sold at the
        // old one's ticket type and price.
        let category_of = |code: &SeatCode| {
            layout
                .seats
                .iter()
                .find(|s| s.code == *code)
                .map(|s| s.category.clone())
        };
        let mut unpaired = to.clone();
        let to: Vec<SeatCode> = from
            .iter()
            .map(|f| {
                let at = unpaired
                    .iter()
                    .position(|t| category_of(t) == category_of(f))
                    .unwrap_or(0);
                unpaired.remove(at)
            })
            .collect();
        let (_, approver) = self.approver(actor, request.approval.as_ref()).await?;
        let audit = self.audit_line(
            actor,
            "counter_exchange",
            Said::new(
                format!(
                    "booking {} showtime {showtime}: {} for {}, approved by {approver}",
                    booking.0,
                    seat_texts(&from).join(" "),
                    seat_texts(&to).join(" ")
                ),
                vec![
                    AuditFact::Booking(booking.0.to_string()),
                    AuditFact::Showtime(showtime.get()),
                    AuditFact::Seats(seat_texts(&from)),
                    AuditFact::ForSeats(seat_texts(&to)),
                    AuditFact::ApprovedBy(approver.clone()),
                ],
            ),
        );
        let row = CounterExchangeRow {
            booking,
            shift,
            from: from.clone(),
            hold: request.hold_id,
            to: to.clone(),
            audit,
        };
        match self
            .store
            .exchange_at_counter(&row, self.now_at(), self.clock.now())
            .await?
        {
            CounterExchanged::Exchanged { released, booked } => {
                let freed: Vec<_> = released.iter().map(|s| s.code.clone()).collect();
                self.gate.release_booked(showtime, &freed, booking).await;
                self.announce_released(showtime, released).await;
                self.announce_booked(showtime, booking, booked).await;
                self.relay_wake.notify_one();
                Ok(CounterExchange {
                    booking_id: booking,
                    showtime_id: showtime,
                    released: seat_texts(&from),
                    booked: seat_texts(&to),
                })
            }
            CounterExchanged::NotFound => Err(InventoryError::BookingNotFound),
            CounterExchanged::Refused(why) => Err(InventoryError::NotRefundable(why)),
            CounterExchanged::HoldLapsed => Err(InventoryError::HoldLapsed),
            CounterExchanged::ShiftClosed => Err(InventoryError::ShiftClosed),
        }
    }
}

impl Engine {
    /// The showtime of `booking` and `seats` (distinct, 1 to 8, seat codes), checked.
    async fn seats_of_booking(
        &self,
        booking: BookingId,
        seats: &[String],
    ) -> Result<(ShowtimeId, Vec<SeatCode>), InventoryError> {
        let selection = SeatSelection::parse(seats)?;
        let record = self.booking_record(booking).await?;
        let seats: Vec<SeatCode> = selection.seats().to_vec();
        if let Some(seat) = seats.iter().find(|s| !record.seats.contains(s)) {
            return Err(InventoryError::invalid(
                "invalid.seat_not_in_booking",
                &[
                    ("seat", seat.to_string()),
                    ("seats", seat_texts(&record.seats).join(", ")),
                ],
            ));
        }
        Ok((record.showtime, seats))
    }

    /// What `seats` of the booking were sold for: each seat at its type's price as sold (a
    /// booking made before ticket types: the showtime's prices).
    async fn price_of(
        &self,
        booking: BookingId,
        showtime: ShowtimeId,
        seats: &[SeatCode],
    ) -> Result<Won, InventoryError> {
        let record = self.booking_record(booking).await?;
        if record.tickets.is_empty() {
            return Ok(self.layout(showtime).await?.price_of(seats));
        }
        Ok(record
            .tickets
            .iter()
            .filter(|t| seats.iter().any(|s| s.as_str() == t.seat))
            .map(|t| t.price)
            .sum())
    }
}
