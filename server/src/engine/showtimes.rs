//! What customers browse: the showtime list, seat maps (from the database, and the cached
//! snapshot `GET /showtimes/{id}/seats` serves) and the live map's snapshots.

use super::*;
use app::engine::Showtimes;

/// A showtime's newest live-map snapshot (JSON) and when its database read started; the async
/// lock lets concurrent connections wait for one read instead of each making their own.
pub(super) type LiveSlot = tokio::sync::Mutex<Option<(Instant, Utf8Bytes)>>;

#[async_trait::async_trait]
impl Showtimes for Engine {
    /// Today's (venue time) and later showtimes: those that have started are listed as closed.
    async fn list_showtimes(&self) -> Result<Vec<ShowtimeSummary>, InventoryError> {
        let now = self.clock.now();
        let today = app::format::venue_time(now.unwrap_or_else(chrono::Utc::now))
            .date_naive()
            .and_hms_opt(0, 0, 0)
            .expect("midnight exists")
            .and_local_timezone(app::format::venue_time(chrono::Utc::now()).timezone())
            .single()
            .expect("fixed offset")
            .with_timezone(&chrono::Utc);
        Ok(self.store.list_showtimes(now, today).await?)
    }

    async fn get_seat_map(&self, showtime: ShowtimeId) -> Result<SeatMap, InventoryError> {
        let layout = self.layout(showtime).await?;
        let states: HashMap<String, (SeatStatus, i64)> = self
            .store
            .seat_states(showtime, self.clock.now())
            .await?
            .into_iter()
            .map(|s| (s.code, (s.status, s.version)))
            .collect();
        let price = |cat: &str| {
            layout
                .categories
                .iter()
                .find(|c| c.code == cat)
                .map_or(app::domain::Won::ZERO, |c| c.price)
        };
        let seats = layout
            .seats
            .iter()
            .map(|s| {
                let (status, version) = states
                    .get(s.code.as_str())
                    .copied()
                    .unwrap_or((SeatStatus::Booked, 0));
                s.on_map(price(&s.category), status, version)
            })
            .collect();
        let cancelled = self.store.is_cancelled(showtime).await?;
        let sales = match cancelled {
            true => Sales::Closed,
            false => layout
                .sales
                .at(self.clock.now().unwrap_or_else(chrono::Utc::now)),
        };
        Ok(SeatMap {
            showtime_id: showtime,
            movie_title: layout.movie_title.clone(),
            hall_name: layout.hall_name.clone(),
            starts_at: layout.starts_at,
            categories: layout.categories.clone(),
            seats,
            sales_open: sales == Sales::Open,
            sales_opens_at: match sales {
                Sales::NotYet(at) => Some(at),
                _ => None,
            },
            cancelled,
            seat_rules: self.seat_rules,
            accessible_released: self.accessible_released(&layout),
        })
    }
}

impl Engine {
    /// The seat map as `GET /showtimes/{id}/seats` serves it: from memory, at most a second or
    /// so behind the database (see `read_model`).
    pub async fn seat_map_snapshot(
        &self,
        showtime: ShowtimeId,
    ) -> Result<Arc<Snapshot>, InventoryError> {
        if let Some(snapshot) = self.snapshots.fresh(showtime) {
            return Ok(snapshot);
        }
        let started = std::time::Instant::now();
        let map = self.get_seat_map(showtime).await?;
        Ok(self.snapshots.store(showtime, map, started, &self.live))
    }

    /// `ShowtimeNotFound` unless the showtime exists (from the layout cache after the first call).
    pub async fn ensure_showtime(&self, showtime: ShowtimeId) -> Result<(), InventoryError> {
        self.layout(showtime).await.map(|_| ())
    }

    /// The live map's snapshot as JSON for a viewer that subscribed to the showtime's events at
    /// `subscribed_at`. Any snapshot whose database read started after that instant is complete
    /// for this viewer (what committed before the read is in it; what is published after the
    /// subscription is in the viewer's channel), so thousands of viewers connecting at once share
    /// a few reads instead of making one each.
    pub async fn live_snapshot_json(
        &self,
        showtime: ShowtimeId,
        subscribed_at: Instant,
    ) -> Result<Utf8Bytes, InventoryError> {
        let slot = self
            .live_snapshots
            .lock()
            .expect("snapshot slots")
            .entry(showtime)
            .or_default()
            .clone();
        let mut slot = slot.lock().await;
        if let Some((started, json)) = slot.as_ref() {
            if *started > subscribed_at {
                return Ok(json.clone());
            }
        }
        let started = Instant::now();
        let snapshot = self.snapshot(showtime).await?;
        let json: Utf8Bytes = serde_json::to_string(&snapshot)
            .expect("messages serialise")
            .into();
        *slot = Some((started, json.clone()));
        Ok(json)
    }

    /// Every seat's current state and version: the live map's snapshot.
    pub async fn snapshot(&self, showtime: ShowtimeId) -> Result<LiveMessage, InventoryError> {
        self.layout(showtime).await?;
        let states = self.store.seat_states(showtime, self.clock.now()).await?;
        let seats = states
            .into_iter()
            .filter_map(|s| {
                let code = app::domain::SeatCode::parse(&s.code).ok()?;
                Some(SeatChange {
                    code,
                    status: s.status,
                    version: s.version,
                })
            })
            .collect();
        Ok(LiveMessage::Snapshot {
            showtime_id: showtime,
            seats,
        })
    }
}
