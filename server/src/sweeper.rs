//! Releases expired holds every `SWEEP_INTERVAL_SECONDS`. Correctness never depends on it (an
//! expired hold already reads as available); it tidies stored state so that the seat map and,
//! later, the live events show the seat as free. Several server processes may sweep at once.

use crate::engine::Engine;
use std::sync::Arc;
use std::time::Duration;

pub fn spawn(engine: Arc<Engine>, every: Duration) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut ticker = tokio::time::interval(every);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticker.tick().await;
            match engine.sweep().await {
                Ok(released) => {
                    for r in released {
                        tracing::info!(showtime = %r.showtime, seats = r.changes.len(), "released expired holds");
                    }
                }
                Err(e) => tracing::warn!(error = %e, "sweep failed; will retry"),
            }
        }
    })
}
