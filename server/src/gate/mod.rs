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

mod rate_limit;

pub use rate_limit::RateLimiter;

use crate::redis_link::{Attempt, Conn, RedisLink};
use app::domain::{BookingId, HoldId, SeatCode, ShowtimeId};
use std::collections::VecDeque;
use std::sync::{Arc, LazyLock, Mutex};
use std::time::{Duration, Instant};

/// How long a clerk's hold at the box office lasts: the sale in progress at the counter is not
/// cut short by the customers' 10 minutes; it ends when the clerk sells, cancels, locks the kiosk
/// or signs out (or, at the latest, after this).
pub const CLERK_HOLD_TTL: Duration = Duration::from_secs(30 * 60);

static GATE: LazyLock<redis::Script> =
    LazyLock::new(|| redis::Script::new(include_str!("../../lua/seat_gate.lua")));
static RELEASE: LazyLock<redis::Script> =
    LazyLock::new(|| redis::Script::new(include_str!("../../lua/seat_release.lua")));
static BOOK: LazyLock<redis::Script> =
    LazyLock::new(|| redis::Script::new(include_str!("../../lua/seat_book.lua")));
static RATE: LazyLock<redis::Script> =
    LazyLock::new(|| redis::Script::new(include_str!("../../lua/rate_limit.lua")));
static RATE_REFUND: LazyLock<redis::Script> =
    LazyLock::new(|| redis::Script::new(include_str!("../../lua/rate_refund.lua")));

/// The SHA1 of the gate script, as EVALSHA names it (the benchmark calls it directly).
pub fn gate_script_sha() -> String {
    GATE.get_hash().to_string()
}

/// Loads every script into Redis (on every primary of a cluster), so that calls go by EVALSHA
/// from the first one. Failure is harmless: a call loads its script when Redis lacks it.
pub async fn load_scripts(link: &RedisLink) {
    let loaded = link
        .run("load scripts", |mut conn: Conn| async move {
            for script in [&*GATE, &*RELEASE, &*BOOK, &*RATE, &*RATE_REFUND] {
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
    format!("{prefix}seat:{{{}}}:{}", showtime.get(), seat)
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
    /// The value the keys carry: a hold id, or `booked:<booking id>`.
    owner: String,
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
        // Kept as long as the longest hold's keys (a clerk's) could live.
        let keep = self.ttl.max(CLERK_HOLD_TTL);
        self.release_keys(showtime, seats, hold.to_string(), keep)
            .await;
    }

    /// Removes the keys of `seats` that still carry `owner`; kept for another try for `keep`
    /// when Redis cannot be reached.
    async fn release_keys(
        &self,
        showtime: ShowtimeId,
        seats: &[SeatCode],
        owner: String,
        keep: Duration,
    ) {
        let Some(link) = &self.link else { return };
        if seats.is_empty()
            || self
                .send_release(link, showtime, seats, owner.clone())
                .await
        {
            return;
        }
        let mut pending = self.pending.lock().expect("pending releases");
        if pending.len() >= PENDING_RELEASES {
            pending.pop_front();
        }
        pending.push_back(PendingRelease {
            showtime,
            seats: seats.to_vec(),
            owner,
            until: Instant::now() + keep,
        });
    }

    async fn send_release(
        &self,
        link: &RedisLink,
        showtime: ShowtimeId,
        seats: &[SeatCode],
        owner: String,
    ) -> bool {
        let keys = Self::keys(link, showtime, seats);
        let hold = owner;
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
            if !self
                .send_release(link, p.showtime, &p.seats, p.owner.clone())
                .await
            {
                self.pending.lock().expect("pending releases").push_front(p);
                return;
            }
        }
    }

    /// Removes the keys of sold seats given back (a refund at the counter) that still carry
    /// `booking`, so the gate lets holds of them through again (tried again for a day when
    /// Redis cannot be reached).
    pub async fn release_booked(
        &self,
        showtime: ShowtimeId,
        seats: &[SeatCode],
        booking: BookingId,
    ) {
        let owner = format!("booked:{}", booking.0);
        self.release_keys(showtime, seats, owner, Duration::from_secs(24 * 3600))
            .await;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seat_keys_carry_the_showtime_as_a_hash_tag() {
        let code = SeatCode::parse("F5").unwrap();
        assert_eq!(
            seat_key("", ShowtimeId::try_from(42).unwrap(), &code),
            "seat:{42}:F5"
        );
        assert_eq!(
            seat_key("cine1:", ShowtimeId::try_from(42).unwrap(), &code),
            "cine1:seat:{42}:F5"
        );
    }
}
