//! The waiting room in front of a hot sale's holds: joining and polling (`WaitingRooms`) here;
//! the admission a customer's hold spends in `admission.rs` (checked before, bound to the hold
//! after); the admission step every process runs each second, and the frame every waiter is
//! sent, in `steps.rs`.

use super::*;
use crate::waiting_room::{AdmitStep, Answer, Counts, Drawn, Reserve, RoomDown, Step, WaitingRoom};
use app::domain::{
    Admission, QueueDraw, QueueFrame, QueuePlace, QueueProof, QueueState, WaitingRoomSettings,
    WaitingRoomView,
};
use app::engine::{Actor, AdmissionProof, Holder, WaitingRooms};
use std::collections::HashSet;
use tokio::sync::watch;

mod admission;
mod steps;

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
    /// The customers whose hold attempts the limits let through, per showtime, in the current
    /// second (`auto_on`).
    attempts: Mutex<HashMap<ShowtimeId, (i64, HashSet<CustomerId>)>>,
    /// Held while settings are read from the store: one read at a time, not one per hold.
    loading: tokio::sync::Mutex<()>,
}

impl Rooms {
    pub(super) fn new(room: WaitingRoom) -> Self {
        Self {
            room: Arc::new(room),
            settings: Mutex::default(),
            frames: Mutex::default(),
            figures: Mutex::default(),
            attempts: Mutex::default(),
            loading: tokio::sync::Mutex::new(()),
        }
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

    /// The showtime's settings as this process holds them: fresh (at most a second old), or
    /// the last ones known.
    fn cached_settings(&self, showtime: ShowtimeId) -> Option<(bool, WaitingRoomSettings)> {
        let settings = self.rooms.settings.lock().expect("room settings");
        let (at, s) = settings.get(&showtime)?;
        Some((at.elapsed() < SETTINGS_FRESH, s.clone()))
    }

    /// The showtime's room settings, at most a second old. Every customer hold asks: one
    /// request reads them from the store at a time, and while one does, the others take the
    /// last ones known (when there are none yet, they wait for that read).
    async fn room_settings(
        &self,
        showtime: ShowtimeId,
    ) -> Result<WaitingRoomSettings, InventoryError> {
        let stale = match self.cached_settings(showtime) {
            Some((true, s)) => return Ok(s),
            Some((false, s)) => Some(s),
            None => None,
        };
        let _reading = match stale {
            Some(s) => match self.rooms.loading.try_lock() {
                Ok(guard) => guard,
                Err(_) => return Ok(s),
            },
            None => self.rooms.loading.lock().await,
        };
        if let Some((true, s)) = self.cached_settings(showtime) {
            return Ok(s); // read by the request before this one
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

    /// A place as the customer is told it.
    async fn place(
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
            Step::ProofNeeded => {
                return Err(InventoryError::ProofRequired {
                    challenge: self.rooms.room.challenge(showtime, customer),
                    bits: settings.proof_bits,
                })
            }
        }
        let draw = match &answer.drawn {
            Some(drawn) => Some(draw_view(drawn, answer.arrival)),
            // Drawn at the opening: pending until then.
            None if settings.shuffle && !self.sales_open(showtime).await? => Some(QueueDraw {
                pending: true,
                seed: None,
                entrants: 0,
                arrival: None,
                drawn_at: None,
            }),
            None => None,
        };
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
            draw,
        })
    }

    /// Whether the showtime's sale has opened.
    async fn sales_open(&self, showtime: ShowtimeId) -> Result<bool, InventoryError> {
        let now = self.clock.now().unwrap_or_else(chrono::Utc::now);
        let layout = self.layout(showtime).await?;
        Ok(layout.sales.opens_at.is_none_or(|at| at <= now))
    }

    /// Whether a waiting page of `ticket` may open its socket: the showtime's room is on and the
    /// ticket is one of its places. A made-up ticket never holds a connection.
    pub async fn queue_page_allowed(
        &self,
        showtime: ShowtimeId,
        ticket: &str,
    ) -> Result<(), InventoryError> {
        if !self.room_settings(showtime).await?.on {
            return Err(InventoryError::NoWaitingRoom);
        }
        match self.rooms.room.has_place(showtime, ticket).await {
            Ok(true) => Ok(()),
            Ok(false) => Err(InventoryError::QueuePlaceNotFound),
            Err(RoomDown) => Err(InventoryError::QueueUnavailable),
        }
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
            draw: counts.drawn.as_ref().map(|d| draw_view(d, None)),
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
        proof: Option<QueueProof>,
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
        let room = &self.rooms.room;
        // A place already taken is answered without a proof; a new one needs it.
        let proven = proof
            .filter(|p| room.proven(showtime, customer, p, settings.proof_bits))
            .map(|p| p.challenge);
        let must_prove = settings.proof_bits > 0 && proven.is_none();
        let answer = room
            .join(
                showtime,
                customer,
                address.as_deref().unwrap_or(""),
                must_prove,
                proven.filter(|_| settings.proof_bits > 0),
            )
            .await
            .map_err(|RoomDown| InventoryError::QueueUnavailable)?;
        if answer.step == Step::Ok {
            HoldMetrics::count(&self.metrics.room_joins);
        }
        self.place(showtime, answer, customer, &settings).await
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
        self.place(showtime, answer, customer, &settings)
            .await
            .map(Some)
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
            return Err(InventoryError::Invalid(problems));
        }
        let at_ms = self.rooms.room.wall_now();
        if !self
            .store
            .set_room_settings(showtime, settings, at_ms)
            .await?
        {
            return Err(InventoryError::ShowtimeNotFound(showtime));
        }
        self.rooms
            .settings
            .lock()
            .expect("room settings")
            .remove(&showtime);
        let detail = format!(
            "showtime {showtime}: waiting room {}{}, {} inside at most, {} a minute{}{}",
            if settings.on { "on" } else { "off" },
            if settings.paused { " (paused)" } else { "" },
            settings.max_active,
            settings.admit_per_minute,
            if settings.shuffle {
                ", drawn at the opening"
            } else {
                ""
            },
            match settings.proof_bits {
                0 => String::new(),
                bits => format!(", proof of work {bits} bits"),
            },
        );
        let facts = vec![
            app::domain::AuditFact::Showtime(showtime.get()),
            app::domain::AuditFact::WaitingRoom {
                on: settings.on,
                paused: settings.paused,
                max_active: i64::from(settings.max_active),
                per_minute: i64::from(settings.admit_per_minute),
                drawn: settings.shuffle,
                proof_bits: i64::from(settings.proof_bits),
            },
        ];
        let said = crate::engine::staff::Said::new(detail, facts);
        self.audit(by, "waiting_room_set", said).await;
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
        let said = crate::engine::staff::Said::new(
            format!("showtime {showtime}"),
            vec![app::domain::AuditFact::Showtime(showtime.get())],
        );
        self.audit(by, "waiting_room_reset", said).await;
        self.room_view(showtime).await
    }
}

/// A draw as customers and operators see it.
fn draw_view(drawn: &Drawn, arrival: Option<u64>) -> QueueDraw {
    QueueDraw {
        pending: false,
        seed: Some(drawn.seed.clone()),
        entrants: drawn.entrants,
        arrival,
        drawn_at: chrono::DateTime::from_timestamp_millis(drawn.at_ms)
            .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)),
    }
}
