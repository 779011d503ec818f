//! The waiting room of a hot sale. A showtime's room is a queue in arrival order (numbered
//! places), the admitted shoppers inside (each with a deadline: a few minutes to hold, then as
//! long as the hold lives), and the admissions of the last minutes (the rate limit and the wait
//! estimate). The state is in Redis when there is one (`redis.rs`, one Lua script, every
//! operation atomic, on Redis Cluster too) and in this process otherwise (`local.rs`).
//!
//! Nothing is done per waiter when someone is admitted: admission takes places from the front,
//! and every waiting page computes its own position from the one `served` counter it is sent.

mod answers;
pub mod draw;
mod local;
mod local_room;
mod redis;
mod tokens;

pub use self::redis::load_script;
pub use answers::{
    AdmitReport, AdmitStep, Answer, Counts, Drawn, JoinLimits, Reserve, RoomDown, Step,
};

use crate::clock::Clock;
use crate::redis_link::RedisLink;
use app::domain::{CustomerId, HoldId, ShowtimeId};
use hmac::{Hmac, Mac};
use sha2::Sha256;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How every room of the server behaves (`WAITING_ROOM_*`).
#[derive(Debug, Clone)]
pub struct RoomPolicy {
    /// How long an admitted shopper has to hold before the place goes to the next one.
    pub admission: Duration,
    /// How long a waiter may be away (page closed, no poll) and keep the place.
    pub grace: Duration,
    /// How long an admission outlives a cancelled hold, for a new hold.
    pub rehold: Duration,
    /// People waiting in one room, at most (beyond: 503 with `Retry-After`).
    pub room_cap: u64,
    /// Places waiting from one client address (IPv6: its /56), at most.
    pub per_address: u32,
    /// The interval the server names for polling (faster polls answer 429).
    pub poll: Duration,
    /// How often a waiting page's socket is pinged; one that answers nothing for three times as
    /// long is closed.
    pub page_ping: Duration,
    /// Holds go on without the room when its state cannot be reached (default: they wait).
    pub fail_open: bool,
    /// Customers' hold attempts in one second of one showtime (in one process) past which its
    /// room turns on by itself (none: only operators turn it on).
    pub auto_on: Option<u32>,
}

impl Default for RoomPolicy {
    fn default() -> Self {
        Self {
            admission: Duration::from_secs(120),
            grace: Duration::from_secs(60),
            rehold: Duration::from_secs(5),
            room_cap: 200_000,
            per_address: 20,
            poll: Duration::from_secs(5),
            page_ping: Duration::from_secs(15),
            fail_open: false,
            auto_on: None,
        }
    }
}

enum Backend {
    Local(local::LocalRooms),
    Redis(redis::RedisRooms),
}

/// The rooms of every showtime, with the key that signs admissions.
pub struct WaitingRoom {
    backend: Backend,
    pub policy: RoomPolicy,
    key: Vec<u8>,
    clock: Clock,
    /// Tickets of this process's connected waiting pages per showtime (with how many pages):
    /// their places are kept alive by one call per showtime now and then.
    connected: Mutex<HashMap<ShowtimeId, HashMap<String, usize>>>,
}

macro_rules! on_backend {
    ($self:ident, $b:ident => $call:expr, local: $wrap:expr) => {
        match &$self.backend {
            Backend::Local($b) => $wrap($call),
            Backend::Redis($b) => $call.await,
        }
    };
}

impl WaitingRoom {
    /// Rooms in this process (`link` none) or in Redis; admissions signed with `key`.
    pub fn new(link: Option<Arc<RedisLink>>, policy: RoomPolicy, key: &[u8], clock: Clock) -> Self {
        let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes any key length");
        mac.update(b"waiting-room admissions");
        Self {
            backend: match link {
                Some(link) => Backend::Redis(redis::RedisRooms::new(link)),
                None => Backend::Local(local::LocalRooms::default()),
            },
            policy,
            key: mac.finalize().into_bytes().to_vec(),
            clock,
            connected: Mutex::default(),
        }
    }

    /// Whether the state lives in this process.
    pub fn is_local(&self) -> bool {
        matches!(self.backend, Backend::Local(_))
    }

    /// The time in ms for the room: a test's manual clock, else this process's (in this
    /// process) or 0, which tells the script to use Redis's own clock.
    fn now(&self) -> i64 {
        match self.clock.now() {
            Some(t) => t.timestamp_millis(),
            None if self.is_local() => chrono::Utc::now().timestamp_millis(),
            None => 0,
        }
    }

    /// The time in ms as this process knows it (for tokens and answers).
    pub fn wall_now(&self) -> i64 {
        self.clock
            .now()
            .unwrap_or_else(chrono::Utc::now)
            .timestamp_millis()
    }

    /// Joins the room (again: the same place). `must_prove`: a new place needs a proof of
    /// work and none was given (an existing one is answered all the same); `proof`: the
    /// challenge a valid proof solved, which makes one new place (used again: `ProofNeeded`).
    pub async fn join(
        &self,
        showtime: ShowtimeId,
        customer: CustomerId,
        address: &str,
        must_prove: bool,
        proof: Option<String>,
    ) -> Result<Answer, RoomDown> {
        let ticket = hex::encode(rand::random::<[u8; 16]>());
        let forget_at = self.wall_now() + Self::challenge_lifetime_ms();
        let limits = JoinLimits {
            room_cap: self.policy.room_cap,
            per_address: self.policy.per_address,
            must_prove,
            proof: proof.map(|challenge| (challenge, forget_at)),
        };
        let now = self.now();
        on_backend!(self, b => b.join(showtime, now, ticket, customer, address, limits), local: Ok)
    }

    pub async fn poll(
        &self,
        showtime: ShowtimeId,
        ticket: Option<&str>,
        customer: CustomerId,
    ) -> Result<Answer, RoomDown> {
        // Polls half as often as named are refused: a page that asks on time is never.
        let least = self.policy.poll.as_millis() as i64 / 2;
        let now = self.now();
        on_backend!(self, b => b.poll(showtime, now, ticket, customer, least), local: Ok)
    }

    pub async fn admit(
        &self,
        showtime: ShowtimeId,
        step: &AdmitStep,
    ) -> Result<AdmitReport, RoomDown> {
        let now = self.now();
        on_backend!(self, b => b.admit(showtime, now, step), local: Ok)
    }

    pub async fn counts(&self, showtime: ShowtimeId) -> Result<Counts, RoomDown> {
        let (now, grace) = (self.now(), self.policy.grace.as_millis() as i64);
        on_backend!(self, b => b.counts(showtime, now, grace), local: Ok)
    }

    pub async fn reserve(
        &self,
        showtime: ShowtimeId,
        ticket: Option<&str>,
        customer: CustomerId,
        seats: u32,
    ) -> Result<Reserve, RoomDown> {
        let most = app::domain::SEATS_PER_ADMISSION as u32;
        let now = self.now();
        on_backend!(self, b => b.reserve(showtime, now, ticket, customer, seats, most), local: Ok)
    }

    pub async fn unreserve(
        &self,
        showtime: ShowtimeId,
        ticket: &str,
        seats: u32,
    ) -> Result<(), RoomDown> {
        on_backend!(self, b => b.unreserve(showtime, ticket, seats), local: Ok)
    }

    pub async fn bind(
        &self,
        showtime: ShowtimeId,
        ticket: &str,
        hold: HoldId,
        expires_ms: i64,
    ) -> Result<(), RoomDown> {
        on_backend!(self, b => b.bind(showtime, ticket, hold, expires_ms), local: Ok)
    }

    /// The hold ended: its admission ends after `keep` (a cancel: time for a new hold) or at once.
    pub async fn hold_ended(
        &self,
        showtime: ShowtimeId,
        hold: HoldId,
        keep: Duration,
    ) -> Result<(), RoomDown> {
        let (now, keep) = (self.now(), keep.as_millis() as i64);
        on_backend!(self, b => b.hold_ended(showtime, now, hold, keep), local: Ok)
    }

    /// Forgets the rooms of every showtime but `open` (in this process; in Redis a room nobody
    /// steps lapses after a day).
    pub fn retain(&self, open: &[ShowtimeId]) {
        if let Backend::Local(b) = &self.backend {
            b.retain(open, self.now());
        }
    }

    /// The showtime's room was turned off: when it is turned on again, its first step does not
    /// take the pause for an outage (no deadline moves on by the gap, nobody is spared giving
    /// up), so admissions that ended meanwhile stay ended.
    pub async fn switched_off(&self, showtime: ShowtimeId) {
        on_backend!(self, b => b.switched_off(showtime), local: std::convert::identity)
    }

    /// Whether `ticket` is a place of the showtime's room (waiting or admitted).
    pub async fn has_place(&self, showtime: ShowtimeId, ticket: &str) -> Result<bool, RoomDown> {
        on_backend!(self, b => b.has_place(showtime, ticket), local: Ok)
    }

    pub async fn reset(&self, showtime: ShowtimeId) -> Result<u64, RoomDown> {
        on_backend!(self, b => b.reset(showtime), local: Ok)
    }

    /// A waiting page of `ticket` connected (its place is kept alive while it stays).
    pub fn connect(&self, showtime: ShowtimeId, ticket: &str) {
        let mut connected = self.connected.lock().expect("connected waiters");
        *connected
            .entry(showtime)
            .or_default()
            .entry(ticket.to_string())
            .or_default() += 1;
    }

    pub fn disconnect(&self, showtime: ShowtimeId, ticket: &str) {
        let mut connected = self.connected.lock().expect("connected waiters");
        if let Some(room) = connected.get_mut(&showtime) {
            if let Some(n) = room.get_mut(ticket) {
                *n -= 1;
                if *n == 0 {
                    room.remove(ticket);
                }
            }
            if room.is_empty() {
                connected.remove(&showtime);
            }
        }
    }

    /// Marks every connected page's place as seen now (one call per showtime).
    pub async fn touch_connected(&self) {
        let rooms: Vec<(ShowtimeId, Vec<String>)> = {
            let connected = self.connected.lock().expect("connected waiters");
            connected
                .iter()
                .map(|(s, t)| (*s, t.keys().cloned().collect()))
                .collect()
        };
        let now = self.now();
        for (showtime, tickets) in rooms {
            match &self.backend {
                Backend::Local(b) => b.touch(showtime, now, &tickets),
                Backend::Redis(b) => b.touch(showtime, now, &tickets).await,
            }
        }
    }

    /// Waiting pages connected to this process.
    pub fn connected_pages(&self) -> usize {
        let connected = self.connected.lock().expect("connected waiters");
        connected.values().map(|t| t.values().sum::<usize>()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rate_is_measured_only_with_enough_history() {
        let mut counts = Counts {
            now: 100_000,
            recent_admits: 9,
            oldest_admit: Some(40_000),
            ..Counts::default()
        };
        assert_eq!(counts.per_minute(), None, "fewer than 10 admissions");
        counts.recent_admits = 30;
        assert_eq!(counts.per_minute(), Some(30.0));
        counts.oldest_admit = Some(90_000);
        assert_eq!(counts.per_minute(), None, "10 s of history");
    }
}
