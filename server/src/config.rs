//! Configuration from environment variables (documented in `.env.example`).

use crate::net::IpNet;
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
    /// The password of the first staff account, `operator`, made at start while there is no
    /// staff account. Unset: a random one kept in the data folder in the embedded mode; none with
    /// PostgreSQL (add accounts with `server staff add`).
    pub operator_password: Option<Secret>,
    /// Staff sessions (idle timeout, lifetime) and sign-in lockouts.
    pub staff: crate::engine::StaffPolicy,
    /// Hold attempts one client address may make per minute (`0`: no limit).
    pub hold_rate_per_address: u32,
    /// Live holds one customer may have in one showtime (`0`: no cap).
    pub holds_per_customer: u32,
    /// Seats that live holds from one client address may hold in one showtime (`0`: no cap).
    pub held_seats_per_address: u32,
    /// After a hold of theirs ends (cancelled or lapsed), how long a customer or address may not
    /// hold its seats again (0: no cool-down).
    pub hold_cooldown: Duration,
    /// Checkout attempts per customer, and per client address, a minute (0: no limit).
    pub checkout_rate_per_minute: u32,
    pub checkout_rate_per_address: u32,
    /// Proxies whose `X-Forwarded-For` names the client (none: the peer is the client).
    pub trusted_proxies: Vec<IpNet>,
    /// Connections served at once; more are answered 503 and closed.
    pub max_connections: usize,
    /// Connections served at once from one client address.
    pub max_connections_per_address: usize,
    /// Live seat-map viewers (WebSockets) at once, in all and per client address.
    pub max_live_viewers: usize,
    pub max_live_viewers_per_address: usize,
    /// How long a client may take to send a request's headers, and how long an idle
    /// keep-alive connection is kept.
    pub header_timeout: Duration,
    /// How long a client may take between two pieces of a request's body.
    pub body_timeout: Duration,
    /// The longest a request may take in all, body and answer (408 past it).
    pub request_timeout: Duration,
    /// Origins besides this server's own that may send state-changing requests and open live
    /// feeds (`https://kiosk.example.com,…`).
    pub allowed_origins: Vec<String>,
    /// Who may read `/metrics` (default: loopback and private networks).
    pub metrics_allow: Vec<IpNet>,
    /// Put in front of every Redis key and channel name.
    pub redis_key_prefix: String,
    /// The venue's offset from UTC (`+09:00`): the day a sale counts on, "today"'s showtimes,
    /// and every time the pages show or the console reads.
    pub venue_utc_offset: String,
    /// The lone-seat rule (`LONE_SEAT_RULE`): `on` (default) refuses a selection that leaves a
    /// single free seat alone when another selection would not; `exempt-edges` does not count a
    /// seat alone at a row end or an aisle; `off`.
    pub seat_rules: app::domain::seat_rules::Rules,
    /// Ticket signing keys, `(id, secret)`, the first signs (none: a random key kept in the
    /// data folder, embedded mode only).
    pub ticket_keys: Vec<(String, Secret)>,
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
        let count = |key: &str, default: u64| -> anyhow::Result<u32> {
            whole(key, default)?
                .try_into()
                .with_context(|| format!("{key} is too large"))
        };
        let size = |key: &str, default: usize| -> anyhow::Result<usize> {
            match whole(key, default as u64)? {
                0 => bail!("{key} must be at least 1"),
                n => Ok(n as usize),
            }
        };
        let ranges = |key: &str| -> anyhow::Result<Option<Vec<IpNet>>> {
            get(key)
                .map(|v| IpNet::parse_list(&v).map_err(|e| anyhow::anyhow!("{key}: {e}")))
                .transpose()
        };
        let gateway_configured = get("PAYMENT_GATEWAY_URL").is_some_and(|s| !s.is_empty());
        Ok(Self {
            database,
            data_dir,
            hold_ttl: seconds("HOLD_TTL_SECONDS", 600)?,
            sweep_interval: seconds("SWEEP_INTERVAL_SECONDS", 15)?,
            session_secret: match get("SESSION_SECRET").filter(|s| !s.is_empty()) {
                // Several instances must share the key, and a generated one would differ.
                None if production => bail!(
                    "SESSION_SECRET is required with PostgreSQL (every instance must sign sessions with the same key)"
                ),
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
                // PostgreSQL means production, and a configured gateway may be a real one: a
                // known development secret would let anyone forge payment callbacks.
                None if production => bail!(
                    "PAYMENT_WEBHOOK_SECRET is required with PostgreSQL (the development secret is only for the embedded mode)"
                ),
                None if gateway_configured => bail!(
                    "PAYMENT_WEBHOOK_SECRET is required when PAYMENT_GATEWAY_URL is set (the development secret is only for the built-in sandbox)"
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
                Some(p) => match crate::staff::password_problem(&p) {
                    None => Some(Secret::new(p.into_bytes())),
                    Some(problem) => bail!("OPERATOR_PASSWORD: {problem}"),
                },
            },
            staff: crate::engine::StaffPolicy {
                idle: seconds("STAFF_IDLE_SECONDS", 1800)?,
                lifetime: seconds("STAFF_SESSION_SECONDS", 12 * 3600)?,
                lock_after: match count("STAFF_LOCK_AFTER", 5)? {
                    0 => bail!("STAFF_LOCK_AFTER must be at least 1"),
                    n => n,
                },
                lock_for: seconds("STAFF_LOCK_SECONDS", 900)?,
                sign_in_from: ranges("STAFF_SIGN_IN_FROM")?,
            },
            relay_poll: seconds("RELAY_POLL_SECONDS", 1)?,
            hold_rate_per_address: count("HOLD_RATE_PER_ADDRESS", 30)?,
            holds_per_customer: count("HOLDS_PER_CUSTOMER", 1)?,
            held_seats_per_address: count("HELD_SEATS_PER_ADDRESS", 40)?,
            // By default as long as a hold: cancelling and holding again gains nothing.
            checkout_rate_per_minute: count("CHECKOUT_RATE_PER_MINUTE", 20)?,
            checkout_rate_per_address: count("CHECKOUT_RATE_PER_ADDRESS", 60)?,
            hold_cooldown: match get("HOLD_COOLDOWN_SECONDS") {
                Some(_) => Duration::from_secs(u64::from(count("HOLD_COOLDOWN_SECONDS", 600)?)),
                None => seconds("HOLD_TTL_SECONDS", 600)?,
            },
            trusted_proxies: ranges("TRUSTED_PROXIES")?.unwrap_or_default(),
            max_connections: size("MAX_CONNECTIONS", default_max_connections())?,
            max_connections_per_address: size("MAX_CONNECTIONS_PER_ADDRESS", 128)?,
            // Half of the connections at most, so that pages, holds and the gateway's callbacks
            // always find a place.
            max_live_viewers: size("MAX_LIVE_VIEWERS", default_max_connections() / 2)?,
            max_live_viewers_per_address: size("MAX_LIVE_VIEWERS_PER_ADDRESS", 64)?,
            header_timeout: seconds("HTTP_HEADER_TIMEOUT_SECONDS", 10)?,
            request_timeout: seconds("HTTP_REQUEST_TIMEOUT_SECONDS", 30)?,
            body_timeout: seconds("HTTP_BODY_TIMEOUT_SECONDS", 10)?,
            allowed_origins: get("ALLOWED_ORIGINS")
                .unwrap_or_default()
                .split(',')
                .map(|o| o.trim().trim_end_matches('/').to_string())
                .filter(|o| !o.is_empty())
                .map(|o| {
                    if o.starts_with("http://") || o.starts_with("https://") {
                        Ok(o)
                    } else {
                        Err(anyhow::anyhow!(
                            "ALLOWED_ORIGINS: {o:?} must start with http:// or https://"
                        ))
                    }
                })
                .collect::<anyhow::Result<_>>()?,
            metrics_allow: ranges("METRICS_ALLOW")?
                .unwrap_or_else(crate::net::private_ranges),
            venue_utc_offset: match get("VENUE_UTC_OFFSET") {
                None => "+09:00".into(),
                Some(o) if app::format::parse_offset(&o).is_some() => o.trim().to_string(),
                Some(o) => bail!(
                    "VENUE_UTC_OFFSET {o:?} is not an offset such as +09:00 or -05:30 (at most 14 hours)"
                ),
            },
            seat_rules: match get("LONE_SEAT_RULE").as_deref().map(str::trim) {
                None | Some("on") => app::domain::seat_rules::Rules::default(),
                Some("exempt-edges") => app::domain::seat_rules::Rules {
                    no_lone_seats: true,
                    exempt_edges: true,
                },
                Some("off") => app::domain::seat_rules::Rules {
                    no_lone_seats: false,
                    exempt_edges: false,
                },
                Some(o) => bail!("LONE_SEAT_RULE {o:?} is on, exempt-edges or off"),
            },
            redis_key_prefix: match get("REDIS_KEY_PREFIX") {
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
            ticket_keys: match get("TICKET_KEYS").filter(|s| !s.trim().is_empty()) {
                Some(keys) => parse_ticket_keys(&keys)?,
                None if production => bail!(
                    "TICKET_KEYS is required with PostgreSQL (every instance must sign and check tickets with the same keys)"
                ),
                None => Vec::new(),
            },
            relay_batch: match whole("RELAY_BATCH", 100)? {
                0 => bail!("RELAY_BATCH must be at least 1"),
                n => n.min(10_000) as i64,
            },
        })
    }
}

/// A default connection cap that stays clear of the process's open-file limit (each connection
/// is a file descriptor; the database pool, Redis and files need some too).
fn default_max_connections() -> usize {
    let limit = std::fs::read_to_string("/proc/self/limits")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("Max open files"))
                .and_then(|l| l.split_whitespace().nth(3)?.parse::<usize>().ok())
        })
        .unwrap_or(1024);
    (limit.saturating_sub(128) * 3 / 4).clamp(64, 10_000)
}

/// `TICKET_KEYS`: `id:secret,id:secret,…` (a secret holds no comma) — the first key signs new
/// tickets, every key checks
/// them, so a key can be replaced without voiding the tickets it signed (put the new one
/// first, keep the old one until its tickets' shows are over).
pub fn parse_ticket_keys(text: &str) -> anyhow::Result<Vec<(String, Secret)>> {
    let mut keys: Vec<(String, Secret)> = Vec::new();
    for entry in text.split(',').map(str::trim).filter(|e| !e.is_empty()) {
        let Some((id, secret)) = entry.split_once(':') else {
            bail!(
                "TICKET_KEYS: each key is id:secret, not {:?}",
                entry.chars().take(8).collect::<String>() + "…"
            );
        };
        if id.is_empty()
            || id.len() > 8
            || !id
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        {
            bail!("TICKET_KEYS: a key id is 1 to 8 lower-case letters or digits, not {id:?}");
        }
        if secret.len() < 32 {
            bail!("TICKET_KEYS: the secret of key {id:?} must be at least 32 characters");
        }
        if keys.iter().any(|(k, _)| k == id) {
            bail!("TICKET_KEYS: key id {id:?} appears twice");
        }
        keys.push((id.to_string(), Secret::new(secret.as_bytes().to_vec())));
    }
    if keys.is_empty() {
        bail!("TICKET_KEYS names no key");
    }
    Ok(keys)
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

    /// What PostgreSQL (production) requires besides its URL.
    const PRODUCTION: [(&str, &str); 4] = [
        ("DATABASE_URL", "postgres://u@h/db"),
        ("PAYMENT_WEBHOOK_SECRET", "a long enough shared secret"),
        (
            "SESSION_SECRET",
            "a session secret of at least 32 characters",
        ),
        (
            "TICKET_KEYS",
            "k1:a ticket secret of at least 32 characters",
        ),
    ];

    #[test]
    fn a_postgres_url_selects_postgres() {
        let c = config(&PRODUCTION).unwrap();
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
    fn production_needs_its_shared_secrets() {
        assert!(config(&[]).is_ok());
        for (missing, (name, _)) in PRODUCTION.iter().enumerate().skip(1) {
            let vars: Vec<_> = PRODUCTION
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != missing)
                .map(|(_, v)| *v)
                .collect();
            let e = config(&vars).unwrap_err().to_string();
            assert!(e.contains(name), "{e}");
        }
        let mut short = PRODUCTION.to_vec();
        short[1] = ("PAYMENT_WEBHOOK_SECRET", "short");
        assert!(config(&short).is_err());
        let c = config(&PRODUCTION).unwrap();
        assert_eq!(
            c.payment_webhook_secret.expose(),
            b"a long enough shared secret"
        );
    }

    #[test]
    fn a_configured_gateway_needs_a_real_webhook_secret_even_when_embedded() {
        // The built-in sandbox (no gateway URL) works with no configuration.
        assert!(config(&[]).is_ok());
        let gateway = ("PAYMENT_GATEWAY_URL", "https://pay.example.com");
        let e = config(&[gateway]).unwrap_err().to_string();
        assert!(e.contains("PAYMENT_WEBHOOK_SECRET"), "{e}");
        let c = config(&[
            gateway,
            ("PAYMENT_WEBHOOK_SECRET", "a long enough shared secret"),
        ])
        .unwrap();
        assert_eq!(
            c.payment_webhook_secret.expose(),
            b"a long enough shared secret"
        );
    }

    #[test]
    fn ticket_keys_name_an_id_and_a_long_secret_and_the_first_signs() {
        let keys = parse_ticket_keys(
            "k2:the newest ticket secret (32+ chars long),k1:an older ticket secret of 32+ chars",
        )
        .unwrap();
        assert_eq!(
            keys.iter().map(|(id, _)| id.as_str()).collect::<Vec<_>>(),
            ["k2", "k1"]
        );
        for bad in [
            "k1",
            "k1:short",
            "K1:an upper-case id with a long enough secret",
            "toolongid:an id of nine characters with a long secret",
            "k1:a long enough secret for the first key ok,k1:the same id again and long enough",
            " , ",
        ] {
            assert!(parse_ticket_keys(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_lone_seat_rule_is_on_unless_the_venue_says_otherwise() {
        assert!(config(&[]).unwrap().seat_rules.no_lone_seats);
        let edges = config(&[("LONE_SEAT_RULE", "exempt-edges")]).unwrap();
        assert!(edges.seat_rules.exempt_edges);
        let off = config(&[("LONE_SEAT_RULE", "off")]).unwrap();
        assert!(!off.seat_rules.no_lone_seats);
        let e = config(&[("LONE_SEAT_RULE", "maybe")]).unwrap_err();
        assert!(e.to_string().contains("LONE_SEAT_RULE"), "{e}");
    }

    #[test]
    fn the_venue_offset_defaults_to_korea_and_must_be_an_offset() {
        assert_eq!(config(&[]).unwrap().venue_utc_offset, "+09:00");
        let c = config(&[("VENUE_UTC_OFFSET", "-05:00")]).unwrap();
        assert_eq!(c.venue_utc_offset, "-05:00");
        for bad in ["9", "UTC+9", "+15:00", "Asia/Seoul"] {
            let e = config(&[("VENUE_UTC_OFFSET", bad)])
                .unwrap_err()
                .to_string();
            assert!(e.contains("VENUE_UTC_OFFSET"), "{bad}: {e}");
        }
    }

    #[test]
    fn abuse_limits_have_defaults_and_can_be_turned_off() {
        let c = config(&[]).unwrap();
        assert_eq!(
            (
                c.hold_rate_per_address,
                c.holds_per_customer,
                c.held_seats_per_address
            ),
            (30, 1, 40)
        );
        assert!(c.trusted_proxies.is_empty());
        assert!(c.max_connections >= 64 && c.max_connections <= 10_000);
        let c = config(&[
            ("HOLDS_PER_CUSTOMER", "0"),
            ("TRUSTED_PROXIES", "10.0.0.0/8, ::1"),
            ("REDIS_KEY_PREFIX", "cinema-1:"),
        ])
        .unwrap();
        assert_eq!(c.holds_per_customer, 0);
        assert_eq!(c.trusted_proxies.len(), 2);
        assert_eq!(c.redis_key_prefix, "cinema-1:");
        assert!(config(&[("TRUSTED_PROXIES", "10.0.0.0/99")]).is_err());
        assert!(config(&[("REDIS_KEY_PREFIX", "a b")]).is_err());
        assert!(config(&[("MAX_CONNECTIONS", "0")]).is_err());
        assert!(config(&[("ALLOWED_ORIGINS", "kiosk.example.com")]).is_err());
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
