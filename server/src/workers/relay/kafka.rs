//! The relay's Kafka side: the sink that publishes booking events to the topic (keyed by booking
//! id, the event type in a header, marked sent only once the broker acknowledged them), the
//! topic's creation, and the consumers, each its own consumer group.

use super::closing::Detached;
use super::{watch, EventSink};
use crate::engine::consumers::ConsumeError;
use crate::engine::{Engine, HoldMetrics};
use crate::store::OutboxEvent;
use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::consumer::{BaseConsumer, CommitMode, Consumer, StreamConsumer};
use rdkafka::error::RDKafkaErrorCode;
use rdkafka::message::{Header, Message, OwnedHeaders};
use rdkafka::producer::{FutureProducer, FutureRecord};
use rdkafka::{ClientConfig, Offset, TopicPartitionList};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

/// How long the broker has to acknowledge a message before its delivery counts as failed.
const DELIVERY_TIMEOUT: Duration = Duration::from_secs(5);
/// Partitions of a topic the relay creates.
const PARTITIONS: i32 = 3;

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

/// How often each consumer looks at its group's partitions (see `watch.rs`).
const WATCH_EVERY: Duration = Duration::from_secs(10);
/// How long a partition may have events waiting without moving before this member rejoins:
/// longer than the group's session timeout (librdkafka's default, 45 s), so that a member that
/// stopped is out of the group when the partitions are dealt out again.
const PATIENCE: Duration = Duration::from_secs(60);

fn consumer_config(brokers: &str, name: &str) -> ClientConfig {
    let mut config = ClientConfig::new();
    config
        .set("bootstrap.servers", brokers)
        .set("group.id", format!("seats-{name}"))
        .set("enable.auto.commit", "false")
        .set("auto.offset.reset", "earliest")
        // Notice a topic made again (a broker restarted empty) within seconds.
        .set("topic.metadata.refresh.interval.ms", "2000");
    config
}

/// Where the group stands on each partition of `topic` and whether events wait there, read by a
/// client of the group that does not join it: it reads the group's committed offsets, then
/// fetches from each partition at that offset. A message there is an event waiting. (The
/// partitions' ends as the broker states them are not used: tansu 0.6 sometimes states an end
/// a few events short of what a fetch returns.) A partition that gives no answer within 3 s is
/// left out.
fn group_partitions(
    reader: &BaseConsumer,
    topic: &str,
) -> Result<Vec<watch::Partition>, rdkafka::error::KafkaError> {
    let timeout = Duration::from_secs(5);
    let metadata = reader.fetch_metadata(Some(topic), timeout)?;
    let mut list = TopicPartitionList::new();
    for p in metadata.topics().iter().flat_map(|t| t.partitions()) {
        list.add_partition(topic, p.id());
    }
    let committed = reader.committed_offsets(list, timeout)?;
    let mut at = TopicPartitionList::new();
    let mut unanswered = HashMap::new();
    for element in committed.elements() {
        if element.error().is_err() {
            // This partition's offset was not read: no view of it this time.
            continue;
        }
        let offset = match element.offset() {
            Offset::Offset(n) => Offset::Offset(n),
            // Nothing committed yet: the group starts at the beginning.
            _ => Offset::Beginning,
        };
        at.add_partition_offset(topic, element.partition(), offset)?;
        unanswered.insert(
            element.partition(),
            element.offset().to_raw().unwrap_or(0).max(0),
        );
    }
    reader.assign(&at)?;
    let mut partitions = Vec::new();
    let deadline = std::time::Instant::now() + Duration::from_secs(3);
    while !unanswered.is_empty() && std::time::Instant::now() < deadline {
        let (id, committed, end) = match reader.poll(Duration::from_millis(100)) {
            Some(Ok(message)) => match unanswered.remove(&message.partition()) {
                // The first message the group has not read yet.
                Some(_) => (message.partition(), message.offset(), message.offset() + 1),
                None => continue,
            },
            Some(Err(rdkafka::error::KafkaError::PartitionEOF(id))) => match unanswered.remove(&id)
            {
                Some(committed) => (id, committed, committed),
                None => continue,
            },
            _ => continue,
        };
        partitions.push(watch::Partition { id, committed, end });
    }
    reader.unassign()?;
    Ok(partitions)
}

/// A client of a group that reads where it stands without joining it.
fn reader(mut config: ClientConfig) -> Result<BaseConsumer, rdkafka::error::KafkaError> {
    config
        .set("enable.partition.eof", "true")
        // It needs one message per partition: no prefetching of a backlog.
        .set("queued.min.messages", "1")
        .set("fetch.message.max.bytes", "65536")
        .create()
}

/// Where consumer group `group` stands on each partition of `topic`, as the consumers' watch
/// sees it (blocking; for tools and tests).
pub fn group_waiting(
    brokers: &str,
    topic: &str,
    group: &str,
) -> Result<Vec<watch::Partition>, rdkafka::error::KafkaError> {
    let mut config = ClientConfig::new();
    config
        .set("bootstrap.servers", brokers)
        .set("group.id", group)
        .set("enable.auto.commit", "false");
    group_partitions(&reader(config)?, topic)
}

/// [`group_partitions`], off the async threads; `None` when they could not be read.
async fn read_group(
    reader: &Arc<Detached<BaseConsumer>>,
    topic: &str,
    name: &str,
) -> Option<Vec<watch::Partition>> {
    let (reader, topic) = (reader.clone(), topic.to_string());
    match tokio::task::spawn_blocking(move || group_partitions(&reader, &topic)).await {
        Ok(Ok(partitions)) => Some(partitions),
        Ok(Err(e)) => {
            tracing::debug!(consumer = name, error = %e, "the group's offsets not read");
            None
        }
        Err(_) => None,
    }
}

/// Replaces `consumer` with a new member of the same group: closing the old client leaves the
/// group, and the new one joins it, so the broker deals the partitions out again.
async fn rejoin(
    config: &ClientConfig,
    consumer: &mut Detached<StreamConsumer>,
    topic: &str,
    name: &str,
) {
    let fresh = match config.create() {
        Ok(fresh) => Detached::new(fresh),
        Err(e) => {
            tracing::warn!(consumer = name, error = %e, "consumer not made again");
            return;
        }
    };
    // The old member leaves the group before the new one joins, unless the broker keeps it
    // waiting longer than a session lasts.
    let old = std::mem::replace(consumer, fresh);
    let _ = tokio::time::timeout(Duration::from_secs(45), old.close()).await;
    if let Err(e) = consumer.subscribe(&[topic]) {
        tracing::warn!(consumer = name, error = %e, "subscribing again failed");
    }
}

/// Runs one consumer as its own Kafka consumer group (`seats-<name>`): each message is applied,
/// then its offset committed (at least once; the consumer is idempotent by event id). A store
/// failure retries the same message; an unreadable one is logged and skipped. Every 10 s it
/// looks at the whole group: when a partition has had events waiting for 60 s without its
/// committed offset moving (a member the broker forgot to replace), this member leaves the group
/// and joins it again, which makes the broker deal the partitions out afresh (`watch.rs`).
pub fn kafka_consumer(
    engine: Arc<Engine>,
    brokers: &str,
    topic: &str,
    name: &'static str,
) -> Result<impl std::future::Future<Output = ()> + Send, rdkafka::error::KafkaError> {
    let config = consumer_config(brokers, name);
    let reader = Arc::new(Detached::new(reader(config.clone())?));
    let mut consumer: Detached<StreamConsumer> = Detached::new(config.create()?);
    consumer.subscribe(&[topic])?;
    let topic = topic.to_string();
    // The members of a group do not all look at the same moment, so they seldom all rejoin.
    let patience = PATIENCE + Duration::from_millis(rand::random::<u64>() % 10_000);
    Ok(async move {
        let mut stall = watch::Stall::new(patience, WATCH_EVERY);
        let mut look = tokio::time::interval(WATCH_EVERY);
        look.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            let received = tokio::select! {
                received = consumer.recv() => Some(received),
                _ = look.tick() => None,
            };
            let Some(received) = received else {
                let Some(mut partitions) = read_group(&reader, &topic, name).await else {
                    stall.unread();
                    continue;
                };
                // The partitions this member reads itself are not for its watch: if one of them
                // waits, this member is busy with it.
                if let Ok(mine) = consumer.assignment() {
                    partitions.retain(|p| {
                        !mine
                            .elements()
                            .iter()
                            .any(|e| e.topic() == topic && e.partition() == p.id)
                    });
                }
                if let Some(stuck) = stall.observe(&partitions, std::time::Instant::now()) {
                    tracing::warn!(consumer = name, partition = stuck, ?partitions,
                        "a partition has had events waiting without moving: leaving the group and joining it again");
                    rejoin(&config, &mut consumer, &topic, name).await;
                    HoldMetrics::count(&engine.metrics().consumer_rejoins);
                    stall.rejoined();
                }
                continue;
            };
            let message = match received {
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
