//! The viewers: live seat maps kept open through the sale, applying each seat by its version.

use super::Sale;
use app::domain::LiveMessage;
use bench::env;
use futures_util::StreamExt;
use std::collections::HashMap;
use std::time::Duration;

/// A live seat map kept open (and reopened) until the sale stops; its seats by code.
pub async fn viewer(sale: Sale, showtime: i64) -> HashMap<String, (String, i64)> {
    let url = format!(
        "{}/showtimes/{showtime}/live",
        sale.base.replacen("http", "ws", 1)
    );
    let mut seats: HashMap<String, (String, i64)> = HashMap::new();
    let settle = Duration::from_secs(env("CHAOS_SETTLE_SECONDS", 8));
    let mut settle_until = None;
    loop {
        if sale.stopped() && settle_until.is_none() {
            settle_until = Some(tokio::time::Instant::now() + settle);
        }
        if settle_until.is_some_and(|t| tokio::time::Instant::now() >= t) {
            return seats;
        }
        let Ok((mut socket, _)) = tokio_tungstenite::connect_async(&url).await else {
            tokio::time::sleep(Duration::from_secs(1)).await;
            continue;
        };
        loop {
            let deadline = settle_until
                .unwrap_or_else(|| tokio::time::Instant::now() + Duration::from_secs(1));
            let next = tokio::time::timeout_at(deadline, socket.next()).await;
            match next {
                Ok(Some(Ok(message))) => {
                    let Ok(text) = message.to_text() else {
                        continue;
                    };
                    let Ok(parsed) = serde_json::from_str::<LiveMessage>(text) else {
                        continue;
                    };
                    let snapshot = matches!(parsed, LiveMessage::Snapshot { .. });
                    for change in parsed.seats() {
                        let code = change.code.to_string();
                        let status = serde_json::to_value(change.status)
                            .ok()
                            .and_then(|v| v.as_str().map(str::to_string))
                            .unwrap_or_default();
                        let version = change.version;
                        let known = seats.get(&code).map_or(-1, |(_, v)| *v);
                        if snapshot || version > known {
                            seats.insert(code, (status, version));
                        }
                    }
                }
                Ok(_) => break, // closed or failed: reconnect for a fresh snapshot
                Err(_) => {
                    if sale.stopped() && settle_until.is_none() {
                        settle_until = Some(tokio::time::Instant::now() + settle);
                    }
                    if settle_until.is_some_and(|t| tokio::time::Instant::now() >= t) {
                        return seats;
                    }
                }
            }
        }
    }
}
