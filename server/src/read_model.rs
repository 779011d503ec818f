//! The read model behind `GET /showtimes/{id}/seats`: one serialised seat map per showtime in
//! memory (serialised when read, not at every change), read tens of times per hold. Committed changes reach it through the event
//! bus (from every process, with Redis) and are applied by seat version; it is rebuilt from the
//! database once it is older than [`REFRESH_AFTER`], which heals anything missed and shows lazily
//! expired holds as free. A strong `ETag` (hash of the body) lets clients and CDNs revalidate
//! cheaply. Staleness of a second or two is fine: the hold re-checks in the database.

use crate::live_bus::{BusItem, LiveBus};
use app::domain::{SeatChange, SeatMap, ShowtimeId};
use axum::body::Bytes;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::broadcast::error::RecvError;

/// How old a snapshot may get before the next read rebuilds it from the database.
pub const REFRESH_AFTER: Duration = Duration::from_secs(1);

/// One showtime's seat map, and its JSON body and tag once someone asks for them (a change
/// applied to the map costs no serialising until the map is read again).
pub struct Snapshot {
    map: SeatMap,
    built: Instant,
    body: std::sync::OnceLock<(Bytes, String)>,
}

impl Snapshot {
    /// The seat map this snapshot serialises.
    pub fn map(&self) -> &SeatMap {
        &self.map
    }

    /// The map as JSON.
    pub fn json(&self) -> &Bytes {
        &self.body().0
    }

    /// A strong `ETag` of the JSON body.
    pub fn etag(&self) -> &str {
        &self.body().1
    }

    fn body(&self) -> &(Bytes, String) {
        self.body.get_or_init(|| {
            let json = Bytes::from(serde_json::to_vec(&self.map).expect("seat maps serialise"));
            let digest = Sha256::digest(&json);
            let etag = format!("\"{}\"", hex::encode(&digest[..16]));
            (json, etag)
        })
    }

    fn new(map: SeatMap, built: Instant) -> Self {
        Self {
            map,
            built,
            body: std::sync::OnceLock::new(),
        }
    }

    /// This snapshot with `changes` applied where they are newer than what it holds.
    fn with(&self, changes: &[SeatChange]) -> Option<Self> {
        let mut map = self.map.clone();
        let mut changed = false;
        for change in changes {
            if let Some(seat) = map.seats.iter_mut().find(|s| s.code == change.code) {
                if change.version > seat.version {
                    seat.status = change.status;
                    seat.version = change.version;
                    changed = true;
                }
            }
        }
        changed.then(|| Self::new(map, self.built))
    }
}

type Entries = Mutex<HashMap<ShowtimeId, Arc<Snapshot>>>;

#[derive(Default)]
pub struct SeatMapCache {
    entries: Arc<Entries>,
}

impl SeatMapCache {
    /// The cached snapshot if it is fresh enough.
    pub fn fresh(&self, showtime: ShowtimeId) -> Option<Arc<Snapshot>> {
        let entries = self.entries.lock().expect("cache lock");
        entries
            .get(&showtime)
            .filter(|s| s.built.elapsed() < REFRESH_AFTER)
            .cloned()
    }

    /// Applies committed changes to the showtime's snapshot, if there is one. Safe to repeat:
    /// only changes newer than a seat's version apply.
    pub fn apply(&self, showtime: ShowtimeId, changes: &[SeatChange]) {
        apply(&self.entries, showtime, changes);
    }

    /// Stores a map just read from the database; the first time for a showtime, starts
    /// following its events (changes made by other processes arrive that way).
    pub fn store(
        &self,
        showtime: ShowtimeId,
        map: SeatMap,
        built: Instant,
        events: &LiveBus,
    ) -> Arc<Snapshot> {
        let mut entries = self.entries.lock().expect("cache lock");
        // A change applied to the cached map while this read was under way is newer than what
        // the read saw of that seat: it is kept, so a slow read never turns a seat back.
        let map = match entries.get(&showtime) {
            Some(cached) => newest_of(map, &cached.map),
            None => map,
        };
        let snapshot = Arc::new(Snapshot::new(map, built));
        let first = entries.insert(showtime, snapshot.clone()).is_none();
        drop(entries);
        if first {
            let entries = self.entries.clone();
            let mut rx = events.subscribe(showtime);
            tokio::spawn(async move {
                loop {
                    match rx.recv().await {
                        Ok(item) => match &*item {
                            BusItem::Event(message, _) => {
                                apply(&entries, showtime, message.seats())
                            }
                            BusItem::Resync => forget(&entries, showtime),
                        },
                        // Missed events: forget the snapshot; the next read rebuilds it.
                        Err(RecvError::Lagged(_)) => forget(&entries, showtime),
                        Err(RecvError::Closed) => break,
                    }
                }
            });
        }
        snapshot
    }
}

/// `read` with each seat that `cached` has at a higher version taken from `cached`.
fn newest_of(mut read: SeatMap, cached: &SeatMap) -> SeatMap {
    let newer: HashMap<&str, &app::domain::Seat> =
        cached.seats.iter().map(|s| (s.code.as_str(), s)).collect();
    for seat in read.seats.iter_mut() {
        if let Some(cached) = newer.get(seat.code.as_str()) {
            if cached.version > seat.version {
                seat.status = cached.status;
                seat.version = cached.version;
            }
        }
    }
    read
}

fn apply(entries: &Entries, showtime: ShowtimeId, changes: &[SeatChange]) {
    let mut entries = entries.lock().expect("cache lock");
    if let Some(updated) = entries.get(&showtime).and_then(|s| s.with(changes)) {
        entries.insert(showtime, Arc::new(updated));
    }
}

fn forget(entries: &Entries, showtime: ShowtimeId) {
    entries.lock().expect("cache lock").remove(&showtime);
}

#[cfg(test)]
mod tests {
    use super::*;
    use app::domain::{PriceCategory, Seat, SeatCode, SeatStatus, Won};

    fn map() -> SeatMap {
        let seat = |code: &str, version| Seat {
            code: SeatCode::parse(code).unwrap(),
            row: "A".into(),
            number: 1,
            x: 2,
            y: 1,
            category: "STANDARD".into(),
            price: Won::new(12_000),
            accessible: false,
            companion: false,
            status: SeatStatus::Available,
            version,
        };
        SeatMap {
            showtime_id: ShowtimeId::try_from(1).unwrap(),
            movie_title: "Film".into(),
            hall_name: "Hall".into(),
            starts_at: chrono::DateTime::from_timestamp(1_800_000_000, 0).unwrap(),
            categories: vec![PriceCategory {
                code: "STANDARD".into(),
                name: "Standard".into(),
                price: Won::new(12_000),
                ticket_prices: Default::default(),
            }],
            seats: vec![seat("A1", 3), seat("A2", 0)],
            sales_open: true,
            sales_opens_at: None,
            cancelled: false,
            seat_rules: Default::default(),
            accessible_released: false,
        }
    }

    fn change(code: &str, status: SeatStatus, version: i64) -> SeatChange {
        SeatChange {
            code: SeatCode::parse(code).unwrap(),
            status,
            version,
        }
    }

    #[test]
    fn newer_changes_update_the_body_and_its_etag_and_older_ones_change_nothing() {
        let snapshot = Snapshot::new(map(), Instant::now());
        assert!(
            snapshot
                .with(&[change("A1", SeatStatus::Held, 3)])
                .is_none(),
            "same version"
        );
        assert!(
            snapshot
                .with(&[change("A1", SeatStatus::Held, 2)])
                .is_none(),
            "older version"
        );
        let updated = snapshot
            .with(&[change("A1", SeatStatus::Held, 4)])
            .expect("newer");
        assert_ne!(updated.etag(), snapshot.etag());
        let body: serde_json::Value = serde_json::from_slice(updated.json()).unwrap();
        assert_eq!(body["seats"][0]["status"], "HELD");
        assert_eq!(body["seats"][0]["version"], 4);
    }

    #[test]
    fn the_etag_depends_only_on_the_content() {
        let (a, b) = (
            Snapshot::new(map(), Instant::now()),
            Snapshot::new(map(), Instant::now()),
        );
        assert_eq!(
            a.etag(),
            b.etag(),
            "every process gives the same tag for the same map"
        );
    }

    #[test]
    fn a_read_that_started_before_a_change_does_not_undo_it() {
        // The cache learnt of A1's hold (version 4) while a slower read, which still saw A1
        // free at version 3, was under way; A2's hold lapsed, which the read shows as free at
        // the same version.
        let mut cached = map();
        cached.seats[0].status = SeatStatus::Held;
        cached.seats[0].version = 4;
        cached.seats[1].status = SeatStatus::Held;
        let merged = newest_of(map(), &cached);
        assert_eq!(
            (merged.seats[0].status, merged.seats[0].version),
            (SeatStatus::Held, 4)
        );
        assert_eq!(merged.seats[1].status, SeatStatus::Available);
    }
}
