//! Abuse limits on holds, checkouts and finding bookings again (`0`: no limit, for each), and
//! how long customers' e-mail addresses are kept.

use super::Env;
use std::time::Duration;

/// Minutes before the start that customers' online cancellation closes
/// (`CUSTOMER_CANCEL_UNTIL_MINUTES`).
pub const DEFAULT_CANCEL_UNTIL_MINUTES: i64 = 20;
/// Days after its showtime that a booking's e-mail address is kept (`EMAIL_RETENTION_DAYS`).
pub const DEFAULT_EMAIL_RETENTION_DAYS: i64 = 90;

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
    /// Tries to find a booking again (reference and e-mail) per client address, a minute.
    pub lookup_rate_per_address: u32,
    /// Tries to find a booking with one number and one address, a minute.
    pub lookup_rate_per_pair: u32,
    /// Tries of one number that found nothing, a minute (from any address): the owner's own
    /// tries find the booking and never count here.
    pub lookup_rate_per_reference: u32,
    /// Days after its showtime that a booking's e-mail address is kept (at least 1).
    pub email_retention_days: u32,
    /// Minutes before the start that customers' own online cancellation closes (`0`: until
    /// the start).
    pub customer_cancel_until_minutes: u32,
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
            lookup_rate_per_address: env.count("LOOKUP_RATE_PER_ADDRESS", 10)?,
            lookup_rate_per_pair: env.count("LOOKUP_RATE_PER_PAIR", 5)?,
            lookup_rate_per_reference: env.count("LOOKUP_RATE_PER_REFERENCE", 30)?,
            email_retention_days: match env
                .count("EMAIL_RETENTION_DAYS", DEFAULT_EMAIL_RETENTION_DAYS as u64)?
            {
                0 => anyhow::bail!("EMAIL_RETENTION_DAYS must be at least 1"),
                days => days,
            },
            customer_cancel_until_minutes: env.count(
                "CUSTOMER_CANCEL_UNTIL_MINUTES",
                DEFAULT_CANCEL_UNTIL_MINUTES as u64,
            )?,
        })
    }
}
