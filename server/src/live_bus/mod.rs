//! The live seat map's bus (the seat changes viewers see; not the booking events of the outbox,
//! see `booking_events`). Viewers subscribe per showtime to a bounded in-process broadcast
//! channel. The engine publishes after its transaction has committed (the store returns
//! only then), so a rolled-back change is never announced.
//!
//! With Redis (`REDIS_URL`), events travel through Redis pub/sub so that every server process's
//! viewers see every process's changes: publishing is a `PUBLISH seats:{showtimeId}:live`, and
//! each process keeps **one** pattern subscription and fans messages out in memory. If Redis is
//! unreachable, events still reach this process's viewers; when the subscription comes back,
//! every viewer is told to resync from a fresh snapshot, covering what it may have missed. Redis
//! trouble never takes the server down.
//!
//! With a Redis Cluster, events use sharded pub/sub (`SPUBLISH`/`SSUBSCRIBE`, Redis 7): the
//! channel lives on the shard that owns its `{showtimeId}` slot, so a showtime's events never
//! cross the cluster bus. Sharded channels have no patterns, so the process's one cluster
//! connection subscribes to a showtime's channel when its first viewer arrives here; viewers get a
//! resync once the subscription stands (and again whenever the connection was re-established).
//!
//! A viewer that falls behind is told it lagged and is disconnected (it reconnects and gets a
//! fresh snapshot) instead of letting the server buffer for it.

use crate::redis_link::{Conn, RedisLink, RedisTarget};
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
    /// Put in front of every channel name (`REDIS_KEY_PREFIX`).
    prefix: String,
    channels: Mutex<HashMap<ShowtimeId, broadcast::Sender<Arc<BusItem>>>>,
    /// Told of each showtime that gets its first viewer here (sharded subscriptions), and of
    /// every watched one again after the cluster connection was lost (`true`: resync it once
    /// subscribed again).
    first_viewer: Option<tokio::sync::mpsc::UnboundedSender<(ShowtimeId, bool)>>,
}

impl Local {
    fn subscribe(&self, showtime: ShowtimeId) -> broadcast::Receiver<Arc<BusItem>> {
        let mut channels = self.channels.lock().expect("bus lock");
        let sender = channels.entry(showtime).or_insert_with(|| {
            if let Some(first_viewer) = &self.first_viewer {
                let _ = first_viewer.send((showtime, false));
            }
            broadcast::channel(CHANNEL_CAPACITY).0
        });
        sender.subscribe()
    }

    fn showtimes(&self) -> Vec<ShowtimeId> {
        let channels = self.channels.lock().expect("bus lock");
        channels.keys().copied().collect()
    }

    fn resync(&self, showtime: ShowtimeId) {
        let channels = self.channels.lock().expect("bus lock");
        if let Some(sender) = channels.get(&showtime) {
            let _ = sender.send(Arc::new(BusItem::Resync));
        }
    }

    /// A message as Redis delivered it on a channel.
    fn deliver_raw(&self, channel: &str, payload: &[u8]) {
        let Some(showtime) = showtime_of(&self.prefix, channel) else {
            return;
        };
        if payload == RESYNC {
            self.resync(showtime);
            return;
        }
        let payload = String::from_utf8_lossy(payload).into_owned();
        match serde_json::from_str::<LiveMessage>(&payload) {
            Ok(message) => self.deliver(showtime, BusItem::Event(message, payload.into())),
            Err(e) => tracing::warn!(error = %e, "unreadable live event from Redis"),
        }
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

    /// Subscribes again to every showtime watched here (sharded subscriptions): each is
    /// resynced once its subscription stands again.
    fn resubscribe_all(&self) {
        if let Some(first_viewer) = &self.first_viewer {
            for showtime in self.showtimes() {
                let _ = first_viewer.send((showtime, true));
            }
        }
    }
}

/// Published on a showtime's channel after some of its events could not go through Redis: every
/// process tells its viewers of that showtime to resync.
const RESYNC: &[u8] = b"resync";
/// How often showtimes with events that missed Redis are announced for resync.
const HEAL_INTERVAL: Duration = Duration::from_millis(500);

struct Remote {
    /// Publishing connection, with a timeout and a breaker: while Redis is unusable, events are
    /// delivered here at once instead of each waiting for the timeout.
    link: RedisLink,
    /// `SPUBLISH` on a cluster, `PUBLISH` on one server.
    publish_command: &'static str,
    /// Showtimes with events that only this process's viewers got.
    missed: Mutex<std::collections::HashSet<ShowtimeId>>,
}

impl Remote {
    async fn publish(&self, showtime: ShowtimeId, payload: &[u8]) -> bool {
        let command = self.publish_command;
        self.link
            .run("live event publish", |mut conn: Conn| async move {
                redis::cmd(command)
                    .arg(channel(self.link.prefix(), showtime))
                    .arg(payload)
                    .query_async::<i64>(&mut conn)
                    .await
            })
            .await
            .is_some()
    }
}

/// Once Redis takes publishes again, asks every process's viewers of each showtime whose events
/// missed Redis to resync (they may have missed those events).
async fn heal_missed(remote: std::sync::Weak<Remote>) {
    loop {
        tokio::time::sleep(HEAL_INTERVAL).await;
        let Some(remote) = remote.upgrade() else {
            return;
        };
        let missed: Vec<ShowtimeId> = remote
            .missed
            .lock()
            .expect("missed lock")
            .iter()
            .copied()
            .collect();
        for showtime in missed {
            if !remote.publish(showtime, RESYNC).await {
                break;
            }
            remote.missed.lock().expect("missed lock").remove(&showtime);
        }
    }
}

#[derive(Default)]
pub struct LiveBus {
    local: Arc<Local>,
    redis: Option<Arc<Remote>>,
    /// Publishes that could not go through Redis (delivered locally instead).
    redis_failures: AtomicU64,
}

fn channel(prefix: &str, showtime: ShowtimeId) -> String {
    format!("{prefix}seats:{{{}}}:live", showtime.get())
}

/// The showtime of a `<prefix>seats:{42}:live` channel.
fn showtime_of(prefix: &str, channel: &str) -> Option<ShowtimeId> {
    let id = channel
        .strip_prefix(prefix)?
        .strip_prefix("seats:{")?
        .strip_suffix("}:live")?;
    ShowtimeId::parse(id)
}

impl LiveBus {
    /// A bus whose events go through Redis on channels named with `prefix`; starts this
    /// process's one subscription.
    pub fn with_redis(target: &RedisTarget, prefix: &str) -> Result<Self, redis::RedisError> {
        let link = RedisLink::with_prefix(target.clone(), REDIS_TIMEOUT, prefix);
        match target {
            RedisTarget::Node(url) => {
                let client = redis::Client::open(url.as_str())?;
                let local = Arc::new(Local {
                    prefix: prefix.to_string(),
                    ..Local::default()
                });
                tokio::spawn(subscribe_forever(client, local.clone()));
                Ok(Self::remote(local, link, "PUBLISH"))
            }
            RedisTarget::Cluster(nodes) => {
                let (first_viewer, showtimes) = tokio::sync::mpsc::unbounded_channel();
                let local = Arc::new(Local {
                    prefix: prefix.to_string(),
                    first_viewer: Some(first_viewer),
                    ..Local::default()
                });
                let pushes = local.clone();
                let client = redis::cluster::ClusterClient::builder(nodes.clone())
                    .use_protocol(redis::ProtocolVersion::RESP3)
                    .push_sender(move |push: redis::PushInfo| {
                        pushes.on_push(push);
                        Ok::<(), std::convert::Infallible>(())
                    })
                    .build()?;
                tokio::spawn(subscribe_sharded(client, local.clone(), showtimes));
                Ok(Self::remote(local, link, "SPUBLISH"))
            }
        }
    }

    fn remote(local: Arc<Local>, link: RedisLink, publish_command: &'static str) -> Self {
        let remote = Arc::new(Remote {
            link,
            publish_command,
            missed: Mutex::default(),
        });
        tokio::spawn(heal_missed(Arc::downgrade(&remote)));
        Self {
            local,
            redis: Some(remote),
            redis_failures: AtomicU64::new(0),
        }
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
        let sent = link.publish(showtime, payload.as_bytes()).await;
        if !sent {
            // Logged by the link once per outage; counted here, and healed by `heal_missed`.
            self.redis_failures.fetch_add(1, Ordering::Relaxed);
            link.missed.lock().expect("missed lock").insert(showtime);
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
            Ok(mut pubsub) => match pubsub
                .psubscribe(format!("{}seats:{{*}}:live", local.prefix))
                .await
            {
                Ok(()) => {
                    tracing::info!("subscribed to live seat events in Redis");
                    backoff = Duration::from_millis(200);
                    local.resync_all();
                    let mut messages = pubsub.on_message();
                    while let Some(msg) = messages.next().await {
                        local.deliver_raw(msg.get_channel_name(), msg.get_payload_bytes());
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

impl Local {
    /// What the cluster connection pushes: sharded messages, (re)subscriptions and disconnects.
    fn on_push(&self, push: redis::PushInfo) {
        let text = |v: &redis::Value| match v {
            redis::Value::BulkString(b) => Some(b.clone()),
            redis::Value::SimpleString(s) => Some(s.clone().into_bytes()),
            _ => None,
        };
        match push.kind {
            redis::PushKind::SMessage => {
                if let [channel, payload] = &push.data[..] {
                    if let (Some(channel), Some(payload)) = (text(channel), text(payload)) {
                        self.deliver_raw(&String::from_utf8_lossy(&channel), &payload);
                    }
                }
            }
            // A subscription (re)established: what was published meanwhile may be missing.
            redis::PushKind::SSubscribe => {
                let showtime = push
                    .data
                    .first()
                    .and_then(text)
                    .and_then(|c| showtime_of(&self.prefix, &String::from_utf8_lossy(&c)));
                if let Some(showtime) = showtime {
                    self.resync(showtime);
                }
            }
            // Until a shard is back, nothing published on it reaches this process (a master that
            // was killed comes back without its subscribers, and the connection may not tell
            // when it subscribed again): subscribe again explicitly, and resync each showtime
            // once that stands.
            redis::PushKind::Disconnection => {
                tracing::warn!("Redis Cluster connection lost; it reconnects and resubscribes");
                self.resync_all();
                self.resubscribe_all();
            }
            _ => {}
        }
    }
}

/// Sharded subscriptions on a cluster: one per showtime watched in this process, made when its
/// first viewer arrives (the cluster connection re-subscribes by itself after reconnecting).
async fn subscribe_sharded(
    client: redis::cluster::ClusterClient,
    local: Arc<Local>,
    mut showtimes: tokio::sync::mpsc::UnboundedReceiver<(ShowtimeId, bool)>,
) {
    let mut backoff = Duration::from_millis(200);
    let mut conn = loop {
        match client.get_async_connection().await {
            Ok(conn) => break conn,
            Err(e) => {
                tracing::warn!(error = %e, "Redis Cluster unreachable for live events");
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(Duration::from_secs(5));
            }
        }
    };
    // Showtimes that got viewers while the cluster was unreachable.
    let mut pending: Vec<(ShowtimeId, bool)> =
        local.showtimes().into_iter().map(|s| (s, false)).collect();
    loop {
        while let Some((showtime, again)) = pending.pop() {
            while let Err(e) = conn.ssubscribe(channel(&local.prefix, showtime)).await {
                tracing::warn!(error = %e, %showtime, "sharded subscribe failed; retrying");
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
            // Subscribed again after a lost connection: what was published while it was away
            // is in a fresh snapshot.
            if again {
                local.resync(showtime);
            }
        }
        match showtimes.recv().await {
            Some(next) => pending.push(next),
            None => return,
        }
    }
}

#[cfg(test)]
mod tests;
