//! The confirmation and refund workers' work: payment events are taken from
//! the outbox (several workers at once are safe: each event is leased to one) and settled in one
//! transaction each — the fenced confirm books the seats and confirms the booking, or, when the
//! hold lapsed or its seats went to someone else, the booking fails and a refund is due (the
//! seats stay with whoever has them). Refunds go to the gateway under a key made from the payment
//! id, so a refund retried after a crash is never made twice. An event whose handling fails is
//! taken again when its lease runs out.

use super::{Engine, HoldMetrics};
use crate::booking_events::BookingEvent;
use crate::payments::gateway::SessionStatus;
use crate::store::{Charged, OutboxItem, PaymentReport, ReportOutcome, Settlement};
use app::domain::Won;
use app::domain::{LiveMessage, ShowtimeId};
use app::error::InventoryError;
use std::time::Duration;

/// How long a taken event is left to its worker before another may take it.
pub const LEASE: Duration = Duration::from_secs(10);
/// How often an idle worker looks for events it was not woken for (other processes' callbacks,
/// retries after a lease).
pub const POLL: Duration = Duration::from_millis(500);
/// Attempts at one event before it is parked for an operator (seen in `/metrics`). With the
/// backoff below that is about two and a half hours of failures.
pub const MAX_ATTEMPTS: i64 = 20;
/// The wait before an event that failed is tried again: 10 s, doubling, at most 10 minutes.
pub fn backoff(attempts: i64) -> Duration {
    let doublings = attempts.clamp(1, 7) - 1;
    (Duration::from_secs(10) * 2u32.pow(doublings as u32)).min(Duration::from_secs(600))
}
/// Refunds wait on the gateway (up to its 10 s timeout each), so they are taken two at a time
/// with a lease that covers both.
const REFUND_BATCH: i64 = 2;
const REFUND_LEASE: Duration = Duration::from_secs(30);

const CONFIRMATIONS: [&str; 1] = ["PaymentSucceeded"];
const REFUNDS: [&str; 1] = ["RefundDue"];

impl Engine {
    /// One round of both workers (confirmations, then refunds); how many events they took.
    pub async fn process_payment_events(&self) -> Result<usize, InventoryError> {
        Ok(self.process_confirmations().await? + self.process_refunds().await?)
    }

    /// One round of the confirmation worker: settles paid payments. Each settles in one short
    /// transaction; nothing here waits on the gateway, so refunds never hold confirmations up.
    pub async fn process_confirmations(&self) -> Result<usize, InventoryError> {
        self.process(&CONFIRMATIONS, 16, LEASE).await
    }

    /// One round of the refund worker: asks the gateway for the refunds that are due.
    pub async fn process_refunds(&self) -> Result<usize, InventoryError> {
        self.process(&REFUNDS, REFUND_BATCH, REFUND_LEASE).await
    }

    async fn process(
        &self,
        types: &[&str],
        limit: i64,
        lease: Duration,
    ) -> Result<usize, InventoryError> {
        let items = self.store.claim_outbox(types, limit, lease).await?;
        for item in &items {
            if let Err(why) = self.settle(item).await {
                if item.attempts >= MAX_ATTEMPTS || why.hopeless {
                    tracing::error!(event = item.id, kind = %item.event_type, booking = %item.booking.0, attempts = item.attempts, error = %why.message, "payment event parked: an operator must look at it");
                    self.store.park_outbox(item.id, &why.message).await?;
                    HoldMetrics::count(&self.metrics.events_parked);
                } else {
                    let wait = backoff(item.attempts);
                    tracing::warn!(event = item.id, kind = %item.event_type, attempts = item.attempts, error = %why.message, retry_in = ?wait, "payment event not handled; it is retried");
                    self.store.retry_outbox(item.id, wait, &why.message).await?;
                }
            }
        }
        Ok(items.len())
    }

    /// Wakes the confirmation worker (a payment was just recorded).
    pub(crate) fn wake_worker(&self) {
        self.worker_wake.notify_one();
    }

    async fn settle(&self, item: &OutboxItem) -> Result<(), Unsettled> {
        let envelope = item
            .event
            .as_ref()
            .map_err(|e| Unsettled::hopeless(&format!("unreadable event: {e}")))?;
        match &envelope.event {
            BookingEvent::PaymentSucceeded {
                payment_id: Some(payment_id),
                ..
            } => self.settle_payment(item, payment_id).await,
            // Paid, says the gateway, but without a payment id nothing can be confirmed
            // against it or refunded: retrying cannot help.
            BookingEvent::PaymentSucceeded {
                payment_id: None, ..
            } => Err(Unsettled::hopeless(
                "the gateway reported a payment without a payment id",
            )),
            BookingEvent::RefundDue {
                payment_id,
                amount,
                seats,
                ..
            } => self.refund(item, payment_id, *amount, seats).await,
            BookingEvent::BookingConfirmed { .. }
            | BookingEvent::BookingFailed { .. }
            | BookingEvent::RefundIssued { .. }
            | BookingEvent::SeatsExchanged { .. }
            | BookingEvent::RefundOwed { .. } => Err(Unsettled::hopeless(&format!(
                "{} is not a payment event",
                envelope.event.kind()
            ))),
        }
    }

    async fn settle_payment(&self, item: &OutboxItem, payment_id: &str) -> Result<(), Unsettled> {
        let settlement = self
            .store
            .settle_payment(item.id, item.booking, payment_id, self.clock.now())
            .await
            .map_err(Unsettled::from)?;
        self.relay_wake.notify_one();
        match settlement {
            Settlement::Confirmed {
                showtime,
                seats,
                hold,
            } => {
                tracing::info!(booking = %item.booking.0, "booking confirmed");
                self.admission_hold_ended(hold, Duration::ZERO).await;
                let codes: Vec<_> = seats.iter().map(|s| s.code.clone()).collect();
                let until = self.gate_keys_until(showtime).await;
                self.gate.book(showtime, &codes, item.booking, until).await;
                self.announce(
                    showtime,
                    LiveMessage::SeatsBooked {
                        showtime_id: showtime,
                        seats,
                    },
                )
                .await;
            }
            Settlement::Failed { reason } => {
                tracing::warn!(booking = %item.booking.0, reason, "booking failed; refunding the payment");
                self.refund_wake.notify_one();
            }
            Settlement::Refunded { reason } => {
                tracing::warn!(booking = %item.booking.0, payment = payment_id, reason, "a payment the booking did not need; refunding it");
                self.refund_wake.notify_one();
            }
            Settlement::AlreadySettled => {}
        }
        Ok(())
    }

    async fn refund(
        &self,
        item: &OutboxItem,
        payment_id: &str,
        amount: Won,
        seats: &[String],
    ) -> Result<(), Unsettled> {
        let Some(payments) = &self.payments else {
            return Err(Unsettled::retry("no payment gateway configured"));
        };
        let refund = payments
            .gateway
            .refund(payment_id, amount, &format!("refund-{payment_id}"))
            .await
            .map_err(|e| Unsettled::retry(&format!("refund not made yet: {e}")))?;
        self.store
            .finish_refund(
                item.id,
                item.booking,
                (payment_id, &refund.refund_id),
                seats,
            )
            .await
            .map_err(Unsettled::from)?;
        self.relay_wake.notify_one();
        tracing::info!(booking = %item.booking.0, refund = %refund.refund_id, "refund issued");
        Ok(())
    }

    /// Until when a sold seat's gate key is kept: an hour past the showtime's sales close
    /// (nothing can be held after it).
    pub(crate) async fn gate_keys_until(
        &self,
        showtime: ShowtimeId,
    ) -> chrono::DateTime<chrono::Utc> {
        match self.layout(showtime).await {
            Ok(layout) => layout.sales_close_at() + chrono::Duration::hours(1),
            Err(_) => chrono::Utc::now() + chrono::Duration::days(1),
        }
    }
}

/// Why an event was not handled, and whether trying again can help.
struct Unsettled {
    message: String,
    hopeless: bool,
}

impl Unsettled {
    fn retry(message: &str) -> Self {
        Self {
            message: message.into(),
            hopeless: false,
        }
    }

    fn hopeless(message: &str) -> Self {
        Self {
            message: message.into(),
            hopeless: true,
        }
    }
}

impl From<crate::store::StoreError> for Unsettled {
    fn from(e: crate::store::StoreError) -> Self {
        Self::retry(&e.to_string())
    }
}

impl Engine {
    /// Reconciliation: payments still PENDING `older_than` after they were created (a lost
    /// callback) are looked up at the gateway and finished by the same logic as a callback. An
    /// unpaid expired session only marks its payment EXPIRED. Returns how many were finished.
    pub async fn reconcile(&self, older_than: Duration) -> Result<usize, InventoryError> {
        let Some(payments) = &self.payments else {
            return Ok(0);
        };
        let stale = self
            .store
            .stale_payments(older_than, self.clock.now(), 100)
            .await?;
        let mut finished = 0;
        for session_id in stale {
            let session = match payments.gateway.session(&session_id).await {
                Ok(session) => session,
                Err(e) => {
                    tracing::warn!(error = %e, session = %session_id, "reconciliation: gateway not asked");
                    continue;
                }
            };
            let paid = match session.status {
                SessionStatus::Open => continue,
                SessionStatus::Expired => {
                    if self.store.expire_payment(&session_id).await? {
                        finished += 1;
                    }
                    continue;
                }
                SessionStatus::Paid => true,
                SessionStatus::Declined => false,
            };
            tracing::info!(session = %session_id, paid, "reconciliation found a payment whose callback never came");
            let report = PaymentReport {
                event_id: format!("reconciliation-{session_id}"),
                session_id,
                payment_id: session.payment_id,
                paid,
                charged: Some(Charged {
                    amount: session.amount,
                    currency: session.currency,
                    merchant_reference: session.merchant_reference,
                }),
            };
            if matches!(
                self.payment_report(&report).await?,
                ReportOutcome::Recorded | ReportOutcome::Mismatched
            ) {
                finished += 1;
            }
        }
        Ok(finished)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retries_back_off_to_ten_minutes_and_park_after_hours() {
        assert_eq!(backoff(1), Duration::from_secs(10));
        assert_eq!(backoff(2), Duration::from_secs(20));
        assert_eq!(backoff(7), Duration::from_secs(600));
        assert_eq!(backoff(19), Duration::from_secs(600));
        let until_parked: Duration = (1..MAX_ATTEMPTS).map(backoff).sum();
        assert!(
            until_parked > Duration::from_secs(2 * 3600),
            "{until_parked:?}"
        );
    }
}
