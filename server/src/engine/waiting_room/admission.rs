//! The admission a customer's hold spends: checked and its seats reserved before the hold,
//! bound to the hold after it (or given back), ended with the hold; and the automatic switch
//! that turns a crowded showtime's room on.

use super::*;

/// A seat reservation against an admission, settled once the hold is decided. A request that
/// ends before (its client went away, its deadline passed) is settled by a task of its own: the
/// customer's live hold, if the hold went through, carries the admission; else the seats go back.
pub(crate) struct Spent {
    showtime: ShowtimeId,
    ticket: String,
    seats: u32,
    customer: CustomerId,
    room: Arc<WaitingRoom>,
    store: Arc<dyn Store>,
    now: Option<chrono::DateTime<chrono::Utc>>,
    settled: bool,
}

impl Drop for Spent {
    fn drop(&mut self) {
        if self.settled {
            return;
        }
        let (room, store) = (self.room.clone(), self.store.clone());
        let (showtime, customer, now) = (self.showtime, self.customer, self.now);
        let (ticket, seats) = (std::mem::take(&mut self.ticket), self.seats);
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                match store.active_hold(showtime, customer, now).await {
                    Ok(Some(held)) => {
                        let until = held.expires_at.timestamp_millis();
                        room.bind(showtime, &ticket, held.hold_id, until).await
                    }
                    _ => room.unreserve(showtime, &ticket, seats).await,
                }
            });
        }
    }
}

fn down(policy_fail_open: bool) -> Result<Option<Spent>, InventoryError> {
    if policy_fail_open {
        Ok(None)
    } else {
        Err(InventoryError::QueueUnavailable)
    }
}

impl Engine {
    /// Before a customer's hold of `seats` seats: while the showtime's room is on, the hold
    /// needs a live admission of this customer with seats to spare (refused otherwise, and when
    /// the room cannot be reached, unless it fails open). `None`: nothing to settle.
    pub(in crate::engine) async fn spend_admission(
        &self,
        showtime: ShowtimeId,
        holder: &Holder,
        seats: usize,
    ) -> Result<Option<Spent>, InventoryError> {
        let Some(proof) = holder.admission() else {
            return Ok(None); // staff never queue
        };
        let settings = self.room_settings(showtime).await?;
        if !settings.on {
            self.count_attempt(showtime, settings).await;
            return Ok(None);
        }
        let room = &self.rooms.room;
        let customer = holder.customer_id();
        let ticket = match proof {
            AdmissionProof::None => return Err(InventoryError::QueueRequired(showtime)),
            AdmissionProof::Session => None,
            AdmissionProof::Token(token) => Some(
                room.verify(token, showtime, customer)
                    .ok_or(InventoryError::QueueRequired(showtime))?,
            ),
        };
        let seats = seats as u32;
        match room
            .reserve(showtime, ticket.as_deref(), customer, seats)
            .await
        {
            Ok(Reserve::Reserved(ticket)) => Ok(Some(Spent {
                showtime,
                ticket,
                seats,
                customer,
                room: room.clone(),
                store: self.store.clone(),
                now: self.clock.now(),
                settled: false,
            })),
            Ok(Reserve::NotAdmitted) => Err(InventoryError::QueueRequired(showtime)),
            Ok(Reserve::TooManySeats(used)) => Err(InventoryError::AdmissionSeatLimit(used)),
            Err(RoomDown) => {
                tracing::warn!(%showtime, fail_open = room.policy.fail_open, "waiting room unreachable at a hold");
                down(room.policy.fail_open)
            }
        }
    }

    /// Counts a customer's hold attempt on a showtime whose room is off; past `auto_on` in one
    /// second, turns its room on (with its settings as they are). This attempt goes on; the
    /// next ones queue.
    async fn count_attempt(&self, showtime: ShowtimeId, settings: WaitingRoomSettings) {
        let Some(limit) = self.rooms.room.policy.auto_on else {
            return;
        };
        let second = self.rooms.room.wall_now().div_euclid(1000);
        let crowded = {
            let mut attempts = self.rooms.attempts.lock().expect("hold attempts");
            let entry = attempts.entry(showtime).or_insert((second, 0));
            if entry.0 != second {
                *entry = (second, 0);
            }
            entry.1 += 1;
            entry.1 == limit + 1
        };
        if !crowded {
            return;
        }
        let on = WaitingRoomSettings {
            on: true,
            ..settings
        };
        match self.store.set_room_settings(showtime, &on).await {
            Ok(_) => {
                self.rooms
                    .settings
                    .lock()
                    .expect("room settings")
                    .remove(&showtime);
                tracing::warn!(%showtime, limit, "more than {limit} hold attempts in a second: the waiting room is on");
            }
            Err(e) => {
                tracing::warn!(%showtime, error = %e, "the waiting room could not be turned on")
            }
        }
    }

    /// After the hold: a granted one carries the admission until it ends; a refused one gives
    /// its seats back.
    pub(in crate::engine) async fn settle_admission(
        &self,
        spent: Option<Spent>,
        outcome: &Result<Hold, InventoryError>,
    ) {
        let Some(mut spent) = spent else { return };
        spent.settled = true;
        let room = &self.rooms.room;
        match outcome {
            Ok(hold) => {
                let until = hold.expires_at.timestamp_millis();
                room.bind(spent.showtime, &spent.ticket, hold.hold_id, until)
                    .await
            }
            Err(_) => {
                room.unreserve(spent.showtime, &spent.ticket, spent.seats)
                    .await
            }
        }
    }

    /// A customer's hold ended (cancelled: `keep` for a new hold; paid: at once): its admission
    /// ends with it, and the next person is admitted at the next step.
    pub(in crate::engine) async fn admission_hold_ended(&self, hold: HoldId, keep: Duration) {
        let showtime = hold.showtime_id();
        if matches!(self.room_settings(showtime).await, Ok(s) if s.on) {
            self.rooms.room.hold_ended(showtime, hold, keep).await;
        }
    }
}
