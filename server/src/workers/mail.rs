//! The mail worker: sends customers' messages as they fall due (see `engine::mail`). Every
//! process runs it; leases keep two from sending the same message at once.

use crate::engine::Engine;
use std::sync::Arc;

pub async fn deliveries(engine: Arc<Engine>) {
    let Some(poll) = engine.mailer().map(|m| m.poll) else {
        return;
    };
    loop {
        match engine.send_due_mail().await {
            // A full round may have left more due: go on at once.
            Ok(n) if n > 0 => continue,
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "mail round failed"),
        }
        tokio::time::sleep(poll).await;
    }
}
