//! Every second, an admission step of each waiting room that is on (safe on every process at
//! once: each step is atomic in the room's state, and admissions never pass the room's limits
//! however many processes step it), and the new frame for this process's waiting pages. Every
//! few seconds the places of the pages connected here are marked as seen.

use crate::engine::Engine;
use std::sync::Arc;
use std::time::Duration;

pub const STEP_EVERY: Duration = Duration::from_secs(1);

pub async fn admissions(engine: Arc<Engine>) {
    let mut ticker = tokio::time::interval(STEP_EVERY);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // Pages are marked seen well within the grace period (at least every 10 s).
    let grace = engine.waiting_rooms().policy.grace;
    let touch_every = (grace / 4).clamp(STEP_EVERY, Duration::from_secs(10));
    let mut last_touch = std::time::Instant::now();
    loop {
        ticker.tick().await;
        if let Err(e) = engine.admit_waiting().await {
            tracing::warn!(error = %e, "waiting-room admissions failed; will retry");
        }
        if last_touch.elapsed() >= touch_every {
            last_touch = std::time::Instant::now();
            engine.waiting_rooms().touch_connected().await;
        }
    }
}
