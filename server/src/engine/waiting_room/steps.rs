//! The admission step every process runs each second, and the one frame per showtime sent to
//! this process's waiting pages.

use super::*;
use app::domain::SeatsLeft;

impl Engine {
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
            let layout = match self.layout(showtime).await {
                Ok(layout) => layout,
                Err(e) => {
                    tracing::warn!(%showtime, error = %e, "waiting room not stepped: no layout");
                    continue;
                }
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
                stay_ms: (policy.admission + self.hold_ttl).as_millis() as i64,
                most_given_up: GIVEN_UP_PER_STEP,
                // Drawn once, at the first step of an open sale (the room ignores it after).
                draw_seed: (settings.shuffle && selling)
                    .then(|| hex::encode(rand::random::<[u8; 16]>())),
            };
            match self.rooms.room.admit(showtime, &step).await {
                Ok(report) => {
                    if report.admitted + report.expired + report.given_up > 0 {
                        tracing::debug!(
                            %showtime,
                            admitted = report.admitted,
                            expired = report.expired,
                            given_up = report.given_up,
                            "waiting room stepped"
                        );
                    }
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
                    inside: counts.inside,
                    max_inside: settings.max_active,
                    admit_per_minute: settings.admit_per_minute,
                    stay_minutes: (step.stay_ms as u64).div_ceil(60_000) as u32,
                    left: self.seats_left(showtime).await,
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
            tracing::debug!(%showtime, "waiting room off: its pages go to the seat map");
            // Turned on again later, its first step must not take the pause for an outage.
            self.rooms.room.switched_off(showtime).await;
            let frame = QueueFrame {
                served: 0,
                per_minute: None,
                paused: false,
                message: String::new(),
                epoch: 0,
                open: false,
                at: chrono::Utc::now().timestamp_millis(),
                inside: 0,
                max_inside: 0,
                admit_per_minute: 0,
                stay_minutes: 0,
                left: Vec::new(),
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

    /// Each price category of the showtime with its free seats now, from the seat map in
    /// memory (none when it cannot be read: the frame goes out without them).
    async fn seats_left(&self, showtime: ShowtimeId) -> Vec<SeatsLeft> {
        let snapshot = match self.seat_map_snapshot(showtime).await {
            Ok(snapshot) => snapshot,
            Err(e) => {
                tracing::warn!(%showtime, error = %e, "waiting room frame without seats left");
                return Vec::new();
            }
        };
        let map = snapshot.map();
        map.categories
            .iter()
            .map(|c| SeatsLeft {
                code: c.code.clone(),
                name: c.name.clone(),
                price: c.price,
                free: map
                    .seats
                    .iter()
                    .filter(|s| s.category == c.code && s.status == SeatStatus::Available)
                    .count() as u32,
            })
            .collect()
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

    pub(super) fn last_rate(&self, showtime: ShowtimeId) -> Option<f64> {
        let frames = self.rooms.frames.lock().expect("room frames");
        frames
            .get(&showtime)
            .and_then(|(f, _)| f.as_ref())
            .and_then(|f| f.per_minute)
    }
}
