//! The waiting rooms in this process (the embedded mode, one server): the same operations as
//! `server/lua/waiting_room.lua`, under one lock per process.

use super::local_room::{Place, Room, FIVE_MINUTES};
use super::{AdmitReport, Answer, Counts, JoinLimits, Reserve, Step};
use app::domain::{CustomerId, HoldId, ShowtimeId};
use std::collections::HashMap;
use std::sync::Mutex;

#[derive(Default)]
pub struct LocalRooms {
    rooms: Mutex<HashMap<ShowtimeId, Room>>,
}

impl LocalRooms {
    fn with<T>(&self, showtime: ShowtimeId, f: impl FnOnce(&mut Room) -> T) -> T {
        let mut rooms = self.rooms.lock().expect("waiting rooms");
        f(rooms.entry(showtime).or_default())
    }

    pub fn join(
        &self,
        showtime: ShowtimeId,
        now: i64,
        ticket: String,
        customer: CustomerId,
        address: &str,
        limits: JoinLimits,
    ) -> Answer {
        self.with(showtime, |room| {
            room.used = now;
            if let Some(existing) = room.who.get(&customer).cloned() {
                if room.places.contains_key(&existing) {
                    return room.answer(Step::Ok, &existing);
                }
            }
            if limits.must_prove {
                return Answer::refused(Step::ProofNeeded, room.epoch);
            }
            // A proof makes one place: used before, it proves nothing.
            if let Some((challenge, _)) = &limits.proof {
                if room.used_proofs.contains_key(challenge) {
                    return Answer::refused(Step::ProofNeeded, room.epoch);
                }
            }
            if room.wait.len() as u64 >= limits.room_cap {
                return Answer::refused(Step::Full, room.epoch);
            }
            if !address.is_empty()
                && room.addr.get(address).copied().unwrap_or(0) >= limits.per_address
            {
                return Answer::refused(Step::AddressCap, room.epoch);
            }
            room.seq += 1;
            let number = room.seq;
            room.wait.insert(number, ticket.clone());
            room.seen.insert((now, ticket.clone()));
            room.places.insert(
                ticket.clone(),
                Place {
                    number,
                    customer,
                    address: address.to_string(),
                    next_poll: 0,
                    seen: now,
                    seats: 0,
                    hold: None,
                    arrival: None,
                    cap: i64::MAX,
                },
            );
            room.who.insert(customer, ticket.clone());
            if let Some((challenge, forget_at)) = limits.proof {
                room.used_proofs.insert(challenge, forget_at);
            }
            if !address.is_empty() {
                *room.addr.entry(address.to_string()).or_default() += 1;
            }
            room.answer(Step::Ok, &ticket)
        })
    }

    pub fn poll(
        &self,
        showtime: ShowtimeId,
        now: i64,
        ticket: Option<&str>,
        customer: CustomerId,
        least_ms: i64,
    ) -> Answer {
        self.with(showtime, |room| {
            room.used = now;
            let Some(ticket) = room.ticket_of(ticket, customer) else {
                return Answer::gone(room.epoch);
            };
            let Some(place) = room.places.get_mut(&ticket) else {
                return Answer::gone(room.epoch);
            };
            // A ticket is its customer's: someone else's tells nothing and changes nothing.
            if place.customer != customer {
                return Answer::gone(room.epoch);
            }
            // Only waiting places are paced: an admitted shopper's pages may ask at once.
            if now < place.next_poll && !room.active.contains_key(&ticket) {
                let wait = place.next_poll - now;
                return Answer {
                    step: Step::TooSoon(wait as u64),
                    ..room.answer(Step::Ok, &ticket)
                };
            }
            place.next_poll = now + least_ms;
            room.see(&ticket, now);
            room.answer(Step::Ok, &ticket)
        })
    }

    pub fn touch(&self, showtime: ShowtimeId, now: i64, tickets: &[String]) {
        self.with(showtime, |room| {
            for t in tickets {
                room.see(t, now);
            }
        })
    }

    pub fn admit(&self, showtime: ShowtimeId, now: i64, step: &super::AdmitStep) -> AdmitReport {
        self.with(showtime, |room| {
            // A room nobody stepped for a while (the process was stopped): deadlines move on
            // by the gap, and nobody is given up until a grace period has passed. Not so after
            // the room was turned off: its admissions ended meanwhile.
            let outage = !std::mem::take(&mut room.switched_off);
            if outage && room.last_step > 0 && now - room.last_step > 5000 {
                let gap = now - room.last_step;
                room.active.values_mut().for_each(|d| *d += gap);
                for (ticket, place) in room.places.iter_mut() {
                    if place.cap != i64::MAX && room.active.contains_key(ticket) {
                        place.cap += gap;
                    }
                }
                room.quiet_until = now + step.grace_ms;
            }
            room.last_step = now;
            room.used_proofs.retain(|_, forget_at| *forget_at > now);
            let ended: Vec<String> = room
                .active
                .iter()
                .filter(|(_, deadline)| **deadline <= now)
                .map(|(t, _)| t.clone())
                .take(step.most_given_up)
                .collect();
            for t in &ended {
                room.forget(t);
            }
            let quiet = now < room.quiet_until;
            let given_up: Vec<String> = room
                .seen
                .iter()
                .take_while(|(seen, _)| !quiet && *seen < now - step.grace_ms)
                .take(step.most_given_up)
                .map(|(_, t)| t.clone())
                .collect();
            for t in &given_up {
                room.leave_queue(t);
                room.forget(t);
            }
            // Sales have opened on a room that shuffles: the draw, once, before anyone is let in.
            if let Some(seed) = &step.draw_seed {
                if room.drawn.is_none() && room.admitted == 0 {
                    room.draw(seed.clone(), now);
                }
            }
            while room
                .admits
                .front()
                .is_some_and(|t| *t <= now - FIVE_MINUTES)
            {
                room.admits.pop_front();
            }
            let last_minute = room.admits.iter().filter(|t| **t > now - 60_000).count() as i64;
            let mut budget = (step.max_active as i64 - room.active.len() as i64)
                .min(step.per_minute as i64 - last_minute);
            if step.paused {
                budget = 0;
            }
            let mut admitted = 0;
            // One admission every 60 s / rate: an idle room catches up one second's worth at most.
            let interval = 60_000.0 / step.per_minute.max(1) as f64;
            let mut pace = room.pace.max((now - 1000) as f64);
            while budget > 0 && pace <= now as f64 {
                let Some((&number, ticket)) = room.wait.iter().next() else {
                    break;
                };
                let ticket = ticket.clone();
                room.leave_queue(&ticket);
                room.served = number;
                if let Some(p) = room.places.get_mut(&ticket) {
                    p.cap = now + step.stay_ms.max(step.admission_ms);
                }
                room.active.insert(ticket, now + step.admission_ms);
                room.admits.push_back(now);
                budget -= 1;
                admitted += 1;
                pace += interval;
            }
            room.pace = pace;
            room.served = match room.wait.keys().next() {
                Some(first) => room.served.max(first - 1),
                None => room.served.max(room.seq),
            };
            room.admitted += admitted;
            room.expired += ended.len() as u64;
            room.abandoned += given_up.len() as u64;
            AdmitReport {
                admitted,
                expired: ended.len() as u64,
                given_up: given_up.len() as u64,
            }
        })
    }

    pub fn counts(&self, showtime: ShowtimeId, now: i64, grace_ms: i64) -> Counts {
        self.with(showtime, |room| Counts {
            waiting: room
                .seen
                .iter()
                .filter(|(s, _)| *s >= now - grace_ms)
                .count() as u64,
            served: room.served,
            inside: room.active.len() as u64,
            now,
            epoch: room.epoch,
            recent_admits: room
                .admits
                .iter()
                .filter(|t| **t >= now - FIVE_MINUTES)
                .count() as u64,
            oldest_admit: room
                .admits
                .iter()
                .find(|t| **t >= now - FIVE_MINUTES)
                .copied(),
            admitted: room.admitted,
            expired: room.expired,
            abandoned: room.abandoned,
            drawn: room.drawn.clone(),
        })
    }

    pub fn reserve(
        &self,
        showtime: ShowtimeId,
        now: i64,
        ticket: Option<&str>,
        customer: CustomerId,
        seats: u32,
        most: u32,
    ) -> Reserve {
        self.with(showtime, |room| {
            let Some(ticket) = room.ticket_of(ticket, customer) else {
                return Reserve::NotAdmitted;
            };
            let live = room.active.get(&ticket).is_some_and(|d| *d > now);
            match room.places.get_mut(&ticket) {
                Some(p) if p.customer == customer && live => {
                    if p.seats + seats > most {
                        Reserve::TooManySeats(p.seats)
                    } else {
                        p.seats += seats;
                        Reserve::Reserved(ticket)
                    }
                }
                _ => Reserve::NotAdmitted,
            }
        })
    }

    pub fn unreserve(&self, showtime: ShowtimeId, ticket: &str, seats: u32) {
        self.with(showtime, |room| {
            if let Some(p) = room.places.get_mut(ticket) {
                p.seats = p.seats.saturating_sub(seats);
            }
        })
    }

    pub fn bind(&self, showtime: ShowtimeId, ticket: &str, hold: HoldId, expires_ms: i64) {
        self.with(showtime, |room| {
            if !room.active.contains_key(ticket) {
                return;
            }
            let Some(p) = room.places.get_mut(ticket) else {
                return;
            };
            if let Some(old) = p.hold.replace(hold) {
                room.holds.remove(&old);
            }
            room.holds.insert(hold, ticket.to_string());
            // As long as the hold, never past the admission's cap.
            let cap = p.cap;
            room.active.insert(ticket.to_string(), expires_ms.min(cap));
        })
    }

    pub fn hold_ended(&self, showtime: ShowtimeId, now: i64, hold: HoldId, keep_ms: i64) {
        self.with(showtime, |room| {
            let Some(ticket) = room.holds.remove(&hold) else {
                return;
            };
            if let Some(p) = room.places.get_mut(&ticket) {
                p.hold = None;
            }
            if let Some(deadline) = room.active.get_mut(&ticket) {
                *deadline = (*deadline).min(now + keep_ms);
            }
        })
    }

    /// Drops the rooms of every showtime but `open` (turned off, or their sale is over) that
    /// nobody joined or asked for a minute.
    pub fn retain(&self, open: &[ShowtimeId], now: i64) {
        let mut rooms = self.rooms.lock().expect("waiting rooms");
        rooms.retain(|s, room| open.contains(s) || room.used > now - 60_000);
    }

    pub fn switched_off(&self, showtime: ShowtimeId) {
        let mut rooms = self.rooms.lock().expect("waiting rooms");
        if let Some(room) = rooms.get_mut(&showtime) {
            room.switched_off = true;
        }
    }

    pub fn has_place(&self, showtime: ShowtimeId, ticket: &str) -> bool {
        let rooms = self.rooms.lock().expect("waiting rooms");
        rooms
            .get(&showtime)
            .is_some_and(|room| room.places.contains_key(ticket))
    }

    pub fn reset(&self, showtime: ShowtimeId) -> u64 {
        self.with(showtime, |room| {
            let epoch = room.epoch + 1;
            *room = Room {
                epoch,
                ..Room::default()
            };
            epoch
        })
    }
}
