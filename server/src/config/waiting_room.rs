//! The waiting room of hot sales: how long an admission lasts, how long a waiter may be away,
//! the room's size, polling, and what holds do when the room's state cannot be reached.

use super::Env;
use crate::waiting_room::RoomPolicy;

pub(super) fn from_env(env: &Env) -> anyhow::Result<RoomPolicy> {
    let defaults = RoomPolicy::default();
    Ok(RoomPolicy {
        admission: env.seconds(
            "WAITING_ROOM_ADMISSION_SECONDS",
            defaults.admission.as_secs(),
        )?,
        grace: env.seconds("WAITING_ROOM_GRACE_SECONDS", defaults.grace.as_secs())?,
        rehold: env.seconds("WAITING_ROOM_REHOLD_SECONDS", defaults.rehold.as_secs())?,
        room_cap: env.size("WAITING_ROOM_MAX_WAITING", defaults.room_cap as usize)? as u64,
        per_address: env.size(
            "WAITING_ROOM_PLACES_PER_ADDRESS",
            defaults.per_address as usize,
        )? as u32,
        poll: env.seconds("WAITING_ROOM_POLL_SECONDS", defaults.poll.as_secs())?,
        page_ping: env.seconds(
            "WAITING_ROOM_PAGE_PING_SECONDS",
            defaults.page_ping.as_secs(),
        )?,
        fail_open: env.flag("WAITING_ROOM_FAIL_OPEN", defaults.fail_open)?,
        auto_on: Some(env.count("WAITING_ROOM_AUTO_HOLDS_PER_SECOND", 0)?).filter(|n| *n > 0),
    })
}
