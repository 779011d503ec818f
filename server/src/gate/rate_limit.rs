//! The rate limits on hold attempts (per customer, per client address) and on operator
//! password guesses: in Redis when there is one, in this process otherwise.

use super::{RATE, RATE_REFUND};
use crate::redis_link::{Conn, RedisLink};
use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};
use std::time::{Duration, Instant};

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

    /// Gives back one attempt of `key` (the attempt turned out not to be one the limit is for,
    /// e.g. a right password): in Redis when there is one (where every process counts), and in
    /// this process (where it was counted while Redis was unusable).
    pub async fn refund(&self, key: &str) {
        if self.per_minute == 0 {
            return;
        }
        if let Some(link) = &self.link {
            let redis_key = format!("{}rate:{{{}:{key}}}", link.prefix(), self.kind);
            let interval_ms = self.interval().as_millis() as u64;
            let _ = link
                .run("rate limit refund", |mut conn: Conn| async move {
                    RATE_REFUND
                        .key(redis_key)
                        .arg(interval_ms)
                        .invoke_async::<i64>(&mut conn)
                        .await
                })
                .await;
        }
        self.refund_locally(key);
    }

    /// Gives back one attempt of `key` counted in this process.
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
