//! A consumer group's watchdog: notices a partition that has events waiting and whose committed
//! offset has not moved for a while, so that this member can leave the group and join it again.
//!
//! A group's members should never leave a partition unread, but brokers can: tansu 0.6, the
//! broker of the tests and the reference deployment, drops a member whose heartbeats stopped (a
//! killed instance) without a new rebalance when it notices on another member's heartbeat, and
//! the dead member's partitions then belong to nobody until the next member joins or leaves. A
//! member that leaves and joins again starts that rebalance. With a broker that rebalances
//! itself, the watchdog never fires; at worst it costs one rebalance.

use std::collections::HashMap;
use std::time::{Duration, Instant};

/// One partition as the group stands: the offset it committed and the partition's end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Partition {
    pub id: i32,
    pub committed: i64,
    pub end: i64,
}

/// The longest wait after rejoins that did not help (a broker whose ends are wrong).
const MOST_PATIENCE: Duration = Duration::from_secs(600);

/// Remembers since when each partition with events waiting has been at its committed offset.
pub struct Stall {
    /// Partition → (its committed offset, first seen there with events waiting).
    waiting: HashMap<i32, (i64, Instant)>,
    base: Duration,
    patience: Duration,
}

impl Stall {
    /// `patience`: how long a partition may wait without moving before this member rejoins.
    pub fn new(patience: Duration) -> Self {
        Self {
            waiting: HashMap::new(),
            base: patience,
            patience,
        }
    }

    /// Looks at the group now; the partition stuck longer than the patience, if any. The
    /// caller rejoins and says so with [`Stall::rejoined`].
    pub fn observe(&mut self, partitions: &[Partition], now: Instant) -> Option<i32> {
        let mut moved = false;
        let mut stuck = None;
        for p in partitions {
            if p.end <= p.committed {
                moved |= self.waiting.remove(&p.id).is_some();
                continue;
            }
            match self.waiting.get(&p.id) {
                Some(&(at, since)) if at == p.committed => {
                    if now.duration_since(since) >= self.patience && stuck.is_none() {
                        stuck = Some(p.id);
                    }
                }
                _ => {
                    moved |= self.waiting.contains_key(&p.id);
                    self.waiting.insert(p.id, (p.committed, now));
                }
            }
        }
        if moved || self.waiting.is_empty() {
            // Something moves again, or nothing waits: the next stall gets the usual patience.
            self.patience = self.base;
        }
        stuck
    }

    /// This member left the group and joined it again: every partition starts afresh, and the
    /// next rejoin waits twice as long unless something moved meanwhile.
    pub fn rejoined(&mut self) {
        self.waiting.clear();
        self.patience = (self.patience * 2).min(MOST_PATIENCE);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(id: i32, committed: i64, end: i64) -> Partition {
        Partition { id, committed, end }
    }

    #[test]
    fn a_partition_with_events_waiting_that_does_not_move_is_stuck_after_the_patience() {
        let t0 = Instant::now();
        let mut stall = Stall::new(Duration::from_secs(30));
        let group = [at(0, 10, 10), at(1, 4, 9), at(2, 7, 7)];
        assert_eq!(stall.observe(&group, t0), None);
        assert_eq!(stall.observe(&group, t0 + Duration::from_secs(29)), None);
        assert_eq!(stall.observe(&group, t0 + Duration::from_secs(30)), Some(1));
    }

    #[test]
    fn a_partition_that_moves_or_is_read_to_its_end_is_not_stuck() {
        let t0 = Instant::now();
        let s = Duration::from_secs;
        let mut stall = Stall::new(s(30));
        assert_eq!(stall.observe(&[at(0, 1, 5)], t0), None);
        // Moving, though never at the end: each move starts the wait again.
        assert_eq!(stall.observe(&[at(0, 2, 9)], t0 + s(25)), None);
        assert_eq!(stall.observe(&[at(0, 2, 9)], t0 + s(50)), None);
        assert_eq!(stall.observe(&[at(0, 2, 9)], t0 + s(55)), Some(0));
        // Read to the end, then behind again: a fresh wait.
        assert_eq!(stall.observe(&[at(0, 9, 9)], t0 + s(60)), None);
        assert_eq!(stall.observe(&[at(0, 9, 12)], t0 + s(61)), None);
        assert_eq!(stall.observe(&[at(0, 9, 12)], t0 + s(90)), None);
        assert_eq!(stall.observe(&[at(0, 9, 12)], t0 + s(91)), Some(0));
        // A committed offset past the end the broker states is not a wait.
        assert_eq!(stall.observe(&[at(1, 24, 22)], t0 + s(200)), None);
        assert_eq!(stall.observe(&[at(1, 24, 22)], t0 + s(900)), None);
    }

    #[test]
    fn a_rejoin_that_does_not_help_doubles_the_wait_and_progress_restores_it() {
        let t0 = Instant::now();
        let s = Duration::from_secs;
        let mut stall = Stall::new(s(30));
        let stuck = [at(0, 3, 8)];
        stall.observe(&stuck, t0);
        assert_eq!(stall.observe(&stuck, t0 + s(30)), Some(0));
        stall.rejoined();
        stall.observe(&stuck, t0 + s(31));
        assert_eq!(stall.observe(&stuck, t0 + s(61)), None);
        assert_eq!(stall.observe(&stuck, t0 + s(91)), Some(0));
        stall.rejoined();
        stall.observe(&stuck, t0 + s(92));
        // It moves: the usual patience again.
        assert_eq!(stall.observe(&[at(0, 5, 8)], t0 + s(100)), None);
        assert_eq!(stall.observe(&[at(0, 5, 8)], t0 + s(130)), Some(0));
        // Never more than ten minutes.
        for _ in 0..10 {
            stall.rejoined();
        }
        assert_eq!(stall.patience, MOST_PATIENCE);
        // A rejoin after which the group read everything before the next look: the usual
        // patience again.
        assert_eq!(stall.observe(&[at(0, 8, 8)], t0 + s(200)), None);
        assert_eq!(stall.patience, s(30));
    }
}
