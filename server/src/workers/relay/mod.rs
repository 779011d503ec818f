//! The outbox relay: committed booking events leave the
//! outbox for the topic `booking-events`, keyed by booking id, in outbox order, at least once.
//!
//! - Only the relay holding the lease `booking-events` (a row in `relay_lease`, renewed every
//!   round, running out by itself when its holder dies) sends; other instances stand by. One
//!   sender keeps each key's events in order without any coordination between messages.
//! - An event is marked published only after the broker acknowledged it, and only while its
//!   relay still holds the lease. A relay that dies between the two sends the event again when it
//!   (or a standby) takes over: a duplicate, which the consumers absorb.
//! - A batch stops at its first failed delivery; nothing after it is marked, so a retry never
//!   puts a key's later event before its earlier one for the first time.
//! - Woken by `LISTEN outbox_events` (PostgreSQL; the trigger notifies at commit), by this
//!   process's own commits, and by polling as the fallback.
//!
//! Without `KAFKA_BROKERS` the same relay hands events to the in-process consumers.

mod closing;
mod kafka;
mod watch;

pub use kafka::{ensure_topic, group_waiting, kafka_consumer, KafkaSink};
pub use watch::Partition;

use crate::engine::consumers::{ConsumeError, CONSUMERS};
use crate::engine::Engine;
use crate::store::{OutboxEvent, Store};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The lease every relay of booking events competes for.
pub const LEASE_NAME: &str = "booking-events";
/// How long a lease lasts unless renewed (a dead relay's standby waits at most this long).
pub const LEASE: Duration = Duration::from_secs(10);
/// How often an idle relay looks for events it was not woken for (default of
/// `RELAY_POLL_SECONDS`).
pub const POLL: Duration = Duration::from_secs(1);

/// Where the relay delivers events.
#[async_trait::async_trait]
pub trait EventSink: Send + Sync {
    /// Delivers `events` in order; how many from the start were acknowledged, and why the
    /// next one was not (if it was not).
    async fn deliver(&self, events: &[OutboxEvent]) -> (usize, Option<String>);
    /// Called after a failed delivery, before the next try (e.g. make the topic again).
    async fn recover(&self) {}
}

/// What one relay round did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Round {
    /// Another relay holds the lease.
    Standby,
    /// Sent and marked this many events (0: nothing was waiting).
    Sent(usize),
    /// Sent this many, then a delivery failed.
    Failed(usize),
}

pub struct Relay {
    store: Store,
    sink: Arc<dyn EventSink>,
    /// This relay's identity in the lease: `pid <process id> <uuid>`, so that an operator (and
    /// the chaos run) can tell which process holds it.
    owner: String,
    lease_name: String,
    batch: i64,
    poll: Duration,
    /// Events this relay marked published.
    pub published: AtomicU64,
}

impl Relay {
    pub fn new(store: Store, sink: Arc<dyn EventSink>, batch: i64) -> Self {
        Self {
            store,
            sink,
            owner: format!("pid {} {}", std::process::id(), uuid::Uuid::new_v4()),
            lease_name: LEASE_NAME.into(),
            batch: batch.max(1),
            poll: POLL,
            published: AtomicU64::new(0),
        }
    }

    /// Competes for another lease than the relays of booking events (tests: a relay that does
    /// not coordinate with the others).
    pub fn with_lease_name(mut self, name: &str) -> Self {
        self.lease_name = name.into();
        self
    }

    /// Looks for events every `poll` when nothing woke it.
    pub fn with_poll(mut self, poll: Duration) -> Self {
        self.poll = poll;
        self
    }

    /// Takes or renews the lease, sends up to one batch, marks what the broker acknowledged.
    pub async fn round(&self) -> Result<Round, crate::store::StoreError> {
        if !self
            .store
            .take_relay_lease(&self.lease_name, &self.owner, LEASE)
            .await?
        {
            return Ok(Round::Standby);
        }
        let events = self.store.unpublished_events(self.batch).await?;
        if events.is_empty() {
            return Ok(Round::Sent(0));
        }
        let (sent, error) = self.sink.deliver(&events).await;
        let ids: Vec<i64> = events[..sent].iter().map(|e| e.id).collect();
        if !ids.is_empty() {
            let marked = self
                .store
                .mark_published(&self.lease_name, &self.owner, &ids)
                .await?;
            self.published.fetch_add(marked, Ordering::Relaxed);
            if marked < ids.len() as u64 {
                tracing::warn!(
                    sent,
                    marked,
                    "relay lost its lease during a batch; the new holder sends the rest again"
                );
            }
        }
        match error {
            None => Ok(Round::Sent(sent)),
            Some(error) => {
                tracing::warn!(%error, sent, waiting = events.len() - sent, "outbox events not delivered yet; they stay in the outbox");
                self.sink.recover().await;
                Ok(Round::Failed(sent))
            }
        }
    }

    /// Gives the lease up so a standby takes over at once.
    pub async fn stop(&self) {
        let _ = self
            .store
            .drop_relay_lease(&self.lease_name, &self.owner)
            .await;
    }

    /// Runs rounds for as long as the process runs: at once again after a full batch, after a
    /// growing pause after a failure, else when woken or after its poll interval.
    pub async fn run(self: Arc<Self>, wake: Arc<tokio::sync::Notify>) {
        let mut backoff = Duration::from_millis(200);
        loop {
            let pause = match self.round().await {
                Ok(Round::Sent(n)) if n as i64 >= self.batch => continue,
                Ok(Round::Sent(_)) => {
                    backoff = Duration::from_millis(200);
                    None
                }
                Ok(Round::Standby) => Some(LEASE / 4),
                Ok(Round::Failed(_)) => {
                    backoff = (backoff * 2).min(Duration::from_secs(5));
                    Some(backoff)
                }
                Err(e) => {
                    tracing::warn!(error = %e, "relay round failed");
                    Some(Duration::from_secs(1))
                }
            };
            match pause {
                Some(pause) => tokio::time::sleep(pause).await,
                None => {
                    tokio::select! {
                        _ = wake.notified() => {}
                        _ = tokio::time::sleep(self.poll) => {}
                    }
                }
            }
        }
    }
}

/// Delivers to the in-process consumers (the embedded mode, and any process without Kafka).
pub struct LocalSink {
    pub engine: Arc<Engine>,
}

#[async_trait::async_trait]
impl EventSink for LocalSink {
    async fn deliver(&self, events: &[OutboxEvent]) -> (usize, Option<String>) {
        for (i, event) in events.iter().enumerate() {
            for consumer in CONSUMERS {
                match self
                    .engine
                    .consume(consumer, event.payload.as_bytes())
                    .await
                {
                    Ok(_) => {}
                    Err(ConsumeError::Unreadable(e)) => {
                        tracing::error!(event = event.id, consumer, error = %e, "unreadable outbox event skipped")
                    }
                    Err(ConsumeError::Store(e)) => return (i, Some(e.to_string())),
                }
            }
        }
        (events.len(), None)
    }
}

/// A loop of this process's background work (run and stopped by `Workers`).
pub type Work = std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>;

/// The relay (and, with Kafka, the consumers) of this process, and the loops to run for them.
pub async fn start(
    engine: &Arc<Engine>,
    config: &crate::config::Config,
) -> anyhow::Result<(Arc<Relay>, Vec<Work>)> {
    let mut work: Vec<Work> = Vec::new();
    use anyhow::Context;
    let sink: Arc<dyn EventSink> = match &config.events.kafka_brokers {
        Some(brokers) => {
            let sink = KafkaSink::new(brokers, &config.events.kafka_topic)
                .context("KAFKA_BROKERS is not usable")?;
            // Start-up does not wait for the broker: a broker that is down now is retried by
            // the relay after its first failed delivery.
            let (brokers_, topic) = (brokers.clone(), config.events.kafka_topic.clone());
            work.push(Box::pin(async move {
                if let Err(e) = ensure_topic(&brokers_, &topic).await {
                    tracing::warn!(error = %e, %topic, "topic not checked; the relay tries again");
                }
            }));
            for name in CONSUMERS {
                let consumer =
                    kafka_consumer(engine.clone(), brokers, &config.events.kafka_topic, name)
                        .context("Kafka consumer not started")?;
                work.push(Box::pin(consumer));
            }
            tracing::info!(brokers = %brokers, topic = %config.events.kafka_topic, "booking events go through Kafka");
            Arc::new(sink)
        }
        None => Arc::new(LocalSink {
            engine: engine.clone(),
        }),
    };
    let relay = Arc::new(
        Relay::new(engine.store().clone(), sink, config.events.relay_batch)
            .with_poll(config.events.relay_poll),
    );
    let wake = engine.relay_wake.clone();
    if let Some(url) = config.store.session_url() {
        work.push(Box::pin(listener(url.to_string(), wake.clone())));
    }
    work.push(Box::pin(relay.clone().run(wake)));
    Ok((relay, work))
}

/// Wakes `wake` on every `NOTIFY outbox_events` (a commit that wrote to the outbox in any
/// process); reconnects after a lost connection.
pub async fn listener(database_url: String, wake: Arc<tokio::sync::Notify>) {
    {
        loop {
            match sqlx::postgres::PgListener::connect(&database_url).await {
                Ok(mut listener) => {
                    if let Err(e) = listener.listen("outbox_events").await {
                        tracing::warn!(error = %e, "LISTEN outbox_events failed");
                    } else {
                        while listener.recv().await.is_ok() {
                            wake.notify_one();
                        }
                    }
                }
                Err(e) => tracing::warn!(error = %e, "outbox listener not connected"),
            }
            // Events committed meanwhile are found by polling.
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    }
}
