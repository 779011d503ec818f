//! A customer's bookings as they see them: status, seats, money, payments, the ticket once
//! issued. Only their own, and those they found again by reference and e-mail.

use super::*;
use crate::store::{
    Access, BookingFilter, BookingRecord, BookingStatus, OnlineCancelled, PaymentStatus,
};
use app::domain::Ticket;
use app::domain::{BookingLookup, BookingView, Email, PaymentView};
use app::engine::Bookings;
use app::error::Reason;

/// A booking's link is e-mailed again at most this often.
const LINK_EVERY: Duration = Duration::from_secs(600);

#[async_trait::async_trait]
impl Bookings for Engine {
    /// A booking as its customer sees it (or one who found it again): 404 when unknown, 403
    /// for another customer's.
    async fn get_booking(
        &self,
        booking: BookingId,
        customer: CustomerId,
    ) -> Result<BookingView, InventoryError> {
        let (record, access) = self.customer_s_record(booking, customer).await?;
        self.view_for(record, access).await
    }

    /// The ticket of the customer's confirmed booking.
    async fn get_ticket(
        &self,
        booking: BookingId,
        customer: CustomerId,
    ) -> Result<Ticket, InventoryError> {
        let view = self.get_booking(booking, customer).await?;
        if view.refunded_at.is_some() {
            return Err(InventoryError::TicketRefunded);
        }
        if view.status != "CONFIRMED" {
            return Err(InventoryError::TicketNotReady);
        }
        // Issued by the ticket consumer after the confirmation (a moment later).
        let Some((code, _)) = self.store.issued_ticket(booking).await? else {
            return Err(InventoryError::TicketNotReady);
        };
        let qr_svg = super::tickets::qr_svg(&code, 200)?;
        let seats = self.seat_tickets(booking, &view.seats, 160)?;
        Ok(Ticket {
            code,
            qr_svg,
            seats,
        })
    }

    /// The customer's bookings, newest first.
    async fn my_bookings(&self, customer: CustomerId) -> Result<Vec<BookingView>, InventoryError> {
        let mut out = Vec::new();
        for record in self
            .store
            .bookings(BookingFilter::OfCustomer(customer))
            .await?
        {
            // Its own, or one found again (seen as its page sees it).
            let access = match record.customer == customer {
                true => None,
                false => self.store.has_booking_access(record.id, customer).await?,
            };
            out.push(self.view_for(record, access).await?);
        }
        Ok(out)
    }

    async fn cancel_booking(
        &self,
        booking: BookingId,
        customer: CustomerId,
    ) -> Result<BookingView, InventoryError> {
        let (_, access) = self.customer_s_record(booking, customer).await?;
        // Finding a booking by its number and address shows it; cancelling it takes the buyer's
        // session or the mailbox (the e-mailed link, confirmed).
        if access == Some(Access::Found) {
            return Err(InventoryError::CancelNeedsLink);
        }
        let cutoff = self.cancel_cutoff;
        match self
            .store
            .cancel_booking(booking, self.clock.now(), cutoff)
            .await?
        {
            OnlineCancelled::Cancelled {
                showtime, seats, ..
            } => {
                tracing::info!(booking = %booking.0, "booking cancelled by its customer; refund due");
                self.relay_wake.notify_one();
                self.refund_wake.notify_one();
                let codes: Vec<_> = seats.iter().map(|s| s.code.clone()).collect();
                self.gate.release_booked(showtime, &codes, booking).await;
                self.announce_released(showtime, seats).await;
            }
            OnlineCancelled::NotFound => return Err(InventoryError::BookingNotFound),
            OnlineCancelled::Refused(why) => return Err(InventoryError::NotRefundable(why)),
        }
        self.get_booking(booking, customer).await
    }

    async fn send_booking_link(
        &self,
        booking: BookingId,
        customer: CustomerId,
    ) -> Result<String, InventoryError> {
        let (record, _) = self.customer_s_record(booking, customer).await?;
        let stands = record.status == BookingStatus::Confirmed
            && record.refunded_at.is_none()
            && !record.showtime_cancelled;
        if !stands {
            return Err(InventoryError::invalid("invalid.resend_not_confirmed", &[]));
        }
        let Some(email) = record.email.as_deref() else {
            return Err(InventoryError::invalid("invalid.resend_no_address", &[]));
        };
        self.queue_again(booking, "link", LINK_EVERY).await?;
        Ok(app::domain::mask(email))
    }

    async fn lookup_booking(
        &self,
        lookup: BookingLookup,
        customer: CustomerId,
        client_addr: Option<std::net::IpAddr>,
    ) -> Result<BookingView, InventoryError> {
        let mut problems = Vec::new();
        let reference = lookup.reference();
        if reference.is_none() {
            problems.push(Reason::new("invalid.reference", &[]));
        }
        let email = Email::parse(&lookup.email)
            .map_err(|r| problems.push(r))
            .ok();
        let (Some(reference), Some(email)) = (reference, email) else {
            return Err(InventoryError::Invalid(problems));
        };
        // Every well-formed try counts per client address and per number, address and session;
        // a try that finds nothing counts per number too (an address spread over many networks
        // meets it). Nobody else's tries count against the owner's: neither strangers guessing
        // the number's address nor a party member who knows both.
        let limited =
            |wait: Duration| InventoryError::RateLimited(wait.as_secs_f64().ceil().max(1.0) as u64);
        let (per_address, per_pair, per_reference) = &self.lookup_limiters;
        if let Some(addr) = client_addr.filter(|_| !per_address.is_off()) {
            per_address
                .check(&crate::net::bucket(addr).to_string())
                .await
                .map_err(limited)?;
        }
        let pair =
            super::staff::secret_hash(&format!("{reference}/{}/{}", email.as_str(), customer.0));
        per_pair.check(&pair[..32]).await.map_err(limited)?;
        // Both must match: an unknown address and a known one with another reference answer
        // alike.
        let Some(found) = self
            .store
            .booking_with_reference(email.as_str(), &reference)
            .await?
        else {
            per_reference.check(&reference).await.map_err(limited)?;
            return Err(InventoryError::BookingNotFound);
        };
        let record = self.booking_record(found).await?;
        if record.customer == customer {
            return self.booking_view(record).await;
        }
        self.store
            .grant_booking_access(found, customer, Access::Found, self.clock.now())
            .await?;
        // Found again after the link was opened here: what the link gave stays.
        let access = self.store.has_booking_access(found, customer).await?;
        self.view_for(record, access).await
    }
}

impl Engine {
    /// Limits the tries to find a booking again: per client address, per number, address and
    /// session, and the tries that find nothing per number.
    pub fn with_lookup_rate_limits(
        mut self,
        per_address: crate::gate::RateLimiter,
        per_pair: crate::gate::RateLimiter,
        per_reference: crate::gate::RateLimiter,
    ) -> Self {
        self.lookup_limiters = (per_address, per_pair, per_reference);
        self
    }

    /// How long before its showtime's start a customer may still cancel a booking online.
    pub fn with_cancel_cutoff(mut self, cutoff: chrono::Duration) -> Self {
        self.cancel_cutoff = cutoff;
        self
    }

    /// How long after its showtime a booking's address is kept.
    pub fn email_retention(&self) -> chrono::Duration {
        self.email_retention
    }

    /// How long after its showtime a booking's address is kept (then emptied by the purge).
    pub fn with_email_retention(mut self, retention: chrono::Duration) -> Self {
        self.email_retention = retention;
        self
    }

    /// A booking as stored, for its customer (`None`) or one let see it (how): 404 when unknown,
    /// 403 for another customer's.
    async fn customer_s_record(
        &self,
        booking: BookingId,
        customer: CustomerId,
    ) -> Result<(BookingRecord, Option<Access>), InventoryError> {
        let record = self.booking_record(booking).await?;
        if record.customer == customer {
            return Ok((record, None));
        }
        match self.store.has_booking_access(booking, customer).await? {
            Some(access) => Ok((record, Some(access))),
            None => Err(InventoryError::NotYourBooking),
        }
    }

    /// A booking as a session sees it: one that only found it sees it, and learns that
    /// cancelling takes the e-mailed link.
    async fn view_for(
        &self,
        record: BookingRecord,
        access: Option<Access>,
    ) -> Result<BookingView, InventoryError> {
        let mut view = self.booking_view(record).await?;
        if access == Some(Access::Found) && view.can_cancel {
            view.can_cancel = false;
            view.cancel_needs_link = true;
        }
        Ok(view)
    }

    /// A booking as stored: 404 when unknown.
    pub(super) async fn booking_record(
        &self,
        booking: BookingId,
    ) -> Result<BookingRecord, InventoryError> {
        self.store
            .bookings(BookingFilter::One(booking))
            .await?
            .pop()
            .ok_or(InventoryError::BookingNotFound)
    }

    pub(super) async fn booking_view(
        &self,
        record: BookingRecord,
    ) -> Result<BookingView, InventoryError> {
        let layout = self.layout(record.showtime).await?;
        let ticket_issued_at = if record.status == BookingStatus::Confirmed {
            self.store.issued_ticket(record.id).await?.map(|(_, at)| at)
        } else {
            None
        };
        // Paid online (a counter sale has no payment of the gateway), confirmed and standing.
        let cancellable = record.status == BookingStatus::Confirmed
            && record.refunded_at.is_none()
            && !record.showtime_cancelled
            && record
                .payments
                .iter()
                .any(|p| p.status == PaymentStatus::Paid);
        let cancel_until = cancellable.then(|| layout.starts_at - self.cancel_cutoff);
        let (refunded, refunded_seats) = (given_back_money(&record), refunded_seats(&record));
        Ok(BookingView {
            cancel_until,
            can_cancel: cancel_until.is_some_and(|until| self.now_at().0 < until),
            cancel_needs_link: false,
            reference: record.id.reference(),
            email: record.email.as_deref().map(app::domain::mask),
            ticket_issued_at,
            showtime_cancelled: record.showtime_cancelled,
            refunded_at: record.refunded_at,
            booking_id: record.id,
            // Refunded in full (online or at the counter) says so: it is no longer confirmed.
            status: match record.refunded_at {
                Some(_) => "REFUNDED".to_string(),
                None => record.status.to_string(),
            },
            showtime_id: record.showtime,
            movie_title: layout.movie_title.clone(),
            hall_name: layout.hall_name.clone(),
            starts_at: layout.starts_at,
            // A booking made before ticket types: every seat adult, at the showtime's price.
            tickets: if record.tickets.is_empty() {
                layout
                    .sell(&record.seats, &Default::default())
                    .unwrap_or_default()
            } else {
                record.tickets
            },
            seats: crate::store::seat_texts(&record.seats),
            amount: record.amount,
            refunded,
            refunded_seats,
            given_back: record.given_back,
            currency: "KRW".into(),
            failure_reason: record.failure_reason,
            created_at: record.created_at,
            updated_at: record.updated_at,
            payments: record
                .payments
                .into_iter()
                .map(|p| PaymentView {
                    payment_url: (p.status == PaymentStatus::Pending).then_some(p.payment_url),
                    status: p.status.to_string(),
                    amount: p.amount,
                    pay_before: p.pay_before,
                    updated_at: p.updated_at,
                })
                .collect(),
        })
    }
}

/// The money given back for a booking: its refunds (at the counter, or its customer's
/// cancellation), or the payments the gateway gave back otherwise (a cancelled showtime's, a
/// failed booking's).
fn given_back_money(record: &BookingRecord) -> app::domain::Won {
    let by_gateway: app::domain::Won = record
        .payments
        .iter()
        .filter(|p| p.status == PaymentStatus::Refunded)
        .map(|p| p.amount)
        .sum();
    record.refunded.max(by_gateway)
}

/// The seats a booking gave back for money: as it keeps them, else (refunded whole before it
/// kept them) every seat it was sold.
fn refunded_seats(record: &BookingRecord) -> Vec<String> {
    let refunded: Vec<String> = record
        .given_back
        .iter()
        .filter(|s| s.state == app::domain::GivenBack::Refunded)
        .map(|s| s.seat.clone())
        .collect();
    match refunded.is_empty() && record.refunded_at.is_some() {
        true => record.tickets.iter().map(|t| t.seat.clone()).collect(),
        false => refunded,
    }
}
