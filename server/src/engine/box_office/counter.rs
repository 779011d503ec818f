//! A sale at the counter: the clerk's pick is a hold like a customer's (the web sees it at once)
//! that lasts while the sale is at the counter and is released on cancel, lock or sign-out; the
//! sale confirms it with the fenced confirmation and writes `BookingConfirmed` (channel
//! `box_office`, or `complimentary`) in the same transaction.

use super::*;

#[async_trait::async_trait]
impl Counter for Engine {
    /// A clerk's pick: the seats, or the best `best` — held for the sale at the counter.
    async fn clerk_hold(
        &self,
        actor: &Actor,
        showtime: ShowtimeId,
        seats: Option<&SeatSelection>,
        best: Option<&BestAvailable>,
    ) -> Result<Hold, InventoryError> {
        self.open_shift_id(actor).await?;
        let clerk = Holder::Clerk {
            staff_id: actor.member.id,
        };
        // One sale at a time: whatever the clerk picked before and did not sell goes back.
        self.release_clerk_holds(actor.member.id).await?;
        match (seats, best) {
            (Some(seats), None) => self.hold_seats(showtime, seats, clerk).await,
            (None, Some(best)) => self.hold_best(showtime, best, clerk).await,
            _ => Err(InventoryError::invalid("invalid.seats_or_best", &[])),
        }
    }

    async fn clerk_release(&self, by: &Actor) -> Result<usize, InventoryError> {
        self.release_clerk_holds(by.member.id).await
    }

    /// Sells the clerk's hold at the counter.
    async fn sell_at_counter(
        &self,
        actor: &Actor,
        request: &CounterSaleRequest,
    ) -> Result<CounterSale, InventoryError> {
        let clerk = CustomerId::of_clerk(actor.member.id);
        let showtime = request.hold_id.showtime_id();
        let open = self.open_shift_of(actor).await?;
        let shift = open.id;
        let live = self.live_hold(request.hold_id, clerk).await?;
        let layout = self.layout(showtime).await?;
        if live.now >= layout.sales_close_at() {
            return Err(InventoryError::SalesClosed);
        }
        let tickets = layout
            .sell(&live.seats, &request.ticket_types)
            .map_err(InventoryError::TicketTypes)?;
        let price = tickets.iter().map(|t| t.price).sum();
        let (amount, tendered, card_reference, approved_by) = match request.tender {
            Tender::Cash => {
                let tendered = request
                    .tendered
                    .ok_or_else(|| InventoryError::invalid("invalid.cash_tendered_missing", &[]))?;
                if tendered < price {
                    return Err(InventoryError::invalid(
                        "invalid.cash_short",
                        &[
                            ("tendered_won", tendered.to_string()),
                            ("total_won", price.to_string()),
                        ],
                    ));
                }
                if tendered > MAX_CASH {
                    return Err(InventoryError::invalid(
                        "invalid.cash_too_much",
                        &[("max_won", MAX_CASH.to_string())],
                    ));
                }
                (price, Some(tendered), None, None)
            }
            Tender::Card => {
                let reference = request
                    .card_reference
                    .as_deref()
                    .map(str::trim)
                    .filter(|r| app::domain::name_problem("", r, 64).is_none())
                    .ok_or_else(|| InventoryError::invalid("invalid.card_reference", &[]))?;
                (price, None, Some(reference.to_string()), None)
            }
            Tender::Comp => {
                let approver = self.approver(actor, request.approval.as_ref()).await?;
                (Won::ZERO, None, None, Some(approver))
            }
        };
        // The ticket by e-mail too, when the customer gives an address (never in the audit).
        let email = match request.email.as_deref().map(str::trim) {
            Some(text) if !text.is_empty() => Some(
                app::domain::Email::parse(text)
                    .and_then(|email| email.deliverable().map(|()| email))
                    .map_err(|r| InventoryError::Invalid(vec![r]))?,
            ),
            _ => None,
        };
        // A complimentary ticket is sold at nothing, whatever its type.
        let tickets: Vec<_> = tickets
            .into_iter()
            .map(|mut t| {
                if request.tender == Tender::Comp {
                    t.price = Won::ZERO;
                }
                t
            })
            .collect();
        let booking = BookingId(uuid::Uuid::new_v4());
        let seats: Vec<String> = live.seats.iter().map(|c| c.to_string()).collect();
        let approval = approved_by
            .as_ref()
            .map_or_else(String::new, |(_, name)| format!(", approved by {name}"));
        let mut facts = vec![
            AuditFact::Booking(booking.0.to_string()),
            AuditFact::Showtime(showtime.get()),
            AuditFact::Seats(seats.clone()),
            AuditFact::Tender(request.tender.as_str().to_string()),
            AuditFact::Amount(amount),
        ];
        if let Some((_, name)) = &approved_by {
            facts.push(AuditFact::ApprovedBy(name.clone()));
        }
        let audit = self.audit_line(
            actor,
            "counter_sale",
            Said::new(
                format!(
                    "booking {} showtime {showtime} seats {} {} {amount}{approval}",
                    booking.0,
                    seats.join(" "),
                    request.tender.as_str()
                ),
                facts,
            ),
        );
        let row = CounterSaleRow {
            booking,
            hold: request.hold_id,
            customer: clerk,
            seats: live.seats.clone(),
            tickets: tickets.clone(),
            email: email.map(|e| e.as_str().to_string()),
            language: request.language.map(|l| l.code().to_string()),
            amount,
            shift,
            tender: request.tender,
            tendered,
            card_reference: card_reference.clone(),
            approved_by: approved_by.map(|(id, _)| id),
            audit,
        };
        let changes = match self
            .store
            .sell_at_counter(&row, self.now_at(), self.clock.now())
            .await?
        {
            CounterSold::Sold(changes) => changes,
            CounterSold::HoldLapsed => return Err(InventoryError::HoldLapsed),
            CounterSold::ShiftClosed => return Err(InventoryError::ShiftClosed),
            CounterSold::SalesClosed => return Err(InventoryError::SalesClosed),
            CounterSold::Cancelled => return Err(InventoryError::ShowtimeCancelled),
        };
        self.relay_wake.notify_one();
        self.announce_booked(showtime, booking, changes).await;
        Ok(CounterSale {
            booking_id: booking,
            showtime_id: showtime,
            seats,
            tickets,
            tender: request.tender,
            amount,
            tendered,
            change: tendered.map(|t| t - amount),
            card_reference,
            sold_at: live.now,
            clerk: open.clerk,
            register: open.register,
        })
    }
}

impl Engine {
    /// Releases every live hold of the clerk (a cancelled sale, a locked kiosk, signing out, a
    /// closed shift); how many.
    pub async fn release_clerk_holds(&self, staff_id: i64) -> Result<usize, InventoryError> {
        let clerk = CustomerId::of_clerk(staff_id);
        let holds = self.store.live_holds_of(clerk, self.now_at()).await?;
        let mut released = 0;
        for hold in holds {
            match self.cancel_hold(hold, clerk).await {
                Ok(()) => released += 1,
                Err(InventoryError::HoldNotFound) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(released)
    }
}
