//! Configuration from environment variables (documented in `.env.example`), one section per
//! concern, each read by its own `from_env`: the store, HTTP, Redis, payments, staff, abuse
//! limits, sales, the booking events, customers' e-mail, and the waiting room.

mod events;
mod http;
mod limits;
mod mail;
mod payments;
mod redis;
mod sales;
mod staff;
mod store;
mod waiting_room;

pub use events::EventsConfig;
pub use http::HttpConfig;
pub use limits::{LimitsConfig, DEFAULT_CANCEL_UNTIL_MINUTES, DEFAULT_EMAIL_RETENTION_DAYS};
pub use mail::MailConfig;
pub use payments::PaymentsConfig;
pub use redis::RedisConfig;
pub use sales::{parse_ticket_keys, SalesConfig};
pub use staff::{StaffConfig, StaffPolicy};
pub use store::{Database, StoreConfig};

use crate::net::IpNet;
use anyhow::{bail, Context};
use std::time::Duration;

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
    pub store: StoreConfig,
    pub http: HttpConfig,
    pub redis: RedisConfig,
    pub payments: PaymentsConfig,
    pub staff: StaffConfig,
    pub limits: LimitsConfig,
    pub sales: SalesConfig,
    pub events: EventsConfig,
    /// Customers' e-mail (`SMTP_URL`, `MAIL_*`).
    pub mail: MailConfig,
    /// The waiting room of hot sales (`WAITING_ROOM_*`).
    pub waiting_room: crate::waiting_room::RoomPolicy,
}

impl Config {
    pub fn from_env() -> anyhow::Result<Self> {
        Self::from_lookup(|k| std::env::var(k).ok())
    }

    /// The store's settings alone (`server staff`, `server seed`: no secret of the server's
    /// is needed to reach its database).
    pub fn store_from_env() -> anyhow::Result<StoreConfig> {
        let get = |k: &str| std::env::var(k).ok();
        StoreConfig::from_env(&Env(&get))
    }

    /// Reads the configuration through `get` (tests pass a map instead of the environment).
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> anyhow::Result<Self> {
        let env = Env(&get);
        let store = StoreConfig::from_env(&env)?;
        // PostgreSQL means production: several instances, and real money.
        let production = store.is_production();
        Ok(Self {
            http: HttpConfig::from_env(&env, production)?,
            redis: RedisConfig::from_env(&env)?,
            payments: PaymentsConfig::from_env(&env, production)?,
            staff: StaffConfig::from_env(&env)?,
            limits: LimitsConfig::from_env(&env)?,
            sales: SalesConfig::from_env(&env, production)?,
            events: EventsConfig::from_env(&env)?,
            mail: MailConfig::from_env(&env, &store.data_dir)?,
            waiting_room: waiting_room::from_env(&env)?,
            store,
        })
    }
}

/// The variables, read as the types settings have.
struct Env<'a>(&'a dyn Fn(&str) -> Option<String>);

impl Env<'_> {
    fn get(&self, key: &str) -> Option<String> {
        (self.0)(key)
    }

    /// Set and not empty.
    fn non_empty(&self, key: &str) -> Option<String> {
        self.get(key).filter(|s| !s.trim().is_empty())
    }

    /// A number of seconds greater than 0 (fractions allowed).
    fn seconds(&self, key: &str, default: u64) -> anyhow::Result<Duration> {
        match self.get(key) {
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
    }

    fn flag(&self, key: &str, default: bool) -> anyhow::Result<bool> {
        match self.get(key).as_deref().map(str::trim) {
            None => Ok(default),
            Some("1" | "true" | "yes") => Ok(true),
            Some("0" | "false" | "no") => Ok(false),
            Some(other) => bail!("{key} must be true or false, not {other:?}"),
        }
    }

    fn whole(&self, key: &str, default: u64) -> anyhow::Result<u64> {
        self.get(key).map_or(Ok(default), |v| {
            v.trim()
                .parse()
                .with_context(|| format!("{key} must be a whole number, not {v:?}"))
        })
    }

    /// A whole number that fits 32 bits (`0` is allowed: "no limit" for most).
    fn count(&self, key: &str, default: u64) -> anyhow::Result<u32> {
        self.whole(key, default)?
            .try_into()
            .with_context(|| format!("{key} is too large"))
    }

    /// A whole number of at least 1.
    fn size(&self, key: &str, default: usize) -> anyhow::Result<usize> {
        match self.whole(key, default as u64)? {
            0 => bail!("{key} must be at least 1"),
            n => Ok(n as usize),
        }
    }

    /// Address ranges (`10.0.0.0/8,::1`), when set.
    fn ranges(&self, key: &str) -> anyhow::Result<Option<Vec<IpNet>>> {
        self.get(key)
            .map(|v| IpNet::parse_list(&v).map_err(|e| anyhow::anyhow!("{key}: {e}")))
            .transpose()
    }

    /// An `http://` or `https://` address, when set.
    fn url(&self, key: &str) -> anyhow::Result<Option<String>> {
        match self.get(key).filter(|s| !s.is_empty()) {
            None => Ok(None),
            Some(url) if url.starts_with("http://") || url.starts_with("https://") => Ok(Some(url)),
            Some(_) => bail!("{key} must start with http:// or https://"),
        }
    }
}

#[cfg(test)]
mod tests;
