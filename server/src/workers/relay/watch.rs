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
    /// When the group was last looked at; a look after a long gap (the broker away, this member
    /// busy retrying an event) starts every wait afresh.
    last: Option<Instant>,
    /// The longest gap between two looks that keeps the waits.
    gap: Duration,
    base: Duration,
    patience: Duration,
}

impl Stall {
    /// `patience`: how long a partition may wait without moving before this member rejoins;
    /// `every`: how often the caller looks.
    pub fn new(patience: Duration, every: Duration) -> Self {
        Self {
            waiting: HashMap::new(),
            last: None,
            gap: every * 3,
            base: patience,
            patience,
        }
    }

    /// Looks at the partitions this member does not read itself (those it reads, it knows
    /// about); the partition stuck longer than the patience, if any. A partition missing from
    /// `partitions` (not read this time) starts afresh. The caller rejoins and says so with
    /// [`Stall::rejoined`].
    pub fn observe(&mut self, partitions: &[Partition], now: Instant) -> Option<i32> {
        if self
            .last
            .is_some_and(|last| now.duration_since(last) > self.gap)
        {
            self.waiting.clear();
        }
        self.last = Some(now);
        self.waiting.retain(|id, _| {
            partitions
                .iter()
                .any(|p| p.id == *id && p.end > p.committed)
        });
        let mut stuck = None;
        for p in partitions.iter().filter(|p| p.end > p.committed) {
            match self.waiting.get(&p.id) {
                Some(&(at, since)) if at == p.committed => {
                    if now.duration_since(since) >= self.patience && stuck.is_none() {
                        stuck = Some(p.id);
                    }
                }
                _ => {
                    self.waiting.insert(p.id, (p.committed, now));
                }
            }
        }
        if self.waiting.is_empty() {
            // The group has read everything: the next stall gets the usual patience.
            self.patience = self.base;
        }
        stuck
    }

    /// The group could not be read: what was seen before may be stale by the next look.
    pub fn unread(&mut self) {
        self.waiting.clear();
    }

    /// This member left the group and joined it again: every partition starts afresh, and the
    /// next rejoin waits twice as long, until the group has read everything (a stuck member
    /// elsewhere, which rejoining does not help, costs a rebalance less and less often).
    pub fn rejoined(&mut self) {
        self.waiting.clear();
        self.patience = (self.patience * 2).min(MOST_PATIENCE);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EVERY: Duration = Duration::from_secs(10);

    fn at(id: i32, committed: i64, end: i64) -> Partition {
        Partition { id, committed, end }
    }

    fn s(n: u64) -> Duration {
        Duration::from_secs(n)
    }

    /// Looks every 10 s from `from` to `to` (inclusive) at the same partitions; the last answer.
    fn looks(
        stall: &mut Stall,
        parts: &[Partition],
        t0: Instant,
        from: u64,
        to: u64,
    ) -> Option<i32> {
        let mut last = None;
        for t in (from..=to).step_by(10) {
            last = stall.observe(parts, t0 + s(t));
        }
        last
    }

    #[test]
    fn a_partition_with_events_waiting_that_does_not_move_is_stuck_after_the_patience() {
        let t0 = Instant::now();
        let mut stall = Stall::new(s(30), EVERY);
        let group = [at(0, 10, 10), at(1, 4, 9), at(2, 7, 7)];
        assert_eq!(looks(&mut stall, &group, t0, 0, 20), None);
        assert_eq!(stall.observe(&group, t0 + s(29)), None);
        assert_eq!(stall.observe(&group, t0 + s(30)), Some(1));
    }

    #[test]
    fn a_partition_that_moves_or_is_read_to_its_end_is_not_stuck() {
        let t0 = Instant::now();
        let mut stall = Stall::new(s(30), EVERY);
        assert_eq!(stall.observe(&[at(0, 1, 5)], t0), None);
        // Moving, though never at the end: each move starts the wait again.
        assert_eq!(looks(&mut stall, &[at(0, 2, 9)], t0, 10, 30), None);
        assert_eq!(stall.observe(&[at(0, 2, 9)], t0 + s(40)), Some(0));
        // Read to the end, then behind again: a fresh wait.
        assert_eq!(stall.observe(&[at(0, 9, 9)], t0 + s(50)), None);
        assert_eq!(looks(&mut stall, &[at(0, 9, 12)], t0, 60, 80), None);
        assert_eq!(stall.observe(&[at(0, 9, 12)], t0 + s(90)), Some(0));
        // A committed offset past the end the broker states is not a wait.
        assert_eq!(looks(&mut stall, &[at(1, 24, 22)], t0, 100, 900), None);
    }

    #[test]
    fn a_look_after_a_gap_or_a_failed_read_or_without_the_partition_starts_afresh() {
        let t0 = Instant::now();
        let mut stall = Stall::new(s(30), EVERY);
        let stuck = [at(0, 3, 8)];
        // Seen at 0, then not looked at for 40 s (the broker frozen, or a retry here).
        stall.observe(&stuck, t0);
        assert_eq!(stall.observe(&stuck, t0 + s(40)), None);
        assert_eq!(looks(&mut stall, &stuck, t0, 50, 60), None);
        assert_eq!(stall.observe(&stuck, t0 + s(70)), Some(0));
        // A failed read forgets what was seen.
        let mut stall = Stall::new(s(30), EVERY);
        looks(&mut stall, &stuck, t0, 0, 20);
        stall.unread();
        assert_eq!(looks(&mut stall, &stuck, t0, 30, 50), None);
        assert_eq!(stall.observe(&stuck, t0 + s(60)), Some(0));
        // So does a look that did not get the partition.
        let mut stall = Stall::new(s(30), EVERY);
        looks(&mut stall, &stuck, t0, 0, 20);
        stall.observe(&[], t0 + s(25));
        assert_eq!(looks(&mut stall, &stuck, t0, 30, 50), None);
        assert_eq!(stall.observe(&stuck, t0 + s(60)), Some(0));
    }

    #[test]
    fn a_rejoin_that_does_not_help_doubles_the_wait_until_the_group_has_read_everything() {
        let t0 = Instant::now();
        let mut stall = Stall::new(s(30), EVERY);
        let stuck = [at(0, 3, 8), at(1, 5, 9)];
        assert_eq!(looks(&mut stall, &stuck, t0, 0, 30), Some(0));
        stall.rejoined();
        // Partition 0 still stuck; partition 1 moves meanwhile (another member reads it): the
        // wait stays doubled.
        for t in (40..=80).step_by(10) {
            assert_eq!(
                stall.observe(&[at(0, 3, 8), at(1, 5 + t as i64, 99)], t0 + s(t)),
                None
            );
        }
        assert_eq!(
            stall.observe(&[at(0, 3, 8), at(1, 99, 99)], t0 + s(90)),
            None
        );
        assert_eq!(
            stall.observe(&[at(0, 3, 8), at(1, 99, 99)], t0 + s(100)),
            Some(0)
        );
        stall.rejoined();
        assert_eq!(looks(&mut stall, &stuck, t0, 110, 220), None);
        assert_eq!(stall.observe(&stuck, t0 + s(230)), Some(0));
        // Never more than ten minutes.
        for _ in 0..10 {
            stall.rejoined();
        }
        assert_eq!(stall.patience, MOST_PATIENCE);
        // The group read everything: the usual patience again.
        assert_eq!(
            stall.observe(&[at(0, 8, 8), at(1, 9, 9)], t0 + s(240)),
            None
        );
        assert_eq!(stall.patience, s(30));
    }
}
