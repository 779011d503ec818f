//! The payment workers: confirmations and refunds (each its own task, so a slow gateway never
//! holds a confirmation up), and reconciliation of payments whose callback never came. The work
//! itself is the engine's (`engine::settlement`); these are its loops.

use crate::engine::settlement::POLL;
use crate::engine::Engine;
use app::error::InventoryError;
use std::sync::Arc;
use std::time::Duration;

/// Looks up payments still PENDING `older_than` after checkout, every `every`.
pub async fn reconciliation(engine: Arc<Engine>, every: Duration, older_than: Duration) {
    loop {
        tokio::time::sleep(every).await;
        if let Err(e) = engine.reconcile(older_than).await {
            tracing::warn!(error = %e, "reconciliation round failed");
        }
    }
}

/// Settles paid payments as they are recorded.
pub async fn confirmations(engine: Arc<Engine>) {
    work(&engine.worker_wake, || engine.process_confirmations()).await
}

/// Makes the refunds that are due.
pub async fn refunds(engine: Arc<Engine>) {
    work(&engine.refund_wake, || engine.process_refunds()).await
}

/// Rounds of `round`: at once again while there was work, else when woken or after [`POLL`].
async fn work<F, Fut>(wake: &tokio::sync::Notify, round: F)
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = Result<usize, InventoryError>>,
{
    loop {
        match round().await {
            Ok(n) if n > 0 => continue, // there may be more
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "payment worker round failed"),
        }
        tokio::select! {
            _ = wake.notified() => {}
            _ = tokio::time::sleep(POLL) => {}
        }
    }
}
