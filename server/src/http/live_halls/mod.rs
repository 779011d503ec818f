//! The live seat map's viewers (`GET /showtimes/{id}/live`, see `live.rs` for the endpoint),
//! served like the waiting pages: no WebSocket library per connection once the handshake is
//! done, and no task per viewer woken for each change.
//!
//! - One **hall** task per showtime with viewers here holds the showtime's one subscription to
//!   the live bus. Each change's frame is made once and its bytes written to every viewer's
//!   socket without waiting (`try_write`). When changes come faster than the hall writes them,
//!   the ones waiting for it are merged into one `seatsChanged` frame for everyone (each seat at
//!   its newest version: the versions make merging safe), so the frames grow no more numerous
//!   however fast seats change; a change that finds the hall idle goes out at once, alone.
//! - A viewer whose socket cannot take a frame now is **busy**: what did not go out of a frame
//!   is kept (a shared buffer and an offset), and the changes that come meanwhile are merged
//!   into its own pending set (one entry per seat, so bounded by the hall's size). The hall
//!   retries busy viewers every [`RETRY_EVERY`] and sends each, in one frame, what it missed.
//!   A viewer that takes nothing for [`STUCK_AFTER`] is disconnected (the page reconnects and
//!   resyncs from a fresh snapshot).
//! - On joining, a viewer is sent a snapshot taken after it joined (the engine shares one
//!   between viewers joining together) and, behind it, the changes that came meanwhile. A resync
//!   (Redis pub/sub was away) sends every viewer a fresh snapshot the same way.
//! - One small **reader** task per viewer judges what the browser sends by frame headers
//!   ([`ClientFrames`]): a message is refused (1008, 1009 over 125 bytes), a close answered, a
//!   frame no browser sends refused (1002).
//!
//! Halls and readers run on the pages' own thread (`queue_pages::runtime`), so a frame going
//! out to thousands of viewers takes that thread for a moment, not the threads that answer
//! holds; the snapshots are taken on the server's runtime.

use super::live::PING_EVERY;
use super::page_frames::{close_frame, text_frame, ClientFrames, Verdict};
use super::queue_pages::{raw_socket, read, runtime};
use super::serve::HeldConnection;
use super::sockets::SocketPlace;
use crate::engine::Engine;
use crate::live_bus::BusItem;
use app::domain::{LiveMessage, ShowtimeId};
use axum::body::Bytes;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::net::TcpStream;
use tokio::sync::broadcast::error::{RecvError, TryRecvError};
use tokio::sync::mpsc;
use viewer::{Viewer, Wrote};

mod runs;
mod viewer;

use runs::{runs, Run};

/// How often busy viewers are tried again.
const RETRY_EVERY: Duration = Duration::from_millis(10);
/// How long a viewer may take nothing before it counts as stuck and is closed.
const STUCK_AFTER: Duration = Duration::from_secs(5);
/// How long a snapshot may take before the viewers waiting for it are closed (they reconnect).
const SNAPSHOT_TIMEOUT: Duration = Duration::from_secs(10);

/// The viewers of this process, by showtime.
pub struct Halls {
    halls: Mutex<HashMap<ShowtimeId, mpsc::UnboundedSender<HallMsg>>>,
    next_id: AtomicU64,
    /// The server's runtime, where snapshots are taken (the store's connections live there).
    main: tokio::runtime::Handle,
}

enum HallMsg {
    Join(Viewer),
    /// A snapshot for the viewers waiting for one since `since` or earlier.
    Snapshot {
        since: Instant,
        json: Option<Bytes>,
    },
    /// The viewer's reader has ended: the close code to answer with, if any.
    Leave(u64, Option<u16>),
}

impl Halls {
    /// Made on the server's runtime: its snapshots are taken on the runtime this is called on.
    pub fn on_current_runtime() -> Self {
        Self {
            halls: Mutex::default(),
            next_id: AtomicU64::new(0),
            main: tokio::runtime::Handle::current(),
        }
    }

    /// Serves an upgraded connection as a viewer of `showtime` until either side ends it.
    pub(super) fn serve(
        self: &Arc<Self>,
        upgrade: hyper::upgrade::OnUpgrade,
        engine: Arc<Engine>,
        showtime: ShowtimeId,
        held: (SocketPlace, Option<HeldConnection>),
    ) {
        let halls = self.clone();
        runtime().spawn(async move {
            let Some((stream, frames, early)) = raw_socket(upgrade).await else {
                return;
            };
            let id = halls.next_id.fetch_add(1, Ordering::Relaxed);
            let viewer = Viewer::new(id, stream.clone(), held);
            let Some(hall) = halls.hall(&engine, showtime, viewer) else {
                return;
            };
            tokio::spawn(reader(stream, frames, early, hall, id));
        });
    }

    /// Hands `viewer` to its showtime's hall (started if there is none): the hall's sender.
    fn hall(
        self: &Arc<Self>,
        engine: &Arc<Engine>,
        showtime: ShowtimeId,
        viewer: Viewer,
    ) -> Option<mpsc::UnboundedSender<HallMsg>> {
        let mut halls = self.halls.lock().expect("live halls");
        let mut viewer = HallMsg::Join(viewer);
        if let Some(hall) = halls.get(&showtime) {
            match hall.send(viewer) {
                Ok(()) => return Some(hall.clone()),
                // That hall has ended (its last viewer left): a new one.
                Err(mpsc::error::SendError(back)) => viewer = back,
            }
        }
        let (tx, rx) = mpsc::unbounded_channel();
        let hall = Hall {
            showtime,
            engine: engine.clone(),
            halls: self.clone(),
            tx: tx.clone(),
            viewers: HashMap::new(),
            fetching: false,
        };
        tokio::spawn(hall.run(rx));
        tx.send(viewer).ok()?;
        halls.insert(showtime, tx.clone());
        Some(tx)
    }
}

/// Reads what the browser sends (after `early`) until the viewer ends, and tells the hall.
async fn reader(
    stream: Arc<TcpStream>,
    mut frames: ClientFrames,
    early: Verdict,
    hall: mpsc::UnboundedSender<HallMsg>,
    id: u64,
) {
    let verdict = match early {
        Verdict::More => read(&stream, &mut frames, None).await,
        done => done,
    };
    // The hall writes the close: nothing it sends can then follow it.
    let _ = hall.send(HallMsg::Leave(id, verdict.close_code()));
}

struct Hall {
    showtime: ShowtimeId,
    engine: Arc<Engine>,
    halls: Arc<Halls>,
    tx: mpsc::UnboundedSender<HallMsg>,
    viewers: HashMap<u64, Viewer>,
    /// A snapshot is being taken: viewers waiting for a later one wait for it to come back.
    fetching: bool,
}

impl Hall {
    async fn run(mut self, mut rx: mpsc::UnboundedReceiver<HallMsg>) {
        let mut events = self.engine.live_bus().subscribe(self.showtime);
        let ping = text_frame(&serde_json::to_string(&LiveMessage::Ping).unwrap_or_default());
        let ping = Bytes::from(ping);
        let mut pings = tokio::time::interval(PING_EVERY);
        pings.tick().await;
        let mut retry = tokio::time::interval(RETRY_EVERY);
        retry.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            // Viewers waiting only for their snapshot need no retries.
            let busy = self.viewers.values().any(Viewer::behind);
            tokio::select! {
                msg = rx.recv() => match msg {
                    None => break,
                    Some(HallMsg::Join(mut viewer)) => {
                        let since = Instant::now();
                        viewer.snapshot_since = Some(since);
                        self.viewers.insert(viewer.id, viewer);
                        self.take_snapshot(since);
                    }
                    Some(HallMsg::Snapshot { since, json }) => {
                        self.snapshot(since, json);
                        if self.viewers.is_empty() && self.end(&mut rx) {
                            return;
                        }
                    }
                    Some(HallMsg::Leave(id, close)) => {
                        if let (Some(viewer), Some(code)) = (self.viewers.remove(&id), close) {
                            if viewer.unsent.is_none() {
                                let _ = viewer.stream.try_write(&close_frame(code));
                            }
                        }
                        if self.viewers.is_empty() && self.end(&mut rx) {
                            return;
                        }
                    }
                },
                event = events.recv() => {
                    let mut batch = Vec::new();
                    let mut resync = false;
                    match event {
                        Ok(item) => batch.push(item),
                        Err(RecvError::Lagged(_)) => resync = true,
                        Err(RecvError::Closed) => break,
                    }
                    // Everything else already waiting goes out with it.
                    loop {
                        match events.try_recv() {
                            Ok(item) => batch.push(item),
                            Err(TryRecvError::Lagged(_)) => resync = true,
                            Err(_) => break,
                        }
                    }
                    if batch.iter().any(|i| matches!(**i, BusItem::Resync)) {
                        resync = true;
                    }
                    if resync {
                        // Events may have been missed: a fresh snapshot for everyone.
                        // A cancellation is in no snapshot: it still goes out, after it.
                        let cancelled = runs(self.showtime, &batch)
                            .into_iter()
                            .find(|run| run.cancels)
                            .map(|run| run.frame);
                        let since = Instant::now();
                        for viewer in self.viewers.values_mut() {
                            viewer.snapshot_since = Some(since);
                            viewer.snapshot = None;
                            viewer.pending.clear();
                            if cancelled.is_some() {
                                viewer.cancelled.clone_from(&cancelled);
                            }
                        }
                        self.take_snapshot(since);
                    } else {
                        self.send(&runs(self.showtime, &batch));
                    }
                }
                _ = retry.tick(), if busy => {
                    let showtime = self.showtime;
                    self.viewers.retain(|_, v| !v.behind() || v.catch_up(showtime));
                    for viewer in self.viewers.values_mut().filter(|v| v.idle()) {
                        viewer.busy_since = None;
                        viewer.stuck_since = None;
                    }
                    self.close_stuck();
                }
                _ = pings.tick() => {
                    self.viewers.retain(|_, v| !v.idle() || !matches!(v.write(&ping, 0), Wrote::Dead));
                }
            }
        }
    }

    /// Every viewer gets the runs in order: written now to an idle viewer, kept for a busy one.
    fn send(&mut self, runs: &[Run]) {
        self.viewers.retain(|_, viewer| {
            for (i, run) in runs.iter().enumerate() {
                if !viewer.idle() {
                    for later in &runs[i..] {
                        viewer.keep(&later.seats);
                        if later.cancels {
                            viewer.cancelled = Some(later.frame.clone());
                        }
                    }
                    return true;
                }
                if matches!(viewer.write(&run.frame, 0), Wrote::Dead) {
                    return false;
                }
            }
            true
        });
    }

    /// Takes a snapshot (on the server's runtime) for the viewers waiting since `since`, unless
    /// one is being taken: those who wait for a later one then ask when it comes back. One
    /// snapshot (and its frame) thus serves every viewer joining at about the same time.
    fn take_snapshot(&mut self, since: Instant) {
        if self.fetching {
            return;
        }
        self.fetching = true;
        let (engine, showtime, tx) = (self.engine.clone(), self.showtime, self.tx.clone());
        self.halls.main.spawn(async move {
            let json =
                tokio::time::timeout(SNAPSHOT_TIMEOUT, engine.live_snapshot_json(showtime, since))
                    .await
                    .ok()
                    .and_then(Result::ok)
                    .map(|j| Bytes::from(text_frame(&j)));
            let _ = tx.send(HallMsg::Snapshot { since, json });
        });
    }

    /// A snapshot taken at `since` or later: for each viewer waiting since then or earlier, it
    /// goes out (after anything begun), then what changed meanwhile. Without one (the store
    /// failed), those viewers are closed: their pages reconnect and try again.
    fn snapshot(&mut self, since: Instant, frame: Option<Bytes>) {
        self.fetching = false;
        let showtime = self.showtime;
        self.viewers.retain(|_, viewer| {
            if viewer.snapshot_since.is_none_or(|wanted| wanted > since) {
                return true;
            }
            let Some(frame) = &frame else {
                return false;
            };
            viewer.snapshot_since = None;
            viewer.snapshot = Some(frame.clone());
            viewer.catch_up(showtime)
        });
        if let Some(next) = self.viewers.values().filter_map(|v| v.snapshot_since).min() {
            self.take_snapshot(next);
        }
    }

    /// Drops the viewers that took nothing for too long (their pages reconnect and resync).
    fn close_stuck(&mut self) {
        let showtime = self.showtime;
        self.viewers.retain(|_, viewer| {
            if !viewer.stuck() {
                return true;
            }
            tracing::info!(%showtime, "live viewer too slow; disconnecting");
            false
        });
    }

    /// Ends the hall if nobody is on the way in: true when it has ended.
    fn end(&mut self, rx: &mut mpsc::UnboundedReceiver<HallMsg>) -> bool {
        let mut halls = self.halls.halls.lock().expect("live halls");
        if !rx.is_empty() {
            return false;
        }
        if halls
            .get(&self.showtime)
            .is_some_and(|h| h.same_channel(&self.tx))
        {
            halls.remove(&self.showtime);
        }
        rx.close();
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use app::domain::{SeatChange, SeatCode, SeatStatus};

    fn showtime() -> ShowtimeId {
        ShowtimeId::try_from(7).unwrap()
    }

    fn change(code: &str, status: SeatStatus, version: i64) -> SeatChange {
        SeatChange {
            code: SeatCode::parse(code).unwrap(),
            status,
            version,
        }
    }

    /// A bus item as the bus makes it: the message and its JSON.
    fn item(message: LiveMessage) -> Arc<BusItem> {
        let json = serde_json::to_string(&message).unwrap();
        Arc::new(BusItem::Event(message, json.into()))
    }

    fn held(code: &str, version: i64) -> Arc<BusItem> {
        item(LiveMessage::SeatsHeld {
            showtime_id: showtime(),
            seats: vec![change(code, SeatStatus::Held, version)],
        })
    }

    fn text(frame: &Bytes) -> String {
        let header = match frame[1] {
            126 => 4,
            127 => 10,
            _ => 2,
        };
        String::from_utf8(frame[header..].to_vec()).unwrap()
    }

    /// Changes waiting together go out as one frame, each seat at its newest version; a
    /// cancellation between them splits the run and keeps its place; a change alone goes out as
    /// the bus made it (the control: nothing merged when nothing waits).
    #[test]
    fn changes_waiting_together_are_merged_and_a_change_alone_is_sent_as_made() {
        let cancelled = item(LiveMessage::ShowtimeCancelled {
            showtime_id: showtime(),
        });
        let batch = [
            held("A1", 1),
            held("A2", 3),
            item(LiveMessage::SeatsReleased {
                showtime_id: showtime(),
                seats: vec![change("A1", SeatStatus::Available, 2)],
            }),
            cancelled.clone(),
            held("B1", 1),
        ];
        let runs = runs(showtime(), &batch);
        assert_eq!(runs.len(), 3);
        let merged: LiveMessage = serde_json::from_str(&text(&runs[0].frame)).unwrap();
        assert_eq!(
            merged,
            LiveMessage::SeatsChanged {
                showtime_id: showtime(),
                seats: vec![
                    change("A1", SeatStatus::Available, 2),
                    change("A2", SeatStatus::Held, 3)
                ],
            }
        );
        assert_eq!(runs[0].seats, merged.seats());
        assert!(runs[1].cancels);
        let BusItem::Event(_, json) = &*batch[4] else {
            unreachable!()
        };
        assert_eq!(text(&runs[2].frame), json.as_str());

        let alone = runs_of_one(held("C1", 4));
        let BusItem::Event(_, json) = &*held("C1", 4) else {
            unreachable!()
        };
        assert_eq!(text(&alone), json.as_str());
    }

    fn runs_of_one(item: Arc<BusItem>) -> Bytes {
        let runs = runs(showtime(), &[item]);
        assert_eq!(runs.len(), 1);
        runs[0].frame.clone()
    }

    /// Whatever order they come in, a busy viewer keeps each seat's newest change only.
    #[tokio::test]
    async fn a_busy_viewer_keeps_the_newest_change_of_each_seat() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (client, accepted) = tokio::join!(TcpStream::connect(addr), listener.accept());
        let (_client, (server, _)) = (client.unwrap(), accepted.unwrap());
        let all = super::super::sockets::Sockets::new(10);
        let viewers = super::super::sockets::SocketCap::new(all, 10, 10);
        let place = viewers.admit(None).unwrap();
        let mut viewer = Viewer::new(1, Arc::new(server), (place, None));
        viewer.keep(&[change("A1", SeatStatus::Held, 5)]);
        viewer.keep(&[
            change("A1", SeatStatus::Available, 4),
            change("A2", SeatStatus::Held, 1),
        ]);
        viewer.keep(&[change("A2", SeatStatus::Available, 2)]);
        let kept: Vec<_> = viewer.pending.values().cloned().collect();
        assert_eq!(
            kept,
            [
                change("A1", SeatStatus::Held, 5),
                change("A2", SeatStatus::Available, 2)
            ]
        );
        assert!(!viewer.idle());
        // Caught up: one merged frame, and nothing waits any more.
        assert!(viewer.catch_up(showtime()));
        assert!(viewer.idle());
    }
}
