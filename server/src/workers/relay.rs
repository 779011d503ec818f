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

use crate::engine::consumers::{ConsumeError, CONSUMERS};
use crate::engine::Engine;
use crate::store::{OutboxEvent, Store};
use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::consumer::{CommitMode, Consumer, StreamConsumer};
use rdkafka::error::RDKafkaErrorCode;
use rdkafka::message::{Header, Message, OwnedHeaders};
use rdkafka::producer::{FutureProducer, FutureRecord};
use rdkafka::ClientConfig;
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
/// How long the broker has to acknowledge a message before its delivery counts as failed.
const DELIVERY_TIMEOUT: Duration = Duration::from_secs(5);
/// Partitions of a topic the relay creates.
const PARTITIONS: i32 = 3;

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
    store: Arc<dyn Store>,
    sink: Arc<dyn EventSink>,
    /// This relay's identity in the lease.
    owner: String,
    lease_name: String,
    batch: i64,
    poll: Duration,
    /// Events this relay marked published.
    pub published: AtomicU64,
}

impl Relay {
    pub fn new(store: Arc<dyn Store>, sink: Arc<dyn EventSink>, batch: i64) -> Self {
        Self {
            store,
            sink,
            owner: uuid::Uuid::new_v4().to_string(),
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

/// Publishes to a Kafka topic, keyed by booking id, with the event type in a header.
pub struct KafkaSink {
    producer: FutureProducer,
    brokers: String,
    topic: String,
}

impl KafkaSink {
    pub fn new(brokers: &str, topic: &str) -> Result<Self, rdkafka::error::KafkaError> {
        let producer = ClientConfig::new()
            .set("bootstrap.servers", brokers)
            .set("acks", "all")
            // One request in flight per connection: a retried batch cannot overtake the next,
            // so each key's events stay in order without relying on the idempotent producer.
            .set("max.in.flight.requests.per.connection", "1")
            .set("enable.idempotence", "false")
            .set("linger.ms", "5")
            .set(
                "message.timeout.ms",
                DELIVERY_TIMEOUT.as_millis().to_string(),
            )
            .create()?;
        Ok(Self {
            producer,
            brokers: brokers.into(),
            topic: topic.into(),
        })
    }

    /// Creates the topic unless it exists.
    pub async fn ensure_topic(&self) -> Result<(), String> {
        ensure_topic(&self.brokers, &self.topic).await
    }
}

/// Creates `topic` (3 partitions) unless it exists.
pub async fn ensure_topic(brokers: &str, topic: &str) -> Result<(), String> {
    let admin: AdminClient<DefaultClientContext> = ClientConfig::new()
        .set("bootstrap.servers", brokers)
        .create()
        .map_err(|e| e.to_string())?;
    let options = AdminOptions::new()
        .operation_timeout(Some(Duration::from_secs(5)))
        .request_timeout(Some(Duration::from_secs(5)));
    let results = admin
        .create_topics(
            &[NewTopic::new(topic, PARTITIONS, TopicReplication::Fixed(1))],
            &options,
        )
        .await
        .map_err(|e| e.to_string())?;
    for result in results {
        match result {
            Ok(_) | Err((_, RDKafkaErrorCode::TopicAlreadyExists)) => {}
            Err((name, code)) => return Err(format!("topic {name} not created: {code}")),
        }
    }
    Ok(())
}

#[async_trait::async_trait]
impl EventSink for KafkaSink {
    async fn deliver(&self, events: &[OutboxEvent]) -> (usize, Option<String>) {
        let mut deliveries = Vec::with_capacity(events.len());
        for event in events {
            let key = event.key.0.to_string();
            let record = FutureRecord::to(&self.topic)
                .key(&key)
                .payload(&event.payload)
                .headers(OwnedHeaders::new().insert(Header {
                    key: "type",
                    value: Some(event.event_type.as_str()),
                }));
            match self.producer.send_result(record) {
                Ok(delivery) => deliveries.push(delivery),
                Err((e, _)) => {
                    // Queue full or similar: deliver what was queued, the rest next round.
                    let (sent, error) = acknowledged(deliveries).await;
                    return (sent, error.or(Some(e.to_string())));
                }
            }
        }
        acknowledged(deliveries).await
    }

    async fn recover(&self) {
        // A broker that came back empty (in-memory storage) has lost the topic.
        if let Err(e) = self.ensure_topic().await {
            tracing::debug!(error = %e, "topic not checked");
        }
    }
}

/// Waits for every delivery; how many from the start succeeded, and the first failure.
async fn acknowledged(
    deliveries: Vec<rdkafka::producer::DeliveryFuture>,
) -> (usize, Option<String>) {
    let mut sent = 0;
    let mut error = None;
    for delivery in deliveries {
        let outcome = match delivery.await {
            Ok(Ok(_)) => None,
            Ok(Err((e, _))) => Some(e.to_string()),
            Err(_) => Some("the producer went away".to_string()),
        };
        match (outcome, &error) {
            (None, None) => sent += 1,
            (Some(e), None) => error = Some(e),
            _ => {}
        }
    }
    (sent, error)
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
    let sink: Arc<dyn EventSink> = match &config.kafka_brokers {
        Some(brokers) => {
            let sink = KafkaSink::new(brokers, &config.kafka_topic)
                .context("KAFKA_BROKERS is not usable")?;
            // Start-up does not wait for the broker: a broker that is down now is retried by
            // the relay after its first failed delivery.
            let (brokers_, topic) = (brokers.clone(), config.kafka_topic.clone());
            work.push(Box::pin(async move {
                if let Err(e) = ensure_topic(&brokers_, &topic).await {
                    tracing::warn!(error = %e, %topic, "topic not checked; the relay tries again");
                }
            }));
            for name in CONSUMERS {
                let consumer = kafka_consumer(engine.clone(), brokers, &config.kafka_topic, name)
                    .context("Kafka consumer not started")?;
                work.push(Box::pin(consumer));
            }
            tracing::info!(brokers = %brokers, topic = %config.kafka_topic, "booking events go through Kafka");
            Arc::new(sink)
        }
        None => Arc::new(LocalSink {
            engine: engine.clone(),
        }),
    };
    let relay = Arc::new(
        Relay::new(engine.store().clone(), sink, config.relay_batch).with_poll(config.relay_poll),
    );
    let wake = engine.relay_wake.clone();
    if let crate::config::Database::Postgres(url) = &config.database {
        work.push(Box::pin(listener(url.clone(), wake.clone())));
    }
    work.push(Box::pin(relay.clone().run(wake)));
    Ok((relay, work))
}

/// Runs one consumer as its own Kafka consumer group (`seats-<name>`): each message is applied,
/// then its offset committed (at least once; the consumer is idempotent by event id). A store
/// failure retries the same message; an unreadable one is logged and skipped.
pub fn kafka_consumer(
    engine: Arc<Engine>,
    brokers: &str,
    topic: &str,
    name: &'static str,
) -> Result<impl std::future::Future<Output = ()> + Send, rdkafka::error::KafkaError> {
    let consumer: StreamConsumer = ClientConfig::new()
        .set("bootstrap.servers", brokers)
        .set("group.id", format!("seats-{name}"))
        .set("enable.auto.commit", "false")
        .set("auto.offset.reset", "earliest")
        // Notice a topic made again (a broker restarted empty) within seconds.
        .set("topic.metadata.refresh.interval.ms", "2000")
        .create()?;
    consumer.subscribe(&[topic])?;
    Ok(async move {
        loop {
            let message = match consumer.recv().await {
                Ok(message) => message,
                Err(e) => {
                    tracing::warn!(consumer = name, error = %e, "receiving booking events failed");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    continue;
                }
            };
            let payload = message.payload().unwrap_or_default();
            let mut pause = Duration::from_millis(100);
            loop {
                match engine.consume(name, payload).await {
                    Ok(_) => break,
                    Err(ConsumeError::Unreadable(e)) => {
                        tracing::error!(consumer = name, offset = message.offset(), error = %e, "unreadable message skipped");
                        break;
                    }
                    Err(ConsumeError::Store(e)) => {
                        tracing::warn!(consumer = name, error = %e, "event not applied; trying again");
                        tokio::time::sleep(pause).await;
                        pause = (pause * 2).min(Duration::from_secs(5));
                    }
                }
            }
            if let Err(e) = consumer.commit_message(&message, CommitMode::Async) {
                tracing::warn!(consumer = name, error = %e, "offset not committed; the message may come again");
            }
        }
    })
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
