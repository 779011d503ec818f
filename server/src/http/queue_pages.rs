//! The waiting pages' sockets, kept as cheap as a socket can be: a hot sale keeps tens of
//! thousands of them open on one instance, and each only ever receives the room's one frame
//! (the same bytes for every waiter) and a ping now and then.
//!
//! So no WebSocket library stands between a page and its socket once the handshake is done:
//! - one **hall** task per showtime owns its pages; on each new frame it encodes the WebSocket
//!   frame once and writes those bytes to every page's socket without waiting (`try_write`). A
//!   page whose socket cannot take them now simply misses that frame — the next one carries the
//!   whole room again, and a page that missed one gets the current frame with the next ping —
//!   and one that misses [`MAX_MISSED`] in a row, or took part of a frame, is closed (its browser reconnects and keeps its place, as after any lost connection);
//! - one small **reader** task per page waits for what the browser sends (pongs, a close) with
//!   [`ClientFrames`], a header parser of a few bytes: a close is answered and ends the page, a
//!   message closes it (1008, as the seat map's feed does), and so does framing no browser sends
//!   (1002): unmasked, reserved bits, a control frame over 125 bytes or fragmented. Every frame a
//!   page may send is a control frame, so none is longer than 125 bytes. (A ping from the page
//!   goes unanswered: browsers send none.)
//!
//! A page costs its socket, that reader and its entry in the hall: 1.8 KB of the server's memory
//! once settled, 2.8 KB read 2 s after the pages connected, where a tokio-tungstenite connection
//! with its buffers and task read 6.0 KB the same way (`scripts/bench-room.sh`, BENCHMARKS.md).
//!
//! Both tasks run on the pages' own thread ([`runtime`]): a frame written to thousands of
//! sockets takes that thread for a moment, not the threads that answer holds and seat maps. The
//! sockets are registered with that thread's reactor too.

use super::serve::HeldConnection;
use super::sockets::SocketPlace;
use crate::engine::Engine;
use app::domain::ShowtimeId;
use axum::extract::ws::Utf8Bytes;
use hyper_util::rt::TokioIo;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tokio::net::TcpStream;
use tokio::sync::{mpsc, watch};

use super::page_frames::{close_frame, text_frame, ClientFrames, Verdict};

/// Frames in a row a page may miss (its socket full) before it counts as stuck and is closed.
const MAX_MISSED: u8 = 5;

/// How long a page may send nothing — a browser answers each ping (every
/// `WAITING_ROOM_PAGE_PING_SECONDS`, 15) with a pong — before it counts as gone and is closed
/// (1001): a socket that never reads, or whose browser is gone without a word, gives its place
/// back.
fn idle_after(ping: std::time::Duration) -> std::time::Duration {
    ping * 3
}

/// A ping frame with no payload.
const PING: [u8; 2] = [0x89, 0x00];

/// Waiting pages one place may have open on one process (a few tabs), at most.
const PAGES_PER_PLACE: usize = 4;

/// The waiting pages of this process, by showtime.
#[derive(Default)]
pub struct Pages {
    halls: Mutex<HashMap<ShowtimeId, mpsc::UnboundedSender<HallMsg>>>,
    next_id: AtomicU64,
    /// Pages of each place, counted from before the upgrade until the page ends.
    per_place: Mutex<HashMap<(ShowtimeId, String), usize>>,
}

/// A page's place among its place's pages; given back when dropped.
pub struct PlacePage {
    pages: Arc<Pages>,
    key: (ShowtimeId, String),
}

impl Drop for PlacePage {
    fn drop(&mut self) {
        let mut per_place = self.pages.per_place.lock().expect("pages per place");
        if let Some(n) = per_place.get_mut(&self.key) {
            *n -= 1;
            if *n == 0 {
                per_place.remove(&self.key);
            }
        }
    }
}

enum HallMsg {
    Join(Page),
    /// The page's reader has ended: the close code to answer with, if any.
    Leave(u64, Option<u16>),
}

/// One page in its hall. Dropping it closes the socket (which ends its reader), forgets the
/// connected place and gives the connection's permit back.
struct Page {
    id: u64,
    stream: Arc<TcpStream>,
    /// Frames missed in a row (its socket was full); a page that missed one is sent the current
    /// frame again with the next ping.
    missed: u8,
    /// Counted in the room's connected pages (from when its hall took it).
    counted: bool,
    ticket: String,
    showtime: ShowtimeId,
    engine: Arc<Engine>,
    _held: (SocketPlace, PlacePage, Option<HeldConnection>),
}

impl Page {
    /// Writes a whole frame now, or not at all; false when the page is to be closed.
    fn send(&mut self, bytes: &[u8]) -> bool {
        if bytes.is_empty() {
            return true;
        }
        match self.stream.try_write(bytes) {
            Ok(n) if n == bytes.len() => {
                self.missed = 0;
                true
            }
            // Part of a frame went out: the rest can never follow another frame.
            Ok(_) => false,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                self.missed += 1;
                self.missed < MAX_MISSED
            }
            Err(_) => false,
        }
    }
}

impl Drop for Page {
    fn drop(&mut self) {
        shut(&self.stream);
        if self.counted {
            self.engine
                .waiting_rooms()
                .disconnect(self.showtime, &self.ticket);
        }
    }
}

fn shut(stream: &TcpStream) {
    let _ = socket2::SockRef::from(stream).shutdown(std::net::Shutdown::Both);
}

impl Pages {
    /// A page's place among the pages of `ticket`'s place, unless it has
    /// [`PAGES_PER_PLACE`] already.
    pub fn of_place(self: &Arc<Self>, showtime: ShowtimeId, ticket: &str) -> Option<PlacePage> {
        let key = (showtime, ticket.to_string());
        let mut per_place = self.per_place.lock().expect("pages per place");
        let n = per_place.entry(key.clone()).or_default();
        if *n >= PAGES_PER_PLACE {
            return None;
        }
        *n += 1;
        Some(PlacePage {
            pages: self.clone(),
            key,
        })
    }

    /// Serves an upgraded connection as a waiting page of `ticket` until either side ends it.
    pub fn serve(
        self: &Arc<Self>,
        upgrade: hyper::upgrade::OnUpgrade,
        engine: Arc<Engine>,
        showtime: ShowtimeId,
        ticket: String,
        held: (SocketPlace, PlacePage, Option<HeldConnection>),
    ) {
        let pages = self.clone();
        runtime().spawn(async move {
            let Some((stream, frames, early)) = raw_socket(upgrade).await else {
                return;
            };
            let id = pages.next_id.fetch_add(1, Ordering::Relaxed);
            let page = Page {
                id,
                stream: stream.clone(),
                missed: 0,
                counted: false,
                ticket,
                showtime,
                engine: engine.clone(),
                _held: held,
            };
            let Some(hall) = pages.hall(&engine, showtime, page) else {
                return;
            };
            // The page's life in a task of its own, smaller than this one.
            let idle = idle_after(engine.waiting_rooms().policy.page_ping);
            tokio::spawn(reader(stream, frames, early, hall, id, idle));
        });
    }

    /// Hands `page` to its showtime's hall (started if there is none): the hall's sender.
    fn hall(
        &self,
        engine: &Arc<Engine>,
        showtime: ShowtimeId,
        page: Page,
    ) -> Option<mpsc::UnboundedSender<HallMsg>> {
        let mut halls = self.halls.lock().expect("waiting pages' halls");
        let mut page = HallMsg::Join(page);
        if let Some(hall) = halls.get(&showtime) {
            match hall.send(page) {
                Ok(()) => return Some(hall.clone()),
                // That hall has ended (its room was dropped): a new one.
                Err(mpsc::error::SendError(back)) => page = back,
            }
        }
        let (tx, rx) = mpsc::unbounded_channel();
        let ping = engine.waiting_rooms().policy.page_ping;
        tokio::spawn(hall(engine.queue_frames(showtime), rx, ping));
        tx.send(page).ok()?;
        halls.insert(showtime, tx.clone());
        Some(tx)
    }
}

/// The upgraded connection as a plain socket on this (the pages') thread's reactor, with what
/// the browser sent right behind its handshake already judged; `None` if it is not a TCP
/// connection of this server or is gone. Called on the pages' runtime ([`runtime`]).
pub(super) async fn raw_socket(
    upgrade: hyper::upgrade::OnUpgrade,
) -> Option<(Arc<TcpStream>, ClientFrames, Verdict)> {
    let upgraded = upgrade.await.ok()?;
    // The server serves plain TCP connections; anything else is not a page of ours.
    let parts = upgraded.downcast::<TokioIo<TcpStream>>().ok()?;
    // What the browser sent right behind its handshake, if anything. Those bytes share the
    // allocation of hyper's whole read buffer (kilobytes), so they are read now and not kept
    // for the page's life.
    let mut frames = ClientFrames::default();
    let early = frames.feed(&parts.read_buf);
    drop(parts.read_buf);
    // Onto this thread's reactor, away from the one that serves requests.
    let stream = parts
        .io
        .into_inner()
        .into_std()
        .and_then(TcpStream::from_std)
        .ok()?;
    let stream = Arc::new(stream);
    // Writable once the reactor has seen it: the first write then goes through.
    stream.writable().await.ok()?;
    Some((stream, frames, early))
}

/// Reads what the browser sends (after `early`, what came with the handshake) until the page
/// ends, answers a close or refuses what it must, and tells the hall.
async fn reader(
    stream: Arc<TcpStream>,
    mut frames: ClientFrames,
    early: Verdict,
    hall: mpsc::UnboundedSender<HallMsg>,
    id: u64,
    idle: std::time::Duration,
) {
    let verdict = match early {
        Verdict::More => read(&stream, &mut frames, Some(idle)).await,
        done => done,
    };
    // The hall writes the close: nothing it sends can then follow it.
    let _ = hall.send(HallMsg::Leave(id, verdict.close_code()));
}

/// Reads what the browser sends until the page ends: the verdict. With `idle`, a browser that
/// sends nothing for that long is done with ([`Verdict::Idle`]).
pub(super) async fn read(
    stream: &TcpStream,
    frames: &mut ClientFrames,
    idle: Option<std::time::Duration>,
) -> Verdict {
    let mut buf = [0u8; 128];
    let far = std::time::Duration::from_secs(365 * 86_400);
    let mut deadline = tokio::time::Instant::now() + idle.unwrap_or(far);
    loop {
        match tokio::time::timeout_at(deadline, stream.readable()).await {
            Err(_) => return Verdict::Idle,
            Ok(Err(_)) => return Verdict::Gone,
            Ok(Ok(())) => {}
        }
        match stream.try_read(&mut buf) {
            Ok(0) => return Verdict::Gone,
            Ok(n) => {
                if let Some(idle) = idle {
                    deadline = tokio::time::Instant::now() + idle;
                }
                match frames.feed(&buf[..n]) {
                    Verdict::More => {}
                    done => return done,
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(_) => return Verdict::Gone,
        }
    }
}

/// One showtime's pages: each new frame goes to all of them, then a ping every `every`. Ends
/// (closing every page) when the room's frames end.
async fn hall(
    mut frames: watch::Receiver<Utf8Bytes>,
    mut rx: mpsc::UnboundedReceiver<HallMsg>,
    every: std::time::Duration,
) {
    let mut pages: HashMap<u64, Page> = HashMap::new();
    let mut current = text_frame(&frames.borrow_and_update());
    let mut ping = tokio::time::interval(every);
    ping.tick().await;
    loop {
        tokio::select! {
            msg = rx.recv() => match msg {
                None => break,
                Some(HallMsg::Join(mut page)) => {
                    page.engine.waiting_rooms().connect(page.showtime, &page.ticket);
                    page.counted = true;
                    if page.send(&current) {
                        pages.insert(page.id, page);
                    }
                }
                Some(HallMsg::Leave(id, close)) => {
                    if let (Some(page), Some(code)) = (pages.remove(&id), close) {
                        let _ = page.stream.try_write(&close_frame(code));
                    }
                }
            },
            changed = frames.changed() => {
                if changed.is_err() {
                    break;
                }
                current = text_frame(&frames.borrow_and_update());
                if !current.is_empty() {
                    pages.retain(|_, page| page.send(&current));
                }
            }
            // A page that missed the last frame is sent it again instead of a ping.
            _ = ping.tick() => pages.retain(|_, page| {
                let bytes = if page.missed > 0 { &current[..] } else { &PING[..] };
                page.send(bytes)
            }),
        }
    }
    // The room is off (or gone): each page has had the frame saying so. Pages still on their
    // way in get the close too; never counted, they are not uncounted.
    rx.close();
    while let Ok(msg) = rx.try_recv() {
        if let HallMsg::Join(page) = msg {
            pages.insert(page.id, page);
        }
    }
    for page in pages.values() {
        let _ = page.stream.try_write(&close_frame(1001));
    }
}

/// The waiting pages' thread and its runtime (the live seat map's viewers share it).
pub(super) fn runtime() -> &'static tokio::runtime::Handle {
    static PAGES: std::sync::OnceLock<tokio::runtime::Handle> = std::sync::OnceLock::new();
    PAGES.get_or_init(|| {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("the waiting pages' runtime");
        let handle = runtime.handle().clone();
        std::thread::Builder::new()
            .name("waiting-pages".into())
            .spawn(move || runtime.block_on(std::future::pending::<()>()))
            .expect("the waiting pages' thread");
        handle
    })
}
