//! Redis: the seat gate, the shared rate limits and the live map's fan-out across processes.

use super::Env;
use crate::redis_link::RedisTarget;
use anyhow::bail;
use std::time::Duration;

#[derive(Clone, Debug)]
pub struct RedisConfig {
    /// One server, or a cluster's nodes (`REDIS_URL`, `REDIS_CLUSTER`); unset: all of it
    /// in-process.
    pub target: Option<RedisTarget>,
    /// How long a gate or rate-limit call may wait for Redis before the hold goes on without it.
    pub timeout: Duration,
    /// Put in front of every Redis key and channel name.
    pub key_prefix: String,
}

impl RedisConfig {
    pub(super) fn from_env(env: &Env) -> anyhow::Result<Self> {
        Ok(Self {
            target: match env.non_empty("REDIS_URL") {
                None => None,
                Some(url) => Some(
                    RedisTarget::parse(&url, env.flag("REDIS_CLUSTER", false)?)
                        .map_err(anyhow::Error::msg)?,
                ),
            },
            timeout: Duration::from_millis(env.whole("REDIS_TIMEOUT_MS", 250)?.max(1)),
            key_prefix: match env.get("REDIS_KEY_PREFIX") {
                None => String::new(),
                Some(p)
                    if p.chars()
                        .all(|c| c.is_ascii_alphanumeric() || ":_.-".contains(c)) =>
                {
                    p
                }
                Some(p) => bail!(
                    "REDIS_KEY_PREFIX may hold only letters, digits, ':', '_', '.' and '-', not {p:?}"
                ),
            },
        })
    }
}
