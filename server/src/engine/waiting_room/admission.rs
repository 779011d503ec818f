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
    store: Store,
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
                        bind(room, showtime, ticket, held.hold_id, until).await
                    }
                    _ => unreserve(room, showtime, ticket, seats).await,
                }
            });
        }
    }
}

/// The waits between the tries of a room call that failed (Redis away for a moment): two
/// minutes in all, the time an admission has to hold.
const RETRY_WAITS_MS: [u64; 8] = [100, 300, 1_000, 3_000, 10_000, 20_000, 30_000, 60_000];

/// Runs `call` now and, while it fails, again in a task of its own after each of
/// [`RETRY_WAITS_MS`]: a room call that changes who is inside is never just dropped (one more
/// shopper inside, or a slot kept until the hold expires). `what` names it when it never
/// succeeds.
async fn now_or_later<F, Fut>(what: &'static str, showtime: ShowtimeId, call: F)
where
    F: Fn() -> Fut + Send + 'static,
    Fut: std::future::Future<Output = Result<(), RoomDown>> + Send,
{
    if call().await.is_ok() {
        return;
    }
    tracing::warn!(%showtime, what, "waiting room unreachable: tried again shortly");
    tokio::spawn(async move {
        for wait in RETRY_WAITS_MS {
            tokio::time::sleep(Duration::from_millis(wait)).await;
            if call().await.is_ok() {
                return;
            }
        }
        tracing::error!(%showtime, what, "waiting room unreachable for two minutes: not done");
    });
}

/// Binds the admission of `ticket` to the hold (now or, Redis away, as soon as it is back).
async fn bind(
    room: Arc<WaitingRoom>,
    showtime: ShowtimeId,
    ticket: String,
    hold: HoldId,
    until: i64,
) {
    now_or_later("bind an admission to its hold", showtime, move || {
        let (room, ticket) = (room.clone(), ticket.clone());
        async move { room.bind(showtime, &ticket, hold, until).await }
    })
    .await
}

/// Gives a refused hold's seats back to the admission of `ticket` (now or later).
async fn unreserve(room: Arc<WaitingRoom>, showtime: ShowtimeId, ticket: String, seats: u32) {
    now_or_later("give an admission its seats back", showtime, move || {
        let (room, ticket) = (room.clone(), ticket.clone());
        async move { room.unreserve(showtime, &ticket, seats).await }
    })
    .await
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

    /// Counts a customer's hold attempt that the rate limits let through on a showtime whose
    /// room is off; past `auto_on` distinct customers in one second, turns its room on (with its
    /// settings as they are, unless an operator set them within the last minute) and says so in
    /// the audit log. This attempt goes on; the next ones queue. A script's attempts the limits
    /// refuse, and one customer's many attempts, count for nothing.
    pub(in crate::engine) async fn count_hold_attempt(
        &self,
        showtime: ShowtimeId,
        holder: &Holder,
    ) {
        let Some(limit) = self.rooms.room.policy.auto_on else {
            return;
        };
        if holder.admission().is_none() {
            return; // staff never queue
        }
        if !matches!(self.room_settings(showtime).await, Ok(s) if !s.on) {
            return;
        }
        let now_ms = self.rooms.room.wall_now();
        let second = now_ms.div_euclid(1000);
        let crowded = {
            let mut attempts = self.rooms.attempts.lock().expect("hold attempts");
            let (at, customers) = attempts.entry(showtime).or_default();
            if *at != second {
                *at = second;
                customers.clear();
            }
            customers.len() as u32 <= limit
                && customers.insert(holder.customer_id())
                && customers.len() as u32 == limit + 1
        };
        if !crowded {
            return;
        }
        match self.store.switch_room_on(showtime, now_ms - 60_000).await {
            Ok(true) => {
                self.rooms
                    .settings
                    .lock()
                    .expect("room settings")
                    .remove(&showtime);
                tracing::warn!(%showtime, limit, "more than {limit} customers tried to hold in a second: the waiting room is on");
                let detail = format!(
                    "showtime {showtime}: waiting room on by itself, {} customers holding in one second",
                    limit + 1
                );
                self.record(crate::store::NewAuditEntry {
                    at: self.now_at(),
                    staff_id: None,
                    staff_name: "automatic",
                    action: "waiting_room_auto_on",
                    detail: &detail,
                    facts: crate::store::facts_json(&[app::domain::AuditFact::Showtime(
                        showtime.get(),
                    )]),
                    address: None,
                })
                .await;
            }
            // On already, or an operator's recent change stands.
            Ok(false) => {}
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
        let room = self.rooms.room.clone();
        let (showtime, ticket) = (spent.showtime, std::mem::take(&mut spent.ticket));
        match outcome {
            Ok(hold) => {
                let until = hold.expires_at.timestamp_millis();
                bind(room, showtime, ticket, hold.hold_id, until).await
            }
            Err(_) => unreserve(room, showtime, ticket, spent.seats).await,
        }
    }

    /// A customer's hold ended (cancelled: `keep` for a new hold; paid: at once): its admission
    /// ends with it, and the next person is admitted at the next step — whatever the room's
    /// switch says now (a room turned off and on again must not find it alive).
    pub(in crate::engine) async fn admission_hold_ended(&self, hold: HoldId, keep: Duration) {
        let (room, showtime) = (self.rooms.room.clone(), hold.showtime_id());
        now_or_later("end an admission with its hold", showtime, move || {
            let room = room.clone();
            async move { room.hold_ended(showtime, hold, keep).await }
        })
        .await
    }
}
