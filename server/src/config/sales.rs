//! Selling: how long a hold lasts, the sweeper, the venue's time zone, the seat rules, and the
//! keys tickets are signed with.

use super::{Env, Secret};
use anyhow::bail;
use std::time::Duration;

#[derive(Clone, Debug)]
pub struct SalesConfig {
    /// How long a customer's hold lasts.
    pub hold_ttl: Duration,
    /// How often expired holds are tidied away.
    pub sweep_interval: Duration,
    /// The venue's offset from UTC (`+09:00`): the day a sale counts on, "today"'s showtimes,
    /// and every time the pages show or the console reads.
    pub venue_utc_offset: String,
    /// The lone-seat rule (`LONE_SEAT_RULE`): `on` (default) refuses a selection that leaves a
    /// lone free seat when another selection would not; `exempt-edges` does not count a lone
    /// seat at a row end or an aisle; `off`.
    pub seat_rules: app::domain::seat_rules::Rules,
    /// Ticket signing keys, `(id, secret)`, the first signs (none: a random key kept in the
    /// data folder, embedded mode only).
    pub ticket_keys: Vec<(String, Secret)>,
}

impl SalesConfig {
    pub(super) fn from_env(env: &Env, production: bool) -> anyhow::Result<Self> {
        Ok(Self {
            hold_ttl: env.seconds("HOLD_TTL_SECONDS", 600)?,
            sweep_interval: env.seconds("SWEEP_INTERVAL_SECONDS", 15)?,
            venue_utc_offset: match env.get("VENUE_UTC_OFFSET") {
                None => "+09:00".into(),
                Some(o) if app::format::parse_offset(&o).is_some() => o.trim().to_string(),
                Some(o) => bail!(
                    "VENUE_UTC_OFFSET {o:?} is not an offset such as +09:00 or -05:30 (at most 14 hours)"
                ),
            },
            seat_rules: match env.get("LONE_SEAT_RULE").as_deref().map(str::trim) {
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
            ticket_keys: match env.non_empty("TICKET_KEYS") {
                Some(keys) => parse_ticket_keys(&keys)?,
                None if production => bail!(
                    "TICKET_KEYS is required with PostgreSQL (every instance must sign and check tickets with the same keys)"
                ),
                None => Vec::new(),
            },
        })
    }
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
