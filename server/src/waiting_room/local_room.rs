//! One showtime's waiting room in this process: its state and the steps every operation of
//! `local.rs` is made of (the same as `server/lua/waiting_room.lua`'s helpers).

use super::{Answer, Drawn, Step};
use app::domain::{CustomerId, HoldId};
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

/// One showtime's room.
#[derive(Default)]
pub(super) struct Room {
    pub(super) seq: u64,
    pub(super) served: u64,
    pub(super) epoch: u64,
    /// Waiting places by number.
    pub(super) wait: BTreeMap<u64, String>,
    /// Waiting places by last sign of life (ms, ticket).
    pub(super) seen: BTreeSet<(i64, String)>,
    pub(super) places: HashMap<String, Place>,
    pub(super) who: HashMap<CustomerId, String>,
    pub(super) addr: HashMap<String, u32>,
    /// Admitted or holding places: ticket → deadline (ms).
    pub(super) active: HashMap<String, i64>,
    pub(super) holds: HashMap<HoldId, String>,
    /// Admission times (ms) of the last 5 minutes.
    pub(super) admits: VecDeque<i64>,
    /// When the next admission may come (ms): admissions are spread evenly over the minute.
    pub(super) pace: f64,
    pub(super) admitted: u64,
    pub(super) expired: u64,
    pub(super) abandoned: u64,
    /// The last admission step (ms), and until when nobody is given up after a gap.
    pub(super) last_step: i64,
    pub(super) quiet_until: i64,
    /// Proof-of-work challenges that made a place, until when they are remembered (ms).
    pub(super) used_proofs: HashMap<String, i64>,
    /// Turned off since its last step (its next step is no outage's).
    pub(super) switched_off: bool,
    /// When it was last joined or asked (ms): a room is kept a minute past it.
    pub(super) used: i64,
    pub(super) drawn: Option<Drawn>,
}

pub(super) struct Place {
    pub(super) number: u64,
    pub(super) customer: CustomerId,
    pub(super) address: String,
    pub(super) next_poll: i64,
    pub(super) seen: i64,
    pub(super) seats: u32,
    pub(super) hold: Option<HoldId>,
    /// Rank by arrival in the opening draw, if it was in it.
    pub(super) arrival: Option<u64>,
    /// Once admitted: the admission ends by then at the latest (ms), holds or not.
    pub(super) cap: i64,
}

pub(super) const FIVE_MINUTES: i64 = 300_000;

impl Room {
    pub(super) fn answer(&self, code: Step, ticket: &str) -> Answer {
        match self.places.get(ticket) {
            None => Answer::gone(self.epoch),
            Some(p) => Answer {
                step: code,
                ticket: ticket.to_string(),
                number: p.number,
                served: self.served,
                deadline_ms: self.active.get(ticket).copied(),
                epoch: self.epoch,
                arrival: p.arrival,
                drawn: self.drawn.clone(),
            },
        }
    }

    pub(super) fn leave_queue(&mut self, ticket: &str) {
        if let Some(p) = self.places.get(ticket) {
            self.wait.remove(&p.number);
            self.seen.remove(&(p.seen, ticket.to_string()));
            if !p.address.is_empty() {
                if let Some(n) = self.addr.get_mut(&p.address) {
                    *n = n.saturating_sub(1);
                    if *n == 0 {
                        self.addr.remove(&p.address);
                    }
                }
            }
        }
    }

    pub(super) fn forget(&mut self, ticket: &str) {
        if let Some(p) = self.places.remove(ticket) {
            if self.who.get(&p.customer).map(String::as_str) == Some(ticket) {
                self.who.remove(&p.customer);
            }
            if let Some(hold) = p.hold {
                self.holds.remove(&hold);
            }
        }
        self.active.remove(ticket);
    }

    pub(super) fn ticket_of(&self, ticket: Option<&str>, customer: CustomerId) -> Option<String> {
        match ticket {
            Some(t) => Some(t.to_string()),
            None => self.who.get(&customer).cloned(),
        }
    }

    /// The opening draw: every waiting place (in order of arrival) is given one of the
    /// numbers they hold between them, in the order `draw::order` makes from `seed`.
    pub(super) fn draw(&mut self, seed: String, now: i64) {
        let (numbers, tickets): (Vec<u64>, Vec<String>) =
            self.wait.iter().map(|(n, t)| (*n, t.clone())).unzip();
        let order = super::draw::order(&seed, tickets.len());
        self.wait.clear();
        for (number, arrival) in numbers.iter().zip(order) {
            let ticket = &tickets[arrival];
            self.wait.insert(*number, ticket.clone());
            if let Some(p) = self.places.get_mut(ticket) {
                p.number = *number;
                p.arrival = Some(arrival as u64 + 1);
            }
        }
        self.drawn = Some(Drawn {
            seed,
            entrants: tickets.len() as u64,
            at_ms: now,
        });
        self.epoch += 1;
    }

    pub(super) fn see(&mut self, ticket: &str, now: i64) {
        if let Some(p) = self.places.get_mut(ticket) {
            if self.wait.contains_key(&p.number) {
                self.seen.remove(&(p.seen, ticket.to_string()));
                p.seen = now;
                self.seen.insert((now, ticket.to_string()));
            }
        }
    }
}
