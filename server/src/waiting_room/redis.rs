//! The waiting rooms in Redis (several server processes): every operation is one call of
//! `server/lua/waiting_room.lua` on the showtime's keys, which share its hash tag.

use super::{AdmitReport, AdmitStep, Answer, Counts, Drawn, JoinLimits, Reserve, RoomDown, Step};
use crate::redis_link::{Conn, RedisLink};
use app::domain::{CustomerId, HoldId, ShowtimeId};
use std::sync::{Arc, LazyLock};

static ROOM: LazyLock<redis::Script> =
    LazyLock::new(|| redis::Script::new(include_str!("../../lua/waiting_room.lua")));

/// Loads the script (a call loads it by itself when Redis lacks it).
pub async fn load_script(link: &RedisLink) {
    let _ = link
        .run("load waiting-room script", |mut conn: Conn| async move {
            ROOM.prepare_invoke().load_async(&mut conn).await
        })
        .await;
}

const KEYS: [&str; 15] = [
    "seq", "served", "wait", "seen", "rec", "who", "addr", "active", "seats", "holds", "admits",
    "stats", "epoch", "pace", "proofs",
];

/// A place, and the room's opening draw as it concerns it.
type PlaceRow = (
    (i64, String, i64, i64, i64, i64, i64, i64),
    (i64, String, i64, i64),
);

fn drawn(seed: String, entrants: i64, at_ms: i64) -> Option<Drawn> {
    (!seed.is_empty()).then(|| Drawn {
        seed,
        entrants: entrants.max(0) as u64,
        at_ms,
    })
}

pub struct RedisRooms {
    link: Arc<RedisLink>,
}

impl RedisRooms {
    pub fn new(link: Arc<RedisLink>) -> Self {
        Self { link }
    }

    /// Runs operation `op` on the showtime's room; `None`: Redis could not be used.
    async fn call<T: redis::FromRedisValue + Send + 'static>(
        &self,
        showtime: ShowtimeId,
        op: &'static str,
        now: i64,
        args: Vec<String>,
    ) -> Option<T> {
        let prefix = self.link.prefix().to_string();
        self.link
            .run("waiting room", move |mut conn: Conn| async move {
                let mut invocation = ROOM.prepare_invoke();
                for name in KEYS {
                    invocation.key(format!("{prefix}room:{{{}}}:{name}", showtime.get()));
                }
                invocation.arg(op).arg(now);
                for a in &args {
                    invocation.arg(a);
                }
                invocation.invoke_async::<T>(&mut conn).await
            })
            .await
    }

    fn answer(row: PlaceRow) -> Answer {
        let ((code, ticket, number, served, deadline, _now, epoch, extra), draw) = row;
        let (arrival, seed, entrants, drawn_at) = draw;
        Answer {
            step: match code {
                0 => Step::Ok,
                1 => Step::Full,
                2 => Step::AddressCap,
                4 => Step::TooSoon(extra.max(1) as u64),
                5 => Step::ProofNeeded,
                _ => Step::Gone,
            },
            arrival: (arrival > 0).then_some(arrival as u64),
            drawn: drawn(seed, entrants, drawn_at),
            ticket,
            number: number.max(0) as u64,
            served: served.max(0) as u64,
            deadline_ms: (deadline >= 0).then_some(deadline),
            epoch: epoch.max(0) as u64,
        }
    }

    pub async fn join(
        &self,
        showtime: ShowtimeId,
        now: i64,
        ticket: String,
        customer: CustomerId,
        address: &str,
        limits: JoinLimits,
    ) -> Result<Answer, RoomDown> {
        let args = vec![
            ticket,
            customer.0.to_string(),
            address.to_string(),
            limits.room_cap.to_string(),
            limits.per_address.to_string(),
            if limits.must_prove { "1" } else { "0" }.to_string(),
            limits.proof.as_ref().map_or(String::new(), |p| p.0.clone()),
            limits.proof.as_ref().map_or(0, |p| p.1).to_string(),
        ];
        let row: PlaceRow = self
            .call(showtime, "join", now, args)
            .await
            .ok_or(RoomDown)?;
        Ok(Self::answer(row))
    }

    pub async fn poll(
        &self,
        showtime: ShowtimeId,
        now: i64,
        ticket: Option<&str>,
        customer: CustomerId,
        least_ms: i64,
    ) -> Result<Answer, RoomDown> {
        let args = vec![
            ticket.unwrap_or_default().to_string(),
            customer.0.to_string(),
            least_ms.to_string(),
        ];
        let row: PlaceRow = self
            .call(showtime, "poll", now, args)
            .await
            .ok_or(RoomDown)?;
        Ok(Self::answer(row))
    }

    pub async fn touch(&self, showtime: ShowtimeId, now: i64, tickets: &[String]) {
        for chunk in tickets.chunks(1000) {
            let _: Option<i64> = self.call(showtime, "touch", now, chunk.to_vec()).await;
        }
    }

    pub async fn admit(
        &self,
        showtime: ShowtimeId,
        now: i64,
        step: &AdmitStep,
    ) -> Result<AdmitReport, RoomDown> {
        let args = vec![
            step.max_active.to_string(),
            step.per_minute.to_string(),
            if step.paused { "1" } else { "0" }.to_string(),
            step.grace_ms.to_string(),
            step.admission_ms.to_string(),
            step.most_given_up.to_string(),
            step.stay_ms.max(step.admission_ms).to_string(),
            step.draw_seed.clone().unwrap_or_default(),
        ];
        let (admitted, expired, given_up, _served, _now): (u64, u64, u64, u64, i64) = self
            .call(showtime, "admit", now, args)
            .await
            .ok_or(RoomDown)?;
        Ok(AdmitReport {
            admitted,
            expired,
            given_up,
        })
    }

    pub async fn counts(
        &self,
        showtime: ShowtimeId,
        now: i64,
        grace_ms: i64,
    ) -> Result<Counts, RoomDown> {
        let (v, seed): (Vec<i64>, String) = self
            .call(showtime, "view", now, vec![grace_ms.to_string()])
            .await
            .ok_or(RoomDown)?;
        let at = |i: usize| v.get(i).copied().unwrap_or(0);
        let n = |i: usize| at(i).max(0) as u64;
        Ok(Counts {
            waiting: n(0),
            served: n(1),
            inside: n(2),
            now: at(3),
            epoch: n(4),
            recent_admits: n(5),
            oldest_admit: (at(6) >= 0).then_some(at(6)),
            admitted: n(7),
            expired: n(8),
            abandoned: n(9),
            drawn: drawn(seed, at(10), at(11)),
        })
    }

    pub async fn reserve(
        &self,
        showtime: ShowtimeId,
        now: i64,
        ticket: Option<&str>,
        customer: CustomerId,
        seats: u32,
        most: u32,
    ) -> Result<Reserve, RoomDown> {
        let args = vec![
            ticket.unwrap_or_default().to_string(),
            customer.0.to_string(),
            seats.to_string(),
            most.to_string(),
        ];
        let (code, used, ticket): (i64, u32, String) = self
            .call(showtime, "reserve", now, args)
            .await
            .ok_or(RoomDown)?;
        Ok(match code {
            0 => Reserve::Reserved(ticket),
            2 => Reserve::TooManySeats(used),
            _ => Reserve::NotAdmitted,
        })
    }

    pub async fn unreserve(
        &self,
        showtime: ShowtimeId,
        ticket: &str,
        seats: u32,
    ) -> Result<(), RoomDown> {
        let args = vec![ticket.to_string(), seats.to_string()];
        let done: Option<i64> = self.call(showtime, "unreserve", 0, args).await;
        done.map(drop).ok_or(RoomDown)
    }

    pub async fn bind(
        &self,
        showtime: ShowtimeId,
        ticket: &str,
        hold: HoldId,
        expires_ms: i64,
    ) -> Result<(), RoomDown> {
        let args = vec![ticket.to_string(), hold.to_string(), expires_ms.to_string()];
        let done: Option<i64> = self.call(showtime, "bind", 0, args).await;
        done.map(drop).ok_or(RoomDown)
    }

    pub async fn hold_ended(
        &self,
        showtime: ShowtimeId,
        now: i64,
        hold: HoldId,
        keep_ms: i64,
    ) -> Result<(), RoomDown> {
        let args = vec![hold.to_string(), keep_ms.to_string()];
        let done: Option<i64> = self.call(showtime, "ended", now, args).await;
        done.map(drop).ok_or(RoomDown)
    }

    pub async fn switched_off(&self, showtime: ShowtimeId) {
        let _: Option<i64> = self.call(showtime, "off", 0, Vec::new()).await;
    }

    pub async fn has_place(&self, showtime: ShowtimeId, ticket: &str) -> Result<bool, RoomDown> {
        let known: i64 = self
            .call(showtime, "known", 0, vec![ticket.to_string()])
            .await
            .ok_or(RoomDown)?;
        Ok(known == 1)
    }

    pub async fn reset(&self, showtime: ShowtimeId) -> Result<u64, RoomDown> {
        self.call(showtime, "reset", 0, Vec::new())
            .await
            .ok_or(RoomDown)
    }
}
