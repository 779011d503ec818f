//! The waiting room in front of a hot sale's holds: joining and polling (`WaitingRooms`), the
//! admission a customer's hold spends (checked before, bound to the hold after), the admission
//! step every process runs each second, and the frame every waiter is sent.

use super::*;
use crate::waiting_room::{AdmitStep, Answer, Counts, Reserve, RoomDown, Step, WaitingRoom};
use app::domain::{
    Admission, QueueFrame, QueuePlace, QueueState, WaitingRoomSettings, WaitingRoomView,
};
use app::engine::{Actor, AdmissionProof, Holder, WaitingRooms};
use tokio::sync::watch;

/// How long a showtime's room settings are taken from memory before they are read again (an
/// operator's change reaches every process within it).
const SETTINGS_FRESH: Duration = Duration::from_secs(1);
/// Places given up that one admission step clears, at most.
const GIVEN_UP_PER_STEP: usize = 500;

/// A showtime's newest frame (none before its first step here) and its channel to the pages.
type FrameSlot = (Option<QueueFrame>, watch::Sender<Utf8Bytes>);

/// The rooms' part of the engine.
pub(super) struct Rooms {
    pub(super) room: Arc<WaitingRoom>,
    settings: Mutex<HashMap<ShowtimeId, (Instant, WaitingRoomSettings)>>,
    /// The newest frame per showtime with a room on, for this process's waiting pages.
    frames: Mutex<HashMap<ShowtimeId, FrameSlot>>,
    /// Each open room's figures at its last step (for `/metrics`).
    figures: Mutex<HashMap<ShowtimeId, Counts>>,
    /// Customers' hold attempts per showtime in the current second (`auto_on`).
    attempts: Mutex<HashMap<ShowtimeId, (i64, u32)>>,
}

impl Rooms {
    pub(super) fn new(room: WaitingRoom) -> Self {
        Self {
            room: Arc::new(room),
            settings: Mutex::default(),
            frames: Mutex::default(),
            figures: Mutex::default(),
            attempts: Mutex::default(),
        }
    }
}

/// A seat reservation against an admission, settled once the hold is decided. A request that
/// ends before (its client went away, its deadline passed) is settled by a task of its own: the
/// customer's live hold, if the hold went through, carries the admission; else the seats go back.
pub(super) struct Spent {
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
    /// Puts `room` in front of hot sales (by default: rooms in this process).
    pub fn with_waiting_room(mut self, room: WaitingRoom) -> Self {
        self.rooms = Rooms::new(room);
        self
    }

    pub fn waiting_rooms(&self) -> &WaitingRoom {
        &self.rooms.room
    }

    /// The showtime's room settings, at most a second old.
    async fn room_settings(
        &self,
        showtime: ShowtimeId,
    ) -> Result<WaitingRoomSettings, InventoryError> {
        if let Some((at, s)) = self
            .rooms
            .settings
            .lock()
            .expect("room settings")
            .get(&showtime)
        {
            if at.elapsed() < SETTINGS_FRESH {
                return Ok(s.clone());
            }
        }
        let settings = self
            .store
            .room_settings(showtime)
            .await?
            .ok_or(InventoryError::ShowtimeNotFound(showtime))?;
        self.rooms
            .settings
            .lock()
            .expect("room settings")
            .insert(showtime, (Instant::now(), settings.clone()));
        Ok(settings)
    }

    /// Before a customer's hold of `seats` seats: while the showtime's room is on, the hold
    /// needs a live admission of this customer with seats to spare (refused otherwise, and when
    /// the room cannot be reached, unless it fails open). `None`: nothing to settle.
    pub(super) async fn spend_admission(
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
    pub(super) async fn settle_admission(
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
    pub(super) async fn admission_hold_ended(&self, hold: HoldId, keep: Duration) {
        let showtime = hold.showtime_id();
        if matches!(self.room_settings(showtime).await, Ok(s) if s.on) {
            self.rooms.room.hold_ended(showtime, hold, keep).await;
        }
    }

    /// One admission step of every room that is on and whose sales are open, then the new
    /// frame for each room's waiting pages. Safe on every process at once (each step is atomic
    /// in the room's state). Returns the admissions made.
    pub async fn admit_waiting(&self) -> Result<u64, InventoryError> {
        let open = self.store.open_rooms().await?;
        let now = self.clock.now().unwrap_or_else(chrono::Utc::now);
        let policy = &self.rooms.room.policy;
        let mut admitted = 0;
        let mut live = Vec::with_capacity(open.len());
        for (showtime, settings) in open {
            self.rooms
                .settings
                .lock()
                .expect("room settings")
                .insert(showtime, (Instant::now(), settings.clone()));
            let Ok(layout) = self.layout(showtime).await else {
                continue;
            };
            if now >= layout.sales.closes_at {
                continue;
            }
            let selling = layout.sales.opens_at.is_none_or(|at| at <= now);
            let step = AdmitStep {
                max_active: settings.max_active,
                per_minute: settings.admit_per_minute,
                // Nobody is let in before the sale opens.
                paused: settings.paused || !selling,
                grace_ms: policy.grace.as_millis() as i64,
                admission_ms: policy.admission.as_millis() as i64,
                most_given_up: GIVEN_UP_PER_STEP,
            };
            match self.rooms.room.admit(showtime, &step).await {
                Ok(report) => {
                    admitted += report.admitted;
                    HoldMetrics::add(&self.metrics.room_admitted, report.admitted);
                }
                Err(RoomDown) => {
                    tracing::warn!(%showtime, "waiting room unreachable; no admissions")
                }
            }
            if let Ok(counts) = self.rooms.room.counts(showtime).await {
                let frame = QueueFrame {
                    served: counts.served,
                    per_minute: counts.per_minute(),
                    paused: settings.paused,
                    message: settings.message.clone(),
                    epoch: counts.epoch,
                    open: true,
                    at: chrono::Utc::now().timestamp_millis(),
                };
                self.publish_frame(showtime, frame);
                self.rooms
                    .figures
                    .lock()
                    .expect("room figures")
                    .insert(showtime, counts);
            }
            live.push(showtime);
        }
        // Rooms turned off: their pages are told to go to the seat map.
        let closed: Vec<ShowtimeId> = {
            let frames = self.rooms.frames.lock().expect("room frames");
            frames
                .keys()
                .filter(|s| !live.contains(s))
                .copied()
                .collect()
        };
        for showtime in closed {
            let frame = QueueFrame {
                served: 0,
                per_minute: None,
                paused: false,
                message: String::new(),
                epoch: 0,
                open: false,
                at: chrono::Utc::now().timestamp_millis(),
            };
            self.publish_frame(showtime, frame);
            self.rooms
                .frames
                .lock()
                .expect("room frames")
                .remove(&showtime);
        }
        self.rooms
            .figures
            .lock()
            .expect("room figures")
            .retain(|s, _| live.contains(s));
        self.rooms.room.retain(&live);
        Ok(admitted)
    }

    /// Each open room's waiting and inside counts at its last step.
    pub fn room_figures(&self) -> Vec<(ShowtimeId, Counts)> {
        let figures = self.rooms.figures.lock().expect("room figures");
        let mut all: Vec<_> = figures.iter().map(|(s, c)| (*s, c.clone())).collect();
        all.sort_by_key(|(s, _)| s.get());
        all
    }

    fn publish_frame(&self, showtime: ShowtimeId, frame: QueueFrame) {
        let mut frames = self.rooms.frames.lock().expect("room frames");
        let json = || Utf8Bytes::from(serde_json::to_string(&frame).unwrap_or_default());
        // A frame is new when something but its time changed.
        let same = |last: &QueueFrame| {
            QueueFrame {
                at: 0,
                ..last.clone()
            } == QueueFrame {
                at: 0,
                ..frame.clone()
            }
        };
        match frames.get_mut(&showtime) {
            Some((last, sender)) if !last.as_ref().is_some_and(same) => {
                sender.send_replace(json());
                *last = Some(frame);
            }
            Some(_) => {}
            None => {
                let sender = watch::Sender::new(json());
                frames.insert(showtime, (Some(frame), sender));
            }
        }
    }

    /// The frames of the showtime's room for a waiting page: empty until this process has
    /// stepped the room; the channel closes after a frame saying the room is off.
    pub fn queue_frames(&self, showtime: ShowtimeId) -> watch::Receiver<Utf8Bytes> {
        let mut frames = self.rooms.frames.lock().expect("room frames");
        let (_, sender) = frames
            .entry(showtime)
            .or_insert_with(|| (None, watch::Sender::new(Utf8Bytes::default())));
        sender.subscribe()
    }

    fn last_rate(&self, showtime: ShowtimeId) -> Option<f64> {
        let frames = self.rooms.frames.lock().expect("room frames");
        frames
            .get(&showtime)
            .and_then(|(f, _)| f.as_ref())
            .and_then(|f| f.per_minute)
    }

    /// A place as the customer is told it.
    fn place(
        &self,
        showtime: ShowtimeId,
        answer: Answer,
        customer: CustomerId,
        settings: &WaitingRoomSettings,
    ) -> Result<QueuePlace, InventoryError> {
        match answer.step {
            Step::Ok => {}
            Step::Full => return Err(InventoryError::QueueFull),
            Step::AddressCap => return Err(InventoryError::QueueAddressLimit),
            Step::Gone => return Err(InventoryError::QueuePlaceNotFound),
            Step::TooSoon(ms) => return Err(InventoryError::RateLimited(ms.div_ceil(1000).max(1))),
        }
        let room = &self.rooms.room;
        let poll_after_ms = room.policy.poll.as_millis() as u64;
        let (state, position, admission) = match answer.deadline_ms {
            Some(deadline) => {
                // The token outlives the first deadline by a hold's length: the room's state
                // says whether the admission is still live.
                let until = deadline + self.hold_ttl.as_millis() as i64;
                let hold_by = chrono::DateTime::from_timestamp_millis(deadline)
                    .unwrap_or_default()
                    .to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
                let token = room.sign(showtime, &answer.ticket, customer, until);
                (QueueState::Admitted, 0, Some(Admission { token, hold_by }))
            }
            None => (
                QueueState::Waiting,
                answer.number.saturating_sub(answer.served).max(1),
                None,
            ),
        };
        Ok(QueuePlace {
            ticket: answer.ticket,
            number: answer.number,
            position,
            ahead: position.saturating_sub(1),
            state,
            poll_after_ms,
            wait_minutes: app::domain::wait_minutes(position, self.last_rate(showtime))
                .filter(|_| state == QueueState::Waiting),
            admission,
            message: settings.message.clone(),
            paused: settings.paused,
        })
    }

    async fn room_view(&self, showtime: ShowtimeId) -> Result<WaitingRoomView, InventoryError> {
        let settings = self.room_settings(showtime).await?;
        let counts = self.rooms.room.counts(showtime).await;
        let unavailable = counts.is_err();
        let counts = counts.unwrap_or_default();
        Ok(WaitingRoomView {
            showtime_id: showtime,
            per_minute: counts.per_minute(),
            waiting: counts.waiting,
            inside: counts.inside,
            admitted: counts.admitted,
            expired: counts.expired,
            abandoned: counts.abandoned,
            settings,
            unavailable,
        })
    }
}

#[async_trait::async_trait]
impl WaitingRooms for Engine {
    async fn join_queue(
        &self,
        showtime: ShowtimeId,
        customer: CustomerId,
        address: Option<IpAddr>,
    ) -> Result<QueuePlace, InventoryError> {
        let layout = self.layout(showtime).await?;
        if self.store.is_cancelled(showtime).await? {
            return Err(InventoryError::ShowtimeCancelled);
        }
        if self.clock.now().unwrap_or_else(chrono::Utc::now) >= layout.sales.closes_at {
            return Err(InventoryError::SalesClosed);
        }
        let settings = self.room_settings(showtime).await?;
        if !settings.on {
            return Err(InventoryError::NoWaitingRoom);
        }
        let address = address.map(|a| crate::net::bucket(a).to_string());
        let answer = self
            .rooms
            .room
            .join(showtime, customer, address.as_deref().unwrap_or(""))
            .await
            .map_err(|RoomDown| InventoryError::QueueUnavailable)?;
        HoldMetrics::count(&self.metrics.room_joins);
        self.place(showtime, answer, customer, &settings)
    }

    async fn queue_place(
        &self,
        showtime: ShowtimeId,
        ticket: Option<&str>,
        customer: CustomerId,
    ) -> Result<Option<QueuePlace>, InventoryError> {
        let settings = self.room_settings(showtime).await?;
        if !settings.on {
            return Ok(None);
        }
        let answer = self
            .rooms
            .room
            .poll(showtime, ticket, customer)
            .await
            .map_err(|RoomDown| InventoryError::QueueUnavailable)?;
        self.place(showtime, answer, customer, &settings).map(Some)
    }

    async fn waiting_room(&self, showtime: ShowtimeId) -> Result<WaitingRoomView, InventoryError> {
        self.room_view(showtime).await
    }

    async fn set_waiting_room(
        &self,
        showtime: ShowtimeId,
        settings: &WaitingRoomSettings,
        by: &Actor,
    ) -> Result<WaitingRoomView, InventoryError> {
        let problems = settings.problems();
        if !problems.is_empty() {
            return Err(InventoryError::InvalidRequest(problems.join("; ")));
        }
        if !self.store.set_room_settings(showtime, settings).await? {
            return Err(InventoryError::ShowtimeNotFound(showtime));
        }
        self.rooms
            .settings
            .lock()
            .expect("room settings")
            .remove(&showtime);
        let detail = format!(
            "showtime {showtime}: waiting room {}{}, {} inside at most, {} a minute",
            if settings.on { "on" } else { "off" },
            if settings.paused { " (paused)" } else { "" },
            settings.max_active,
            settings.admit_per_minute,
        );
        self.audit(by, "waiting_room_set", detail).await;
        self.room_view(showtime).await
    }

    async fn reset_waiting_room(
        &self,
        showtime: ShowtimeId,
        by: &Actor,
    ) -> Result<WaitingRoomView, InventoryError> {
        self.room_settings(showtime).await?;
        self.rooms
            .room
            .reset(showtime)
            .await
            .map_err(|RoomDown| InventoryError::QueueUnavailable)?;
        self.audit(by, "waiting_room_reset", format!("showtime {showtime}"))
            .await;
        self.room_view(showtime).await
    }
}
