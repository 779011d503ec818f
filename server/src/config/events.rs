//! The booking events: the outbox relay and the Kafka topic.

use super::Env;
use anyhow::bail;
use std::time::Duration;

#[derive(Clone, Debug)]
pub struct EventsConfig {
    /// Kafka bootstrap servers (`host:port,…`) for the outbox relay and the consumers; unset:
    /// booking events go from the outbox to the in-process consumers.
    pub kafka_brokers: Option<String>,
    /// The topic booking events go to.
    pub kafka_topic: String,
    /// Most outbox events the relay sends in one round.
    pub relay_batch: i64,
    /// How often an idle relay looks for events nothing woke it for.
    pub relay_poll: Duration,
}

impl EventsConfig {
    pub(super) fn from_env(env: &Env) -> anyhow::Result<Self> {
        Ok(Self {
            kafka_brokers: env
                .get("KAFKA_BROKERS")
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty()),
            kafka_topic: match env.non_empty("KAFKA_TOPIC") {
                None => "booking-events".into(),
                Some(t)
                    if t.chars()
                        .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c)) =>
                {
                    t
                }
                Some(t) => {
                    bail!("KAFKA_TOPIC may hold only letters, digits, '.', '_' and '-', not {t:?}")
                }
            },
            relay_batch: match env.whole("RELAY_BATCH", 100)? {
                0 => bail!("RELAY_BATCH must be at least 1"),
                n => n.min(10_000) as i64,
            },
            relay_poll: env.seconds("RELAY_POLL_SECONDS", 1)?,
        })
    }
}
