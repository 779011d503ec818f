//! The event bus of the live seat map. Viewers subscribe per showtime to a bounded in-process
//! broadcast channel. The engine publishes after its transaction has committed (the store returns
//! only then), so a rolled-back change is never announced.
//!
//! With Redis (`REDIS_URL`), events travel through Redis pub/sub so that every server process's
//! viewers see every process's changes: publishing is a `PUBLISH seats:{showtimeId}:live`, and
//! each process keeps **one** pattern subscription and fans messages out in memory. If Redis is
//! unreachable, events still reach this process's viewers; when the subscription comes back,
//! every viewer is told to resync from a fresh snapshot, covering what it may have missed. Redis
//! trouble never takes the server down.
//!
//! A viewer that falls behind is told it lagged and is disconnected (it reconnects and gets a
//! fresh snapshot) instead of letting the server buffer for it.

use app::domain::{LiveMessage, ShowtimeId};
use axum::extract::ws::Utf8Bytes;
use futures_util::StreamExt;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::broadcast;

/// Messages buffered per showtime before a slow viewer counts as lagging.
const CHANNEL_CAPACITY: usize = 256;
/// How long a publish may wait for Redis before the event is delivered locally only.
const REDIS_TIMEOUT: Duration = Duration::from_millis(300);

/// What a viewer's connection receives from the bus.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BusItem {
    /// A change, with its JSON made once for all viewers (sent by reference count).
    Event(LiveMessage, Utf8Bytes),
    /// Events may have been missed: send the viewer a fresh snapshot.
    Resync,
}

#[derive(Default)]
struct Local {
    channels: Mutex<HashMap<ShowtimeId, broadcast::Sender<Arc<BusItem>>>>,
}

impl Local {
    fn subscribe(&self, showtime: ShowtimeId) -> broadcast::Receiver<Arc<BusItem>> {
        let mut channels = self.channels.lock().expect("bus lock");
        channels
            .entry(showtime)
            .or_insert_with(|| broadcast::channel(CHANNEL_CAPACITY).0)
            .subscribe()
    }

    fn deliver(&self, showtime: ShowtimeId, item: BusItem) {
        let mut channels = self.channels.lock().expect("bus lock");
        if let Some(sender) = channels.get(&showtime) {
            if sender.send(Arc::new(item)).is_err() {
                channels.remove(&showtime); // nobody watches any more
            }
        }
    }

    fn resync_all(&self) {
        let channels = self.channels.lock().expect("bus lock");
        for sender in channels.values() {
            let _ = sender.send(Arc::new(BusItem::Resync));
        }
    }
}

struct RedisLink {
    client: redis::Client,
    publisher: tokio::sync::Mutex<Option<redis::aio::ConnectionManager>>,
}

#[derive(Default)]
pub struct EventBus {
    local: Arc<Local>,
    redis: Option<RedisLink>,
    /// Publishes that could not go through Redis (delivered locally instead).
    redis_failures: AtomicU64,
}

fn channel(showtime: ShowtimeId) -> String {
    format!("seats:{{{}}}:live", showtime.0)
}

/// The showtime of a `seats:{42}:live` channel.
fn showtime_of(channel: &str) -> Option<ShowtimeId> {
    let id = channel.strip_prefix("seats:{")?.strip_suffix("}:live")?;
    ShowtimeId::parse(id)
}

impl EventBus {
    /// A bus whose events go through Redis; starts this process's one subscription.
    pub fn with_redis(url: &str) -> Result<Self, redis::RedisError> {
        let client = redis::Client::open(url)?;
        let local = Arc::new(Local::default());
        tokio::spawn(subscribe_forever(client.clone(), local.clone()));
        Ok(Self {
            local,
            redis: Some(RedisLink {
                client,
                publisher: tokio::sync::Mutex::new(None),
            }),
            redis_failures: AtomicU64::new(0),
        })
    }

    pub fn subscribe(&self, showtime: ShowtimeId) -> broadcast::Receiver<Arc<BusItem>> {
        self.local.subscribe(showtime)
    }

    pub fn redis_failures(&self) -> u64 {
        self.redis_failures.load(Ordering::Relaxed)
    }

    /// Announces a committed change to every viewer of the showtime, in every process.
    pub async fn publish(&self, showtime: ShowtimeId, message: LiveMessage) {
        let payload = serde_json::to_string(&message).expect("messages serialise");
        let Some(link) = &self.redis else {
            self.local
                .deliver(showtime, BusItem::Event(message, payload.into()));
            return;
        };
        let sent = tokio::time::timeout(REDIS_TIMEOUT, async {
            let mut publisher = link.publisher.lock().await;
            // Two tries: after Redis restarts, the connection manager reports the broken
            // connection on first use and reconnects for the next one.
            let mut result = Err(redis::RedisError::from((redis::ErrorKind::Io, "not tried")));
            for _ in 0..2 {
                if publisher.is_none() {
                    *publisher = redis::aio::ConnectionManager::new(link.client.clone())
                        .await
                        .ok();
                }
                let Some(conn) = publisher.as_mut() else {
                    continue;
                };
                result = redis::cmd("PUBLISH")
                    .arg(channel(showtime))
                    .arg(&payload)
                    .query_async::<i64>(conn)
                    .await;
                if result.is_ok() {
                    break;
                }
                *publisher = None; // the next try (or publish) opens a fresh connection
            }
            result
        })
        .await;
        if !matches!(sent, Ok(Ok(_))) {
            let failures = self.redis_failures.fetch_add(1, Ordering::Relaxed) + 1;
            tracing::warn!(%showtime, failures, "Redis publish failed; delivering to this process's viewers only");
            self.local
                .deliver(showtime, BusItem::Event(message, payload.into()));
        }
    }
}

/// This process's one Redis subscription: reconnects with backoff for as long as the process
/// runs, and asks every viewer to resync whenever it was interrupted.
async fn subscribe_forever(client: redis::Client, local: Arc<Local>) {
    let mut backoff = Duration::from_millis(200);
    loop {
        match client.get_async_pubsub().await {
            Ok(mut pubsub) => match pubsub.psubscribe("seats:{*}:live").await {
                Ok(()) => {
                    tracing::info!("subscribed to live seat events in Redis");
                    backoff = Duration::from_millis(200);
                    local.resync_all();
                    let mut messages = pubsub.on_message();
                    while let Some(msg) = messages.next().await {
                        let Some(showtime) = showtime_of(msg.get_channel_name()) else {
                            continue;
                        };
                        let payload = String::from_utf8_lossy(msg.get_payload_bytes()).into_owned();
                        match serde_json::from_str::<LiveMessage>(&payload) {
                            Ok(message) => {
                                local.deliver(showtime, BusItem::Event(message, payload.into()))
                            }
                            Err(e) => {
                                tracing::warn!(error = %e, "unreadable live event from Redis")
                            }
                        }
                    }
                    tracing::warn!("Redis subscription lost; reconnecting");
                }
                Err(e) => tracing::warn!(error = %e, "Redis subscribe failed"),
            },
            Err(e) => tracing::warn!(error = %e, "Redis unreachable for live events"),
        }
        // Viewers may miss events while the subscription is down; resync them now and again on
        // reconnect.
        local.resync_all();
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(Duration::from_secs(5));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn viewers_of_a_showtime_get_its_messages_and_no_others() {
        let bus = EventBus::default();
        let mut seven = bus.subscribe(ShowtimeId(7));
        let mut eight = bus.subscribe(ShowtimeId(8));
        bus.publish(ShowtimeId(7), LiveMessage::Ping).await;
        assert_eq!(
            *seven.recv().await.unwrap(),
            BusItem::Event(LiveMessage::Ping, r#"{"type":"ping"}"#.into())
        );
        assert!(eight.try_recv().is_err());
    }

    #[tokio::test]
    async fn a_viewer_that_falls_behind_is_told_it_lagged() {
        let bus = EventBus::default();
        let mut slow = bus.subscribe(ShowtimeId(1));
        for _ in 0..CHANNEL_CAPACITY + 10 {
            bus.publish(ShowtimeId(1), LiveMessage::Ping).await;
        }
        assert!(matches!(
            slow.recv().await,
            Err(broadcast::error::RecvError::Lagged(_))
        ));
    }

    #[test]
    fn channels_carry_the_showtime_as_a_hash_tag() {
        assert_eq!(channel(ShowtimeId(42)), "seats:{42}:live");
        assert_eq!(showtime_of("seats:{42}:live"), Some(ShowtimeId(42)));
        assert_eq!(showtime_of("seats:{x}:live"), None);
    }
}
