//! The confirmation worker's work (DESIGN.md §5, seed 003 §2–3): payment events are taken from
//! the outbox (several workers at once are safe: each event is leased to one) and settled in one
//! transaction each — the fenced confirm books the seats and confirms the booking, or, when the
//! hold lapsed or its seats went to someone else, the booking fails and a refund is due (the
//! seats stay with whoever has them). Refunds go to the gateway under a key made from the payment
//! id, so a refund retried after a crash is never made twice. An event whose handling fails is
//! taken again when its lease runs out.

use super::Engine;
use crate::payments::gateway::SessionStatus;
use crate::store::{OutboxItem, PaymentReport, ReportOutcome, Settlement};
use app::domain::LiveMessage;
use app::error::InventoryError;
use std::sync::Arc;
use std::time::Duration;

/// How long a taken event is left to its worker before another may take it.
pub const LEASE: Duration = Duration::from_secs(10);
/// How often an idle worker looks for events it was not woken for (other processes' callbacks,
/// retries after a lease).
pub const POLL: Duration = Duration::from_millis(500);

const EVENTS: [&str; 2] = ["PaymentSucceeded", "RefundDue"];

impl Engine {
    /// One round of the worker; how many events it took.
    pub async fn process_payment_events(&self) -> Result<usize, InventoryError> {
        let items = self.store.claim_outbox(&EVENTS, 16, LEASE).await?;
        for item in &items {
            if let Err(e) = self.settle(item).await {
                tracing::warn!(error = %e, event = item.id, kind = %item.event_type, attempts = item.attempts, "payment event not handled; it is retried");
            }
        }
        Ok(items.len())
    }

    /// Wakes the worker (a payment was just recorded).
    pub(crate) fn wake_worker(&self) {
        self.worker_wake.notify_one();
    }

    async fn settle(&self, item: &OutboxItem) -> Result<(), InventoryError> {
        let payment_id = item.payload["paymentId"].as_str().ok_or_else(|| {
            tracing::error!(event = item.id, "payment event without a payment id");
            InventoryError::Unavailable
        })?;
        match item.event_type.as_str() {
            "PaymentSucceeded" => {
                let settlement = self
                    .store
                    .settle_payment(item.id, item.booking, payment_id, self.clock.now())
                    .await?;
                self.relay_wake.notify_one();
                match settlement {
                    Settlement::Confirmed { showtime, seats } => {
                        tracing::info!(booking = %item.booking.0, "booking confirmed");
                        let codes: Vec<_> = seats.iter().map(|s| s.code.clone()).collect();
                        self.gate.book(showtime, &codes, item.booking).await;
                        self.announce(
                            showtime,
                            LiveMessage::SeatsBooked {
                                showtime_id: showtime,
                                seats,
                            },
                        )
                        .await;
                    }
                    Settlement::Failed => {
                        tracing::warn!(booking = %item.booking.0, "payment came after the hold lapsed; refunding");
                        self.wake_worker();
                    }
                    Settlement::AlreadySettled => {}
                }
            }
            "RefundDue" => {
                let Some(payments) = &self.payments else {
                    return Err(InventoryError::Unavailable);
                };
                let amount = item.payload["amount"].as_i64().unwrap_or_default();
                let refund = payments
                    .gateway
                    .refund(payment_id, amount, &format!("refund-{payment_id}"))
                    .await
                    .map_err(|e| {
                        tracing::warn!(error = %e, payment = payment_id, "refund not made yet");
                        InventoryError::Unavailable
                    })?;
                self.store
                    .finish_refund(item.id, item.booking, payment_id, &refund.refund_id)
                    .await?;
                self.relay_wake.notify_one();
                tracing::info!(booking = %item.booking.0, refund = %refund.refund_id, "refund issued");
            }
            other => tracing::error!(kind = other, "unexpected outbox event"),
        }
        Ok(())
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
            };
            if self.payment_report(&report).await? == ReportOutcome::Recorded {
                finished += 1;
            }
        }
        Ok(finished)
    }
}

/// Runs reconciliation every `every` for as long as the process runs.
pub fn spawn_reconciliation(engine: Arc<Engine>, every: Duration, older_than: Duration) {
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(every).await;
            if let Err(e) = engine.reconcile(older_than).await {
                tracing::warn!(error = %e, "reconciliation round failed");
            }
        }
    });
}

/// Runs the worker for as long as the process runs.
pub fn spawn(engine: Arc<Engine>) {
    tokio::spawn(async move {
        loop {
            match engine.process_payment_events().await {
                Ok(n) if n > 0 => continue, // there may be more
                Ok(_) => {}
                Err(e) => tracing::warn!(error = %e, "payment worker round failed"),
            }
            tokio::select! {
                _ = engine.worker_wake.notified() => {}
                _ = tokio::time::sleep(POLL) => {}
            }
        }
    });
}
