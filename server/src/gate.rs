//! Redis in front of the database: the seat gate and the
//! per-customer rate limit on hold attempts. Both are Lua scripts in `server/lua/`, loaded once
//! and called with EVALSHA (redis-rs loads a script again by itself after a Redis restart).
//!
//! The gate is only a first filter. A request it turns away is one the database would have
//! turned away too (a key exists only while a hold that got through the gate may still hold the
//! seat, or after the seat was sold); a request it lets through still meets the conditional
//! UPDATE, which decides. So a missing, stale or lost key can cost a database round trip, never a
//! double sale, and a key left behind by a crash lapses with its TTL, which is the hold's length
//! and starts before the database's hold does.

use crate::redis_link::{Attempt, Conn, RedisLink};
use app::domain::{BookingId, HoldId, SeatCode, ShowtimeId};
use std::collections::{HashMap, VecDeque};
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

/// The Redis key of a seat: `<prefix>seat:{showtimeId}:F5`.
pub fn seat_key(prefix: &str, showtime: ShowtimeId, seat: &SeatCode) -> String {
    format!("{prefix}seat:{{{}}}:{}", showtime.0, seat)
}

/// What the gate said about a hold attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GateVerdict {
    /// Every seat key is now set to the hold id; the database decides next.
    Passed,
    /// These seats are held or sold: refuse at once, without database work.
    Taken(Vec<SeatCode>),
    /// No gate (no Redis configured, or its breaker is open): the database decides alone.
    Bypassed,
    /// The call failed or timed out after it was sent: Redis may have set the keys anyway. The
    /// database decides alone; if it refuses, the keys are released like a refused hold's.
    Unknown,
}

/// A release that could not reach Redis, kept to be tried again until the keys would have
/// lapsed by themselves.
struct PendingRelease {
    showtime: ShowtimeId,
    seats: Vec<SeatCode>,
    hold: HoldId,
    until: Instant,
}

/// Releases kept for another try, at most (older ones are dropped: their keys lapse by TTL).
const PENDING_RELEASES: usize = 10_000;

#[derive(Default)]
pub struct SeatGate {
    link: Option<Arc<RedisLink>>,
    /// Releases that failed, tried again by [`SeatGate::retry_releases`].
    pending: Mutex<VecDeque<PendingRelease>>,
    /// The hold length, for how long a failed release is worth retrying.
    ttl: Duration,
}

impl SeatGate {
    pub fn new(link: Arc<RedisLink>, ttl: Duration) -> Self {
        Self {
            link: Some(link),
            pending: Mutex::default(),
            ttl,
        }
    }

    pub fn link(&self) -> Option<&Arc<RedisLink>> {
        self.link.as_ref()
    }

    fn keys(link: &RedisLink, showtime: ShowtimeId, seats: &[SeatCode]) -> Vec<String> {
        seats
            .iter()
            .map(|s| seat_key(link.prefix(), showtime, s))
            .collect()
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
        let keys = Self::keys(link, showtime, seats);
        let hold = hold.to_string();
        let ttl_ms = ttl.as_millis().max(1) as u64;
        let taken = link
            .attempt("seat gate", |mut conn: Conn| async move {
                GATE.key(keys)
                    .arg(hold)
                    .arg(ttl_ms)
                    .invoke_async::<Vec<usize>>(&mut conn)
                    .await
            })
            .await;
        match taken {
            Attempt::Skipped => GateVerdict::Bypassed,
            Attempt::Failed => GateVerdict::Unknown,
            Attempt::Done(taken) if taken.is_empty() => GateVerdict::Passed,
            Attempt::Done(taken) => GateVerdict::Taken(
                taken
                    .into_iter()
                    .filter_map(|i| seats.get(i.checked_sub(1)?).cloned())
                    .collect(),
            ),
        }
    }

    /// Removes the keys of `seats` that still carry `hold` (a refused, cancelled or expired
    /// hold); keys another hold has set since are left alone. When Redis cannot be reached the
    /// release is kept and tried again (see [`SeatGate::retry_releases`]), so a free seat is not
    /// turned away for the rest of the hold's time.
    pub async fn release(&self, showtime: ShowtimeId, seats: &[SeatCode], hold: HoldId) {
        let Some(link) = &self.link else { return };
        if seats.is_empty() || self.send_release(link, showtime, seats, hold).await {
            return;
        }
        let mut pending = self.pending.lock().expect("pending releases");
        if pending.len() >= PENDING_RELEASES {
            pending.pop_front();
        }
        pending.push_back(PendingRelease {
            showtime,
            seats: seats.to_vec(),
            hold,
            until: Instant::now() + self.ttl,
        });
    }

    async fn send_release(
        &self,
        link: &RedisLink,
        showtime: ShowtimeId,
        seats: &[SeatCode],
        hold: HoldId,
    ) -> bool {
        let keys = Self::keys(link, showtime, seats);
        let hold = hold.to_string();
        link.run("seat gate release", |mut conn: Conn| async move {
            RELEASE
                .key(keys)
                .arg(hold)
                .invoke_async::<i64>(&mut conn)
                .await
        })
        .await
        .is_some()
    }

    /// A claim on the keys `enter` set for `hold`: unless settled, dropping it (the hold attempt
    /// abandoned halfway, e.g. its request dropped between the gate and the database's answer)
    /// releases them, so they do not turn free seats away for a whole hold's time.
    pub fn claim(&self, showtime: ShowtimeId, seats: &[SeatCode], hold: HoldId) -> GateClaim {
        GateClaim {
            link: self.link.clone(),
            showtime,
            seats: seats.to_vec(),
            hold,
        }
    }

    /// Releases that failed earlier and still matter, waiting for another try.
    pub fn pending_releases(&self) -> usize {
        self.pending.lock().expect("pending releases").len()
    }

    /// Tries the releases that failed earlier again, oldest first, until Redis fails again.
    /// Those whose keys have lapsed by themselves meanwhile are dropped.
    pub async fn retry_releases(&self) {
        let Some(link) = &self.link else { return };
        loop {
            let next = {
                let mut pending = self.pending.lock().expect("pending releases");
                let now = Instant::now();
                while pending.front().is_some_and(|p| p.until <= now) {
                    pending.pop_front();
                }
                pending.pop_front()
            };
            let Some(p) = next else { return };
            if !self.send_release(link, p.showtime, &p.seats, p.hold).await {
                self.pending.lock().expect("pending releases").push_front(p);
                return;
            }
        }
    }

    /// Keeps sold seats filtered until `until` (after the show: nothing can be held then), so
    /// sold seats' keys do not pile up in Redis for ever.
    pub async fn book(
        &self,
        showtime: ShowtimeId,
        seats: &[SeatCode],
        booking: BookingId,
        until: chrono::DateTime<chrono::Utc>,
    ) {
        let Some(link) = &self.link else { return };
        if seats.is_empty() {
            return;
        }
        let keys = Self::keys(link, showtime, seats);
        let booking = booking.0.to_string();
        let until_ms = until.timestamp_millis().max(1);
        link.run("seat gate book", |mut conn: Conn| async move {
            BOOK.key(keys)
                .arg(booking)
                .arg(until_ms)
                .invoke_async::<i64>(&mut conn)
                .await
        })
        .await;
    }
}

/// See [`SeatGate::claim`].
pub struct GateClaim {
    /// `None` once settled (or without Redis).
    link: Option<Arc<RedisLink>>,
    showtime: ShowtimeId,
    seats: Vec<SeatCode>,
    hold: HoldId,
}

impl GateClaim {
    /// The attempt got to its end (and kept or released the keys itself).
    pub fn settle(mut self) {
        self.link = None;
    }
}

impl Drop for GateClaim {
    fn drop(&mut self) {
        let Some(link) = self.link.take() else { return };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let keys = SeatGate::keys(&link, self.showtime, &self.seats);
        let hold = self.hold.to_string();
        runtime.spawn(async move {
            link.run("seat gate release", |mut conn: Conn| async move {
                RELEASE
                    .key(keys)
                    .arg(hold)
                    .invoke_async::<i64>(&mut conn)
                    .await
            })
            .await;
        });
    }
}

/// At most `per_minute` attempts a minute per key (a customer, a client address), as a burst of
/// `per_minute` that refills one attempt every `60 s / per_minute` (GCRA). In Redis when there is
/// one, so that every server process counts against the same limit; in this process when there
/// is none or it is unusable. `per_minute = 0` turns the limit off.
pub struct RateLimiter {
    per_minute: u32,
    link: Option<Arc<RedisLink>>,
    /// What the keys are (`customer`, `address`): part of the Redis key.
    kind: &'static str,
    /// Theoretical arrival times for the in-process limit, in shards so that concurrent checks
    /// rarely meet on one lock.
    local: Box<[Mutex<Generations>]>,
}

/// In-process entries kept (over all shards) before the oldest generation is dropped.
const LOCAL_ENTRIES: usize = 100_000;
const SHARDS: usize = 16;

/// Two generations of entries: when the young one is full it becomes the old one and the old
/// one is dropped whole — memory stays bounded without scanning every entry under the lock. An
/// entry found only in the old generation moves to the young one.
#[derive(Default)]
struct Generations {
    young: HashMap<u64, Instant>,
    old: HashMap<u64, Instant>,
}

impl Generations {
    const CAPACITY: usize = LOCAL_ENTRIES / SHARDS / 2;

    fn get(&mut self, key: u64) -> Option<Instant> {
        self.young.get(&key).or_else(|| self.old.get(&key)).copied()
    }

    /// Inserts, and returns the generation to drop (outside the lock) when one was retired.
    fn insert(&mut self, key: u64, tat: Instant) -> Option<HashMap<u64, Instant>> {
        self.old.remove(&key);
        let retired = (self.young.len() >= Self::CAPACITY && !self.young.contains_key(&key))
            .then(|| std::mem::replace(&mut self.old, std::mem::take(&mut self.young)));
        self.young.insert(key, tat);
        retired
    }
}

impl RateLimiter {
    pub fn new(per_minute: u32, link: Option<Arc<RedisLink>>) -> Self {
        Self::keyed("customer", per_minute, link)
    }

    /// A limiter whose keys are of `kind` (its Redis keys are `rate:{<kind>:<key>}`).
    pub fn keyed(kind: &'static str, per_minute: u32, link: Option<Arc<RedisLink>>) -> Self {
        Self {
            per_minute,
            link,
            kind,
            local: (0..SHARDS).map(|_| Mutex::default()).collect(),
        }
    }

    pub fn off() -> Self {
        Self::new(0, None)
    }

    pub fn is_off(&self) -> bool {
        self.per_minute == 0
    }

    fn interval(&self) -> Duration {
        Duration::from_secs(60) / self.per_minute.max(1)
    }

    /// `Err(wait)` when `key` is over the limit and may try again after `wait`.
    pub async fn check(&self, key: &str) -> Result<(), Duration> {
        if self.per_minute == 0 {
            return Ok(());
        }
        if let Some(link) = &self.link {
            let redis_key = format!("{}rate:{{{}:{key}}}", link.prefix(), self.kind);
            let interval_ms = self.interval().as_millis() as u64;
            let burst = self.per_minute;
            let verdict = link
                .run("rate limit", |mut conn: Conn| async move {
                    RATE.key(redis_key)
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
        self.check_locally(key, Instant::now())
    }

    /// Gives back one attempt of `key` counted in this process (the attempt turned out not to
    /// be one the limit is for, e.g. a right password).
    pub fn refund_locally(&self, key: &str) {
        if self.per_minute == 0 {
            return;
        }
        let hash = Self::hash(key);
        let mut shard = self.local[hash as usize % SHARDS]
            .lock()
            .expect("rate limit lock");
        if let Some(tat) = shard.get(hash) {
            let tat = tat.checked_sub(self.interval()).unwrap_or(tat);
            let retired = shard.insert(hash, tat);
            drop(shard);
            drop(retired);
        }
    }

    fn hash(key: &str) -> u64 {
        use std::hash::BuildHasher;
        // One random seed per process: keys cannot be chosen to collide.
        static SEED: LazyLock<std::collections::hash_map::RandomState> =
            LazyLock::new(std::collections::hash_map::RandomState::new);
        SEED.hash_one(key)
    }

    /// When an attempt may next come, given the key's theoretical arrival time `tat`.
    fn allowed_at(&self, tat: Instant, now: Instant) -> Instant {
        tat.checked_sub(self.interval() * (self.per_minute - 1))
            .unwrap_or(now)
    }

    fn check_locally(&self, key: &str, now: Instant) -> Result<(), Duration> {
        let hash = Self::hash(key);
        let interval = self.interval();
        let mut shard = self.local[hash as usize % SHARDS]
            .lock()
            .expect("rate limit lock");
        let tat = shard.get(hash).unwrap_or(now).max(now);
        let allowed_at = self.allowed_at(tat, now);
        // A refused key is written back unchanged: it stays young, so the keys still in use
        // are the ones kept.
        let (verdict, tat) = if now < allowed_at {
            (Err(allowed_at - now), tat)
        } else {
            (Ok(()), tat + interval)
        };
        let retired = shard.insert(hash, tat);
        drop(shard);
        drop(retired); // freed outside the lock
        verdict
    }

    /// Entries the in-process limit keeps now (bounded by `LOCAL_ENTRIES`).
    pub fn local_entries(&self) -> usize {
        self.local
            .iter()
            .map(|s| {
                let s = s.lock().expect("rate limit lock");
                s.young.len() + s.old.len()
            })
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_local_limit_keeps_a_bounded_number_of_entries_and_remembers_recent_keys() {
        let limiter = RateLimiter::keyed("address", 1, None);
        let t = Instant::now();
        assert_eq!(limiter.check_locally("recent", t), Ok(()));
        for i in 0..(3 * LOCAL_ENTRIES) {
            let _ = limiter.check_locally(&format!("script-{i}"), t);
            if i % 1000 == 0 {
                // A key still in use stays limited, however many others come and go.
                assert!(
                    limiter.check_locally("recent", t).is_err(),
                    "after {i} keys"
                );
            }
        }
        assert!(
            limiter.local_entries() <= LOCAL_ENTRIES,
            "{}",
            limiter.local_entries()
        );
    }

    #[test]
    fn seat_keys_carry_the_showtime_as_a_hash_tag() {
        let code = SeatCode::parse("F5").unwrap();
        assert_eq!(seat_key("", ShowtimeId(42), &code), "seat:{42}:F5");
        assert_eq!(
            seat_key("cine1:", ShowtimeId(42), &code),
            "cine1:seat:{42}:F5"
        );
    }

    #[test]
    fn the_local_limit_allows_a_burst_then_one_attempt_per_interval() {
        let limiter = RateLimiter::new(5, None);
        let (me, other) = ("me", "other");
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
        let me = "me";
        for _ in 0..100 {
            assert_eq!(limiter.check(me).await, Ok(()));
        }
    }
}
