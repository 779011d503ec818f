//! Abuse limits on holds and checkouts (`0`: no limit, for each).

use super::Env;
use std::time::Duration;

#[derive(Clone, Debug)]
pub struct LimitsConfig {
    /// Hold attempts a customer may make per minute.
    pub hold_rate_per_minute: u32,
    /// Hold attempts one client address may make per minute.
    pub hold_rate_per_address: u32,
    /// Live holds one customer may have in one showtime.
    pub holds_per_customer: u32,
    /// Seats that live holds from one client address may hold in one showtime.
    pub held_seats_per_address: u32,
    /// After a hold of theirs ends (cancelled or lapsed), how long a customer or address may not
    /// hold its seats again.
    pub hold_cooldown: Duration,
    /// Checkout attempts per customer, and per client address, a minute.
    pub checkout_rate_per_minute: u32,
    pub checkout_rate_per_address: u32,
}

impl LimitsConfig {
    pub(super) fn from_env(env: &Env) -> anyhow::Result<Self> {
        Ok(Self {
            hold_rate_per_minute: env.count("HOLD_RATE_PER_MINUTE", 5)?,
            hold_rate_per_address: env.count("HOLD_RATE_PER_ADDRESS", 30)?,
            holds_per_customer: env.count("HOLDS_PER_CUSTOMER", 1)?,
            held_seats_per_address: env.count("HELD_SEATS_PER_ADDRESS", 40)?,
            // By default as long as a hold: cancelling and holding again gains nothing.
            hold_cooldown: match env.get("HOLD_COOLDOWN_SECONDS") {
                Some(_) => Duration::from_secs(u64::from(env.count("HOLD_COOLDOWN_SECONDS", 600)?)),
                None => env.seconds("HOLD_TTL_SECONDS", 600)?,
            },
            checkout_rate_per_minute: env.count("CHECKOUT_RATE_PER_MINUTE", 20)?,
            checkout_rate_per_address: env.count("CHECKOUT_RATE_PER_ADDRESS", 60)?,
        })
    }
}
