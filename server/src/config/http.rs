//! Serving HTTP: the public address, the session key, proxies, connection caps and timeouts,
//! origins, and who may read `/metrics`.

use super::{Env, Secret};
use crate::net::IpNet;
use anyhow::bail;
use std::time::Duration;

#[derive(Clone, Debug)]
pub struct HttpConfig {
    /// Signs the guest session cookie. Unset: a random key kept in the data folder (fine for one
    /// embedded instance; several instances must share `SESSION_SECRET`).
    pub session_secret: Option<Secret>,
    /// How customers' browsers and the gateway reach this server (`http://<listen address>`
    /// when unset).
    pub public_url: Option<String>,
    /// Proxies whose `X-Forwarded-For` names the client (none: the peer is the client).
    pub trusted_proxies: Vec<IpNet>,
    /// Connections served at once; more are answered 503 and closed.
    pub max_connections: usize,
    /// Connections served at once from one client address.
    pub max_connections_per_address: usize,
    /// Connections WebSockets can never take (live viewers and waiting pages together stop
    /// short of them): holds, checkouts, callbacks and `/health` always find a place.
    pub connection_reserve: usize,
    /// Live seat-map viewers (WebSockets) at once, in all and per client address.
    pub max_live_viewers: usize,
    pub max_live_viewers_per_address: usize,
    /// Waiting pages' WebSockets at once, in all and per client address.
    pub max_queue_pages: usize,
    pub max_queue_pages_per_address: usize,
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
}

impl HttpConfig {
    pub(super) fn from_env(env: &Env, production: bool) -> anyhow::Result<Self> {
        let max_connections = env.size("MAX_CONNECTIONS", default_max_connections())?;
        // A quarter of the connections (at least 16, at most half) are never a WebSocket's.
        let reserve = (max_connections / 4).max(16).min(max_connections / 2);
        let connection_reserve = match env.get("CONNECTION_RESERVE") {
            Some(_) => env.size("CONNECTION_RESERVE", reserve)?,
            None => reserve,
        };
        if connection_reserve >= max_connections {
            bail!("CONNECTION_RESERVE ({connection_reserve}) must be below MAX_CONNECTIONS ({max_connections})");
        }
        Ok(Self {
            session_secret: match env.get("SESSION_SECRET").filter(|s| !s.is_empty()) {
                // Several instances must share the key, and a generated one would differ.
                None if production => bail!(
                    "SESSION_SECRET is required with PostgreSQL (every instance must sign sessions with the same key)"
                ),
                None => None,
                Some(s) if s.len() >= 32 => Some(Secret::new(s.into_bytes())),
                Some(_) => bail!("SESSION_SECRET must be at least 32 characters"),
            },
            public_url: env
                .url("PUBLIC_URL")?
                .map(|url| url.trim_end_matches('/').to_string()),
            trusted_proxies: env.ranges("TRUSTED_PROXIES")?.unwrap_or_default(),
            max_connections,
            max_connections_per_address: env.size("MAX_CONNECTIONS_PER_ADDRESS", 128)?,
            connection_reserve,
            // Half of the connections each at most (and both together short of the reserve).
            max_live_viewers: env.size("MAX_LIVE_VIEWERS", max_connections / 2)?,
            max_live_viewers_per_address: env.size("MAX_LIVE_VIEWERS_PER_ADDRESS", 64)?,
            max_queue_pages: env.size("MAX_QUEUE_PAGES", max_connections / 2)?,
            max_queue_pages_per_address: env.size("MAX_QUEUE_PAGES_PER_ADDRESS", 64)?,
            header_timeout: env.seconds("HTTP_HEADER_TIMEOUT_SECONDS", 10)?,
            request_timeout: env.seconds("HTTP_REQUEST_TIMEOUT_SECONDS", 30)?,
            body_timeout: env.seconds("HTTP_BODY_TIMEOUT_SECONDS", 10)?,
            allowed_origins: env
                .get("ALLOWED_ORIGINS")
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
            metrics_allow: env
                .ranges("METRICS_ALLOW")?
                .unwrap_or_else(crate::net::private_ranges),
        })
    }
}

impl HttpConfig {
    /// Connections WebSockets of every kind may take together.
    pub fn max_sockets(&self) -> usize {
        self.max_connections - self.connection_reserve
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
