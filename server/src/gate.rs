//! Redis in front of the database (seed 000 §6.2, §9; seed 003 §2): the seat gate and the
//! per-customer rate limit on hold attempts. Both are Lua scripts in `server/lua/`, loaded once
//! and called with EVALSHA (redis-rs loads a script again by itself after a Redis restart).
//!
//! The gate is only a first filter. A request it turns away is one the database would have
//! turned away too (a key exists only while a hold that got through the gate may still hold the
//! seat, or after the seat was sold); a request it lets through still meets the conditional
//! UPDATE, which decides. So a missing, stale or lost key can cost a database round trip, never a
//! double sale, and a key left behind by a crash lapses with its TTL, which is the hold's length
//! and starts before the database's hold does.

use crate::redis_link::{Conn, RedisLink};
use app::domain::{BookingId, CustomerId, HoldId, SeatCode, ShowtimeId};
use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};
use std::time::{Duration, Instant};

static GATE: LazyLock<redis::Script> =
    LazyLock::new(|| redis::Script::new(include_str!("../lua/seat_gate.lua")));
static RELEASE: LazyLock<redis::Script> =
    LazyLock::new(|| redis::Script::new(include_str!("../lua/seat_release.lua")));
static BOOK: LazyLock<redis::Script> =
    LazyLock::new(|| redis::Script::new(include_str!("../lua/seat_book.lua")));
static RATE: LazyLock<redis::Script> =
    LazyLock::new(|| redis::Script::new(include_str!("../lua/rate_limit.lua")));

/// The SHA1 of the gate script, as EVALSHA names it (the benchmark calls it directly).
pub fn gate_script_sha() -> String {
    GATE.get_hash().to_string()
}

/// Loads every script into Redis (on every primary of a cluster), so that calls go by EVALSHA
/// from the first one. Failure is harmless: a call loads its script when Redis lacks it.
pub async fn load_scripts(link: &RedisLink) {
    let loaded = link
        .run("load scripts", |mut conn: Conn| async move {
            for script in [&*GATE, &*RELEASE, &*BOOK, &*RATE] {
                script.prepare_invoke().load_async(&mut conn).await?;
            }
            Ok(())
        })
        .await;
    if loaded.is_some() {
        tracing::info!("seat gate and rate limit scripts loaded into Redis");
    }
}

/// The Redis key of a seat: `seat:{showtimeId}:F5`.
pub fn seat_key(showtime: ShowtimeId, seat: &SeatCode) -> String {
    format!("seat:{{{}}}:{}", showtime.0, seat)
}

/// What the gate said about a hold attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GateVerdict {
    /// Every seat key is now set to the hold id; the database decides next.
    Passed,
    /// These seats are held or sold: refuse at once, without database work.
    Taken(Vec<SeatCode>),
    /// No gate (no Redis configured, or Redis unusable just now): the database decides alone.
    Bypassed,
}

#[derive(Default)]
pub struct SeatGate {
    link: Option<Arc<RedisLink>>,
}

impl SeatGate {
    pub fn new(link: Arc<RedisLink>) -> Self {
        Self { link: Some(link) }
    }

    pub fn link(&self) -> Option<&Arc<RedisLink>> {
        self.link.as_ref()
    }

    /// Claims every seat for `hold` if none is claimed, for the hold's `ttl`.
    pub async fn enter(
        &self,
        showtime: ShowtimeId,
        seats: &[SeatCode],
        hold: HoldId,
        ttl: Duration,
    ) -> GateVerdict {
        let Some(link) = &self.link else {
            return GateVerdict::Bypassed;
        };
        let keys: Vec<String> = seats.iter().map(|s| seat_key(showtime, s)).collect();
        let hold = hold.to_string();
        let ttl_ms = ttl.as_millis().max(1) as u64;
        let taken = link
            .run("seat gate", |mut conn: Conn| async move {
                GATE.key(keys)
                    .arg(hold)
                    .arg(ttl_ms)
                    .invoke_async::<Vec<usize>>(&mut conn)
                    .await
            })
            .await;
        match taken {
            None => GateVerdict::Bypassed,
            Some(taken) if taken.is_empty() => GateVerdict::Passed,
            Some(taken) => GateVerdict::Taken(
                taken
                    .into_iter()
                    .filter_map(|i| seats.get(i.checked_sub(1)?).cloned())
                    .collect(),
            ),
        }
    }

    /// Removes the keys of `seats` that still carry `hold` (a refused, cancelled or expired
    /// hold); keys another hold has set since are left alone.
    pub async fn release(&self, showtime: ShowtimeId, seats: &[SeatCode], hold: HoldId) {
        let Some(link) = &self.link else { return };
        if seats.is_empty() {
            return;
        }
        let keys: Vec<String> = seats.iter().map(|s| seat_key(showtime, s)).collect();
        let hold = hold.to_string();
        link.run("seat gate release", |mut conn: Conn| async move {
            RELEASE
                .key(keys)
                .arg(hold)
                .invoke_async::<i64>(&mut conn)
                .await
        })
        .await;
    }

    /// Keeps sold seats filtered for good.
    pub async fn book(&self, showtime: ShowtimeId, seats: &[SeatCode], booking: BookingId) {
        let Some(link) = &self.link else { return };
        if seats.is_empty() {
            return;
        }
        let keys: Vec<String> = seats.iter().map(|s| seat_key(showtime, s)).collect();
        let booking = booking.0.to_string();
        link.run("seat gate book", |mut conn: Conn| async move {
            BOOK.key(keys)
                .arg(booking)
                .invoke_async::<i64>(&mut conn)
                .await
        })
        .await;
    }
}

/// At most `per_minute` hold attempts a minute per customer, as a burst of `per_minute` that
/// refills one attempt every `60 s / per_minute` (GCRA). In Redis when there is one, so that
/// every server process counts against the same limit; in this process when there is none or
/// it is unusable. `per_minute = 0` turns the limit off.
pub struct RateLimiter {
    per_minute: u32,
    link: Option<Arc<RedisLink>>,
    /// Theoretical arrival time per customer, for the in-process limit.
    local: Mutex<HashMap<CustomerId, Instant>>,
}

/// In-process entries kept before idle ones are dropped.
const LOCAL_ENTRIES: usize = 100_000;

impl RateLimiter {
    pub fn new(per_minute: u32, link: Option<Arc<RedisLink>>) -> Self {
        Self {
            per_minute,
            link,
            local: Mutex::default(),
        }
    }

    pub fn off() -> Self {
        Self::new(0, None)
    }

    fn interval(&self) -> Duration {
        Duration::from_secs(60) / self.per_minute.max(1)
    }

    /// `Err(wait)` when the customer is over the limit and may try again after `wait`.
    pub async fn check(&self, customer: CustomerId) -> Result<(), Duration> {
        if self.per_minute == 0 {
            return Ok(());
        }
        if let Some(link) = &self.link {
            let key = format!("rate:{{{}}}", customer.0);
            let interval_ms = self.interval().as_millis() as u64;
            let burst = self.per_minute;
            let verdict = link
                .run("rate limit", |mut conn: Conn| async move {
                    RATE.key(key)
                        .arg(interval_ms)
                        .arg(burst)
                        .invoke_async::<(i64, i64)>(&mut conn)
                        .await
                })
                .await;
            match verdict {
                Some((1, _)) => return Ok(()),
                Some((_, wait_ms)) => {
                    return Err(Duration::from_millis(wait_ms.max(1) as u64));
                }
                None => {} // Redis unusable: count in this process meanwhile
            }
        }
        self.check_locally(customer, Instant::now())
    }

    fn check_locally(&self, customer: CustomerId, now: Instant) -> Result<(), Duration> {
        let interval = self.interval();
        let mut local = self.local.lock().expect("rate limit lock");
        if local.len() >= LOCAL_ENTRIES {
            local.retain(|_, tat| *tat > now);
        }
        let tat = local.get(&customer).copied().unwrap_or(now).max(now);
        let allowed_at = tat
            .checked_sub(interval * (self.per_minute - 1))
            .unwrap_or(now);
        if now < allowed_at {
            return Err(allowed_at - now);
        }
        local.insert(customer, tat + interval);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seat_keys_carry_the_showtime_as_a_hash_tag() {
        let code = SeatCode::parse("F5").unwrap();
        assert_eq!(seat_key(ShowtimeId(42), &code), "seat:{42}:F5");
    }

    #[test]
    fn the_local_limit_allows_a_burst_then_one_attempt_per_interval() {
        let limiter = RateLimiter::new(5, None);
        let me = CustomerId(uuid::Uuid::new_v4());
        let other = CustomerId(uuid::Uuid::new_v4());
        let t = Instant::now();
        for _ in 0..5 {
            assert_eq!(limiter.check_locally(me, t), Ok(()));
        }
        assert_eq!(
            limiter.check_locally(me, t),
            Err(Duration::from_secs(12)),
            "the 6th attempt in a minute waits for the next refill"
        );
        assert_eq!(limiter.check_locally(other, t), Ok(()), "per customer");
        assert!(limiter
            .check_locally(me, t + Duration::from_secs(11))
            .is_err());
        assert_eq!(
            limiter.check_locally(me, t + Duration::from_secs(12)),
            Ok(())
        );
        assert!(limiter
            .check_locally(me, t + Duration::from_secs(12))
            .is_err());
    }

    #[tokio::test]
    async fn zero_turns_the_limit_off() {
        let limiter = RateLimiter::off();
        let me = CustomerId(uuid::Uuid::new_v4());
        for _ in 0..100 {
            assert_eq!(limiter.check(me).await, Ok(()));
        }
    }
}
