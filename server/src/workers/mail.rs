//! The mail worker: sends customers' messages as they fall due (see `engine::mail`). Every
//! process runs it; leases keep two from sending the same message at once.

use crate::engine::Engine;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How often the file transport's old messages are looked for.
const PRUNE_EVERY: Duration = Duration::from_secs(3600);

pub async fn deliveries(engine: Arc<Engine>) {
    let Some(mailer) = engine.mailer().cloned() else {
        return;
    };
    let poll = mailer.poll;
    let mut pruned = Instant::now() - PRUNE_EVERY;
    loop {
        if pruned.elapsed() >= PRUNE_EVERY {
            pruned = Instant::now();
            let age = engine.email_retention().to_std().unwrap_or(Duration::MAX);
            let gone = mailer.prune_files(age);
            if gone > 0 {
                tracing::info!(
                    files = gone,
                    "old e-mail files deleted after the address retention"
                );
            }
        }
        match engine.send_due_mail().await {
            // A full round may have left more due: go on at once.
            Ok(n) if n > 0 => continue,
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "mail round failed"),
        }
        tokio::time::sleep(poll).await;
    }
}
