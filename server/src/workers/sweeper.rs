//! Releases expired holds (and any hold of a cancelled showtime) every `SWEEP_INTERVAL_SECONDS`. Correctness never depends on it (an
//! expired hold already reads as available); it tidies stored state so that the seat map and,
//! later, the live events show the seat as free. Several server processes may sweep at once.

use crate::engine::Engine;
use std::sync::Arc;
use std::time::Duration;

/// Sweeps every `every`, and when woken (after a showtime's cancellation: the held seats of
/// cancelled showtimes are released too).
pub async fn sweeper(engine: Arc<Engine>, every: Duration) {
    {
        let mut ticker = tokio::time::interval(every);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let soon = engine.sweep_soon.clone();
        loop {
            tokio::select! {
                _ = ticker.tick() => {}
                _ = soon.notified() => {}
            }
            match engine.sweep().await {
                Ok(released) => {
                    for r in released {
                        tracing::info!(showtime = %r.showtime, seats = r.changes.len(), "released expired holds");
                    }
                }
                Err(e) => tracing::warn!(error = %e, "sweep failed; will retry"),
            }
        }
    }
}

/// Finished holds and expired idempotency keys are kept this long, then purged.
pub const RETENTION: chrono::Duration = chrono::Duration::days(1);
/// How often purging runs.
const PURGE_EVERY: Duration = Duration::from_secs(600);

/// Small recurring work beside the sweeper: retries of seat-gate releases that could not reach
/// Redis (every second), the backlog gauges `/metrics` reads (every 5 s, so a scrape costs no
/// query), and purging what has outlived its retention.
pub async fn housekeeping(engine: Arc<Engine>) {
    {
        let mut ticker = tokio::time::interval(Duration::from_secs(1));
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut last_purge: Option<std::time::Instant> = None;
        let mut tick: u64 = 0;
        loop {
            ticker.tick().await;
            tick += 1;
            engine.gate().retry_releases().await;
            if tick % 5 == 1 {
                engine.refresh_gauges().await;
            }
            if last_purge.is_none_or(|at| at.elapsed() >= PURGE_EVERY) {
                last_purge = Some(std::time::Instant::now());
                match engine.purge(RETENTION).await {
                    Ok((holds, keys)) if holds + keys > 0 => {
                        tracing::info!(
                            holds,
                            keys,
                            "purged finished holds and expired idempotency keys"
                        )
                    }
                    Ok(_) => {}
                    Err(e) => tracing::warn!(error = %e, "purge failed; will retry"),
                }
            }
        }
    }
}
