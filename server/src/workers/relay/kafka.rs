//! The relay's Kafka side: the sink that publishes booking events to the topic (keyed by booking
//! id, the event type in a header, marked sent only once the broker acknowledged them), the
//! topic's creation, and the consumers, each its own consumer group.

use super::EventSink;
use crate::engine::consumers::ConsumeError;
use crate::engine::Engine;
use crate::store::OutboxEvent;
use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::consumer::{CommitMode, Consumer, StreamConsumer};
use rdkafka::error::RDKafkaErrorCode;
use rdkafka::message::{Header, Message, OwnedHeaders};
use rdkafka::producer::{FutureProducer, FutureRecord};
use rdkafka::ClientConfig;
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
