//! Checkout: the hold's owner gets one payment session at the gateway for the
//! hold's booking, which must be paid at least [`BUFFER`] before the hold ends (an
//! 8-minute payment inside a 10-minute hold). Nothing here waits on the gateway inside a
//! transaction: the booking row is written first (one per hold), then the gateway is asked
//! (idempotent by booking id), then the session is recorded (idempotent by session id), so
//! concurrent or repeated checkouts of one hold end with one booking and one payment session.

use super::Engine;
use crate::gate::RateLimiter;
use crate::payments::gateway::{NewSession, PaymentGateway};
use crate::store::{
    BookingStatus, HoldCheck, LiveHold, NewBooking, PaymentReport, PaymentSessionRow, ReportOutcome,
};
use app::domain::{BookingId, Checkout, CheckoutDetails, CustomerId, HoldId};
use app::engine::Checkouts;
use app::error::InventoryError;
use std::sync::Arc;
use std::time::Duration;

/// Longest payment session.
pub const SESSION_LENGTH: chrono::Duration = chrono::Duration::minutes(8);
/// Time kept between the end of the payment session and the end of the hold, so that a payment
/// made at the last moment still finds its seats held.
pub const BUFFER: chrono::Duration = chrono::Duration::minutes(2);
/// Shortest payment session worth starting.
pub const MIN_SESSION: chrono::Duration = chrono::Duration::minutes(1);

/// The gateway and the addresses it is given for this server.
pub struct Payments {
    pub gateway: Arc<dyn PaymentGateway>,
    /// Recorded with each payment (`sandbox`, or a provider's name).
    pub provider: String,
    /// Where the gateway sends its signed callbacks (`…/payments/callback`).
    pub callback_url: String,
    /// Where the customer returns after paying; the booking id is appended.
    pub return_url_base: String,
    /// Shared with the gateway; its callbacks are signed with it.
    pub webhook_secret: crate::config::Secret,
}

#[async_trait::async_trait]
impl Checkouts for Engine {
    async fn checkout_hold(
        &self,
        hold: HoldId,
        customer: CustomerId,
        details: CheckoutDetails,
        client_addr: Option<std::net::IpAddr>,
    ) -> Result<Checkout, InventoryError> {
        self.checkout_gate(hold, customer, client_addr).await?;
        self.payment_session(hold, customer, &details).await
    }
}

impl Engine {
    /// The customer's hold, live: 404 unknown, 403 another's, 409 lapsed.
    pub(super) async fn live_hold(
        &self,
        hold: HoldId,
        customer: CustomerId,
    ) -> Result<LiveHold, InventoryError> {
        match self
            .store
            .check_hold(hold, customer, self.clock.now())
            .await?
        {
            HoldCheck::Live(live) => Ok(live),
            HoldCheck::NotFound => Err(InventoryError::HoldNotFound),
            HoldCheck::NotOwner => Err(InventoryError::NotYourHold),
            HoldCheck::Lapsed => Err(InventoryError::HoldLapsed),
        }
    }

    /// Limits checkout attempts per customer and per client address.
    pub fn with_checkout_rate_limits(
        mut self,
        customer: RateLimiter,
        address: RateLimiter,
    ) -> Self {
        self.checkout_limiters = (customer, address);
        self
    }

    /// What every checkout passes first, before anything of it is stored (an idempotency key
    /// included): the rate limits per customer and per address, then whether the hold is the
    /// caller's — a hold that is nobody's or another's is refused (404, 403) with nothing kept.
    pub async fn checkout_gate(
        &self,
        hold: HoldId,
        customer: CustomerId,
        client_addr: Option<std::net::IpAddr>,
    ) -> Result<(), InventoryError> {
        let limited =
            |wait: Duration| InventoryError::RateLimited(wait.as_secs_f64().ceil().max(1.0) as u64);
        let (per_customer, per_address) = &self.checkout_limiters;
        per_customer
            .check(&customer.0.to_string())
            .await
            .map_err(limited)?;
        if let Some(addr) = client_addr.filter(|_| !per_address.is_off()) {
            per_address
                .check(&crate::net::bucket(addr).to_string())
                .await
                .map_err(limited)?;
        }
        match self
            .store
            .check_hold(hold, customer, self.clock.now())
            .await?
        {
            HoldCheck::NotFound => Err(InventoryError::HoldNotFound),
            HoldCheck::NotOwner => Err(InventoryError::NotYourHold),
            HoldCheck::Live(_) | HoldCheck::Lapsed => Ok(()),
        }
    }

    pub fn with_payments(mut self, payments: Payments) -> Self {
        self.payments = Some(payments);
        self
    }

    /// Starts (or finds again) the payment session of a hold's booking: the step after
    /// [`Engine::checkout_gate`] (the REST handler keeps its idempotency key in between).
    /// The address and language in `details` are kept with the booking (an address given
    /// again, while it is unpaid, replaces the one before).
    pub async fn payment_session(
        &self,
        hold: HoldId,
        customer: CustomerId,
        details: &CheckoutDetails,
    ) -> Result<Checkout, InventoryError> {
        let Some(payments) = &self.payments else {
            tracing::error!("checkout without a payment gateway configured");
            return Err(InventoryError::Unavailable);
        };
        let live = self.live_hold(hold, customer).await?;
        let layout = self.layout(hold.showtime_id()).await?;
        // A hold that committed while its showtime was being cancelled is not paid for.
        if self.store.is_cancelled(hold.showtime_id()).await? {
            return Err(InventoryError::ShowtimeCancelled);
        }
        let close = layout.sales_close_at();
        if live.now >= close {
            return Err(InventoryError::SalesClosed);
        }
        // Paid in time means paid before the hold ends and before sales close, with the
        // buffer for a payment made at the last moment.
        let pay_before = (live.now + SESSION_LENGTH)
            .min(live.expires_at - BUFFER)
            .min(close - BUFFER);
        if pay_before - live.now < MIN_SESSION {
            return Err(InventoryError::TooLittleTime(
                (live.expires_at.min(close) - live.now).num_seconds().max(0),
            ));
        }
        let tickets = layout
            .sell(&live.seats, &details.ticket_types)
            .map_err(InventoryError::TicketTypes)?;
        let amount = tickets.iter().map(|t| t.price).sum();
        let booking = self
            .store
            .booking_for_hold(&NewBooking {
                id: BookingId(uuid::Uuid::new_v4()),
                hold,
                customer,
                seats: live.seats.clone(),
                amount,
                tickets: tickets.clone(),
                email: details.email.as_ref().map(|e| e.as_str().to_string()),
                language: details.language.map(|l| l.code().to_string()),
            })
            .await?;
        if booking.status != BookingStatus::Pending {
            return Err(InventoryError::HoldLapsed);
        }
        // The types were chosen at the hold's first checkout: its payment asks for their price
        // (a booking made before types: every seat adult).
        let chosen = match booking.tickets.is_empty() {
            true => layout
                .sell(&live.seats, &Default::default())
                .unwrap_or_default(),
            false => booking.tickets.clone(),
        };
        // A repeat that names no types keeps the first checkout's.
        if chosen != tickets && !details.ticket_types.is_empty() {
            return Err(InventoryError::TicketTypes(app::error::Reason::new(
                "invalid.ticket_types.changed",
                &[],
            )));
        }
        let sessions = self.store.payment_session(booking.id).await?;
        // A payment of this booking was received: no second one (if one were still made, it
        // would be refunded by settlement).
        if sessions.paid {
            return Err(InventoryError::PaymentReceived);
        }
        if let Some(session) = sessions.open {
            return Ok(answer(&session));
        }
        let attempts = sessions.count;
        let request = NewSession {
            amount: booking.amount,
            currency: "KRW".into(),
            expires_at: pay_before,
            return_url: format!("{}{}", payments.return_url_base, booking.id.0),
            callback_url: payments.callback_url.clone(),
            merchant_reference: booking.id.0.to_string(),
            faults: None,
        };
        // The booking id and attempt as the gateway's idempotency key: one session per attempt,
        // however many checkouts race here; a new one after a declined payment.
        let session = payments
            .gateway
            .create_session(&request, &format!("{}:{attempts}", booking.id.0))
            .await
            .map_err(|e| {
                tracing::error!(error = %e, booking = %booking.id.0, "payment session not created");
                InventoryError::Unavailable
            })?;
        // A session for anything but what was asked is not one to send the customer to.
        if session.amount != request.amount
            || !session.currency.eq_ignore_ascii_case(&request.currency)
            || session.merchant_reference != request.merchant_reference
        {
            tracing::error!(booking = %booking.id.0, asked = request.amount.get(), got = session.amount.get(), currency = %session.currency, reference = %session.merchant_reference, "the gateway made a session for something else; not used");
            return Err(InventoryError::Unavailable);
        }
        let row = PaymentSessionRow {
            booking: booking.id,
            provider: payments.provider.clone(),
            session_id: session.session_id,
            payment_url: session.payment_url,
            amount: session.amount,
            expires_at: session.expires_at,
        };
        self.store.record_payment_session(&row).await?;
        // Whichever racer recorded first, everyone answers with the stored session.
        let stored = self
            .store
            .payment_session(booking.id)
            .await?
            .open
            .unwrap_or(row);
        Ok(answer(&stored))
    }

    /// The secret that gateway callbacks must be signed with (none without a gateway).
    pub fn webhook_secret(&self) -> Option<&[u8]> {
        self.payments.as_ref().map(|p| p.webhook_secret.expose())
    }

    /// Records what the gateway reported about a payment, once (see `Store::record_payment_report`).
    pub async fn payment_report(
        &self,
        report: &PaymentReport,
    ) -> Result<ReportOutcome, InventoryError> {
        let outcome = self.store.record_payment_report(report).await?;
        match outcome {
            ReportOutcome::Recorded => {
                tracing::info!(session = %report.session_id, paid = report.paid, "payment recorded");
                self.wake_worker();
            }
            ReportOutcome::Mismatched => {
                tracing::error!(session = %report.session_id, charged = ?report.charged, "the gateway charged something other than what was asked; the payment is refunded, not confirmed");
                super::HoldMetrics::count(&self.metrics.payment_mismatches);
                self.wake_worker();
            }
            ReportOutcome::Duplicate => {
                tracing::info!(session = %report.session_id, "payment already recorded")
            }
            ReportOutcome::UnknownSession => {
                tracing::warn!(session = %report.session_id, "report for an unknown payment session")
            }
        }
        Ok(outcome)
    }
}

fn answer(session: &PaymentSessionRow) -> Checkout {
    Checkout {
        booking_id: session.booking,
        status: "PENDING".into(),
        payment_url: session.payment_url.clone(),
        amount: session.amount,
        currency: "KRW".into(),
        pay_before: session.expires_at,
    }
}
