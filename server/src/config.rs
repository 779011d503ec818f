//! Configuration from environment variables (documented in `.env.example`).

use crate::redis_link::RedisTarget;
use anyhow::{bail, Context};
use std::path::PathBuf;
use std::time::Duration;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Database {
    /// `sqlite://…` or the embedded default file.
    Sqlite(String),
    Postgres(String),
}

/// A secret that never prints.
#[derive(Clone)]
pub struct Secret(Vec<u8>);

impl Secret {
    pub fn new(bytes: Vec<u8>) -> Self {
        Self(bytes)
    }

    pub fn expose(&self) -> &[u8] {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(***)")
    }
}

#[derive(Clone, Debug)]
pub struct Config {
    pub database: Database,
    pub data_dir: PathBuf,
    pub hold_ttl: Duration,
    pub sweep_interval: Duration,
    /// Signs the guest session cookie. Unset: a random key kept in the data folder (fine for one
    /// embedded instance; several instances must share `SESSION_SECRET`).
    pub session_secret: Option<Secret>,
    /// Create demo halls and showtimes when the database has no hall.
    pub demo_data: bool,
    /// Largest number of database connections this process opens (PostgreSQL).
    pub db_max_connections: u32,
    /// Redis (one server, or a cluster's nodes) for the seat gate, the shared rate limit and the
    /// live map's fan-out across server processes; unset: all of it in-process.
    pub redis: Option<RedisTarget>,
    /// How long a gate or rate-limit call may wait for Redis before the hold goes on without it.
    pub redis_timeout: Duration,
    /// Hold attempts a customer may make per minute (`0`: no limit).
    pub hold_rate_per_minute: u32,
    /// The payment gateway's API (the sandbox by default).
    pub payment_gateway_url: String,
    /// Shared with the gateway; signs its callbacks.
    pub payment_webhook_secret: Secret,
    /// Payments still PENDING this long after checkout are looked up at the gateway.
    pub reconcile_after: Duration,
    /// How often reconciliation runs.
    pub reconcile_interval: Duration,
    /// How customers' browsers and the gateway reach this server (`http://<listen address>`
    /// when unset).
    pub public_url: Option<String>,
    /// Kafka bootstrap servers (`host:port,…`) for the outbox relay and the consumers; unset:
    /// booking events go from the outbox to the in-process consumers.
    pub kafka_brokers: Option<String>,
    /// The topic booking events go to.
    pub kafka_topic: String,
    /// Most outbox events the relay sends in one round.
    pub relay_batch: i64,
    /// How often an idle relay looks for events nothing woke it for.
    pub relay_poll: Duration,
    /// The operator pages' password (user `operator`). Unset: a random one in the data folder
    /// in the embedded mode; operator pages off with PostgreSQL.
    pub operator_password: Option<Secret>,
}

impl Config {
    pub fn from_env() -> anyhow::Result<Self> {
        Self::from_lookup(|k| std::env::var(k).ok())
    }

    /// Reads the configuration through `get` (tests pass a map instead of the environment).
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> anyhow::Result<Self> {
        let data_dir = PathBuf::from(get("DATA_DIR").unwrap_or_else(|| "data".into()));
        let database = match get("DATABASE_URL").filter(|s| !s.is_empty()) {
            None => Database::Sqlite(format!("sqlite://{}", data_dir.join("seats.db").display())),
            Some(url) if url.starts_with("sqlite:") => Database::Sqlite(url),
            Some(url) if url.starts_with("postgres://") || url.starts_with("postgresql://") => {
                Database::Postgres(url)
            }
            Some(_) => bail!("DATABASE_URL must start with sqlite:, postgres:// or postgresql://"),
        };
        let seconds = |key: &str, default: u64| -> anyhow::Result<Duration> {
            match get(key) {
                None => Ok(Duration::from_secs(default)),
                Some(v) => {
                    let s: f64 = v
                        .trim()
                        .parse()
                        .with_context(|| format!("{key} must be a number of seconds"))?;
                    if !(s > 0.0 && s.is_finite()) {
                        bail!("{key} must be greater than 0");
                    }
                    Ok(Duration::from_secs_f64(s))
                }
            }
        };
        let flag = |key: &str, default: bool| match get(key).as_deref().map(str::trim) {
            None => Ok(default),
            Some("1" | "true" | "yes") => Ok(true),
            Some("0" | "false" | "no") => Ok(false),
            Some(other) => bail!("{key} must be true or false, not {other:?}"),
        };
        let whole = |key: &str, default: u64| -> anyhow::Result<u64> {
            get(key).map_or(Ok(default), |v| {
                v.trim()
                    .parse()
                    .with_context(|| format!("{key} must be a whole number, not {v:?}"))
            })
        };
        let production = matches!(database, Database::Postgres(_));
        Ok(Self {
            database,
            data_dir,
            hold_ttl: seconds("HOLD_TTL_SECONDS", 600)?,
            sweep_interval: seconds("SWEEP_INTERVAL_SECONDS", 15)?,
            session_secret: match get("SESSION_SECRET") {
                None => None,
                Some(s) if s.len() >= 32 => Some(Secret::new(s.into_bytes())),
                Some(_) => bail!("SESSION_SECRET must be at least 32 characters"),
            },
            demo_data: flag("DEMO_DATA", true)?,
            db_max_connections: whole("DB_MAX_CONNECTIONS", 32)?
                .try_into()
                .context("DB_MAX_CONNECTIONS is too large")?,
            redis: match get("REDIS_URL").filter(|s| !s.trim().is_empty()) {
                None => None,
                Some(url) => Some(
                    RedisTarget::parse(&url, flag("REDIS_CLUSTER", false)?)
                        .map_err(anyhow::Error::msg)?,
                ),
            },
            redis_timeout: Duration::from_millis(whole("REDIS_TIMEOUT_MS", 250)?.max(1)),
            hold_rate_per_minute: whole("HOLD_RATE_PER_MINUTE", 5)?
                .try_into()
                .context("HOLD_RATE_PER_MINUTE is too large")?,
            payment_gateway_url: match get("PAYMENT_GATEWAY_URL").filter(|s| !s.is_empty()) {
                None => "http://127.0.0.1:3100".into(),
                Some(url) if url.starts_with("http://") || url.starts_with("https://") => url,
                Some(_) => bail!("PAYMENT_GATEWAY_URL must start with http:// or https://"),
            },
            payment_webhook_secret: match get("PAYMENT_WEBHOOK_SECRET").filter(|s| !s.is_empty()) {
                Some(secret) if secret.len() >= 16 => Secret::new(secret.into_bytes()),
                Some(_) => bail!("PAYMENT_WEBHOOK_SECRET must be at least 16 characters"),
                // PostgreSQL means production: a known development secret would let anyone
                // forge payment callbacks.
                None if production => bail!(
                    "PAYMENT_WEBHOOK_SECRET is required with PostgreSQL (the development secret is only for the embedded mode)"
                ),
                None => Secret::new(
                    crate::payments::signature::DEVELOPMENT_SECRET
                        .as_bytes()
                        .to_vec(),
                ),
            },
            reconcile_after: seconds("RECONCILE_AFTER_SECONDS", 900)?,
            reconcile_interval: seconds("RECONCILE_INTERVAL_SECONDS", 60)?,
            public_url: match get("PUBLIC_URL").filter(|s| !s.is_empty()) {
                None => None,
                Some(url) if url.starts_with("http://") || url.starts_with("https://") => {
                    Some(url.trim_end_matches('/').to_string())
                }
                Some(_) => bail!("PUBLIC_URL must start with http:// or https://"),
            },
            kafka_brokers: get("KAFKA_BROKERS")
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty()),
            kafka_topic: match get("KAFKA_TOPIC").filter(|s| !s.trim().is_empty()) {
                None => "booking-events".into(),
                Some(t) if t.chars().all(|c| c.is_ascii_alphanumeric() || "._-".contains(c)) => t,
                Some(t) => bail!("KAFKA_TOPIC may hold only letters, digits, '.', '_' and '-', not {t:?}"),
            },
            operator_password: match get("OPERATOR_PASSWORD").filter(|s| !s.is_empty()) {
                None => None,
                Some(p) if p.len() >= 8 => Some(Secret::new(p.into_bytes())),
                Some(_) => bail!("OPERATOR_PASSWORD must be at least 8 characters"),
            },
            relay_poll: seconds("RELAY_POLL_SECONDS", 1)?,
            relay_batch: match whole("RELAY_BATCH", 100)? {
                0 => bail!("RELAY_BATCH must be at least 1"),
                n => n.min(10_000) as i64,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn config(vars: &[(&str, &str)]) -> anyhow::Result<Config> {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Config::from_lookup(|k| map.get(k).cloned())
    }

    #[test]
    fn no_configuration_means_the_embedded_sqlite_file() {
        let c = config(&[]).unwrap();
        assert_eq!(
            c.database,
            Database::Sqlite("sqlite://data/seats.db".into())
        );
        assert_eq!(c.hold_ttl, Duration::from_secs(600));
        assert_eq!(c.sweep_interval, Duration::from_secs(15));
    }

    #[test]
    fn a_postgres_url_selects_postgres() {
        let c = config(&[
            ("DATABASE_URL", "postgres://u@h/db"),
            ("PAYMENT_WEBHOOK_SECRET", "a long enough shared secret"),
        ])
        .unwrap();
        assert_eq!(c.database, Database::Postgres("postgres://u@h/db".into()));
    }

    #[test]
    fn an_unknown_database_scheme_is_refused() {
        assert!(config(&[("DATABASE_URL", "mysql://x")]).is_err());
    }

    #[test]
    fn hold_ttl_accepts_fractions_and_refuses_zero() {
        assert_eq!(
            config(&[("HOLD_TTL_SECONDS", "2.5")]).unwrap().hold_ttl,
            Duration::from_millis(2500)
        );
        assert!(config(&[("HOLD_TTL_SECONDS", "0")]).is_err());
        assert!(config(&[("HOLD_TTL_SECONDS", "ten")]).is_err());
    }

    #[test]
    fn a_short_session_secret_is_refused_and_a_good_one_never_printed() {
        assert!(config(&[("SESSION_SECRET", "short")]).is_err());
        let c = config(&[("SESSION_SECRET", &"k".repeat(40))]).unwrap();
        assert_eq!(format!("{:?}", c.session_secret.unwrap()), "Secret(***)");
    }

    #[test]
    fn the_webhook_secret_has_a_development_default_only_in_the_embedded_mode() {
        assert!(config(&[]).is_ok());
        let pg = ("DATABASE_URL", "postgres://u@h/db");
        assert!(config(&[pg]).is_err());
        assert!(config(&[pg, ("PAYMENT_WEBHOOK_SECRET", "short")]).is_err());
        let c = config(&[
            pg,
            ("PAYMENT_WEBHOOK_SECRET", "a long enough shared secret"),
        ])
        .unwrap();
        assert_eq!(
            c.payment_webhook_secret.expose(),
            b"a long enough shared secret"
        );
    }

    #[test]
    fn redis_and_the_hold_rate_limit() {
        let c = config(&[]).unwrap();
        assert_eq!(c.redis, None);
        assert_eq!(c.hold_rate_per_minute, 5);
        let c = config(&[
            ("REDIS_URL", "redis://a:7000,redis://b:7001"),
            ("HOLD_RATE_PER_MINUTE", "0"),
        ])
        .unwrap();
        assert!(c.redis.unwrap().is_cluster());
        assert_eq!(c.hold_rate_per_minute, 0);
        assert!(config(&[("HOLD_RATE_PER_MINUTE", "-1")]).is_err());
        assert!(config(&[("REDIS_URL", "localhost:6379")]).is_ok());
        assert!(config(&[("REDIS_URL", "http://x")]).is_err());
    }
}
