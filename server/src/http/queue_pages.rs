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

use super::live::PING_EVERY;
use super::serve::HeldConnection;
use crate::engine::Engine;
use app::domain::ShowtimeId;
use axum::extract::ws::Utf8Bytes;
use hyper_util::rt::TokioIo;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tokio::net::TcpStream;
use tokio::sync::{mpsc, watch};

/// Frames in a row a page may miss (its socket full) before it counts as stuck and is closed.
const MAX_MISSED: u8 = 5;

/// A ping frame with no payload.
const PING: [u8; 2] = [0x89, 0x00];

/// The waiting pages of this process, by showtime.
#[derive(Default)]
pub struct Pages {
    halls: Mutex<HashMap<ShowtimeId, mpsc::UnboundedSender<HallMsg>>>,
    next_id: AtomicU64,
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
    _held: Option<HeldConnection>,
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
    /// Serves an upgraded connection as a waiting page of `ticket` until either side ends it.
    pub fn serve(
        self: &Arc<Self>,
        upgrade: hyper::upgrade::OnUpgrade,
        engine: Arc<Engine>,
        showtime: ShowtimeId,
        ticket: String,
        held: Option<HeldConnection>,
    ) {
        let pages = self.clone();
        runtime().spawn(async move {
            let Ok(upgraded) = upgrade.await else { return };
            // The server serves plain TCP connections; anything else is not a page of ours.
            let Ok(parts) = upgraded.downcast::<TokioIo<TcpStream>>() else {
                return;
            };
            // What the browser sent right behind its handshake, if anything. Those bytes share
            // the allocation of hyper's whole read buffer (kilobytes), so they are read now and
            // not kept for the page's life.
            let mut frames = ClientFrames::default();
            let early = frames.feed(&parts.read_buf);
            drop(parts.read_buf);
            // Onto this thread's reactor, away from the one that serves requests.
            let Ok(stream) = parts
                .io
                .into_inner()
                .into_std()
                .and_then(TcpStream::from_std)
            else {
                return;
            };
            let stream = Arc::new(stream);
            // Writable once the reactor has seen it: the hall's first write then goes through.
            if stream.writable().await.is_err() {
                return;
            }
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
            tokio::spawn(reader(stream, frames, early, hall, id));
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
        tokio::spawn(hall(engine.queue_frames(showtime), rx));
        tx.send(page).ok()?;
        halls.insert(showtime, tx.clone());
        Some(tx)
    }
}

/// Reads what the browser sends (after `early`, what came with the handshake) until the page
/// ends, answers a close or refuses what it must, and tells the hall.
async fn reader(
    stream: Arc<TcpStream>,
    mut frames: ClientFrames,
    early: Verdict,
    hall: mpsc::UnboundedSender<HallMsg>,
    id: u64,
) {
    let verdict = match early {
        Verdict::More => read(&stream, &mut frames).await,
        done => done,
    };
    // The hall writes the close: nothing it sends can then follow it.
    let _ = hall.send(HallMsg::Leave(id, verdict.close_code()));
}

/// Reads what the browser sends until the page ends: the verdict.
async fn read(stream: &TcpStream, frames: &mut ClientFrames) -> Verdict {
    let mut buf = [0u8; 128];
    loop {
        if stream.readable().await.is_err() {
            return Verdict::Gone;
        }
        match stream.try_read(&mut buf) {
            Ok(0) => return Verdict::Gone,
            Ok(n) => match frames.feed(&buf[..n]) {
                Verdict::More => {}
                done => return done,
            },
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(_) => return Verdict::Gone,
        }
    }
}

/// One showtime's pages: each new frame goes to all of them, then a ping every [`PING_EVERY`].
/// Ends (closing every page) when the room's frames end.
async fn hall(mut frames: watch::Receiver<Utf8Bytes>, mut rx: mpsc::UnboundedReceiver<HallMsg>) {
    let mut pages: HashMap<u64, Page> = HashMap::new();
    let mut current = text_frame(&frames.borrow_and_update());
    let mut ping = tokio::time::interval(PING_EVERY);
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

/// The waiting pages' thread and its runtime.
fn runtime() -> &'static tokio::runtime::Handle {
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

/// A server's text frame (unmasked, final) carrying `text`; empty for no text.
fn text_frame(text: &str) -> Vec<u8> {
    if text.is_empty() {
        return Vec::new();
    }
    let len = text.len();
    let mut frame = Vec::with_capacity(len + 10);
    frame.push(0x81);
    if len < 126 {
        frame.push(len as u8);
    } else if let Ok(len) = u16::try_from(len) {
        frame.push(126);
        frame.extend_from_slice(&len.to_be_bytes());
    } else {
        frame.push(127);
        frame.extend_from_slice(&(len as u64).to_be_bytes());
    }
    frame.extend_from_slice(text.as_bytes());
    frame
}

fn close_frame(code: u16) -> [u8; 4] {
    let [hi, lo] = code.to_be_bytes();
    [0x88, 0x02, hi, lo]
}

/// How a page's incoming bytes end it, if they do.
#[derive(Debug, PartialEq, Eq)]
enum Verdict {
    /// Nothing decided: read on.
    More,
    /// The connection ended (closed, reset).
    Gone,
    /// The browser closed the socket: answered with a close.
    Closed,
    /// A text or binary message: a waiting page has nothing to say (1008).
    Unexpected,
    /// Not WebSocket framing from a browser (unmasked, unknown opcode, reserved bits): 1002.
    Broken,
}

impl Verdict {
    fn close_code(&self) -> Option<u16> {
        match self {
            Verdict::More | Verdict::Gone => None,
            Verdict::Closed => Some(1000),
            Verdict::Unexpected => Some(1008),
            Verdict::Broken => Some(1002),
        }
    }
}

/// The frames a browser sends, read by their headers alone: their payloads (pongs) are skipped
/// as they arrive, so a page keeps no buffer of what it is sent.
#[derive(Default)]
struct ClientFrames {
    /// The header read so far (2 bytes, up to 8 of extended length, 4 of mask).
    head: [u8; 14],
    have: u8,
    /// Payload bytes of the current frame still to skip.
    skip: u64,
}

impl ClientFrames {
    fn feed(&mut self, mut bytes: &[u8]) -> Verdict {
        while !bytes.is_empty() {
            if self.skip > 0 {
                let n = (self.skip.min(bytes.len() as u64)) as usize;
                self.skip -= n as u64;
                bytes = &bytes[n..];
                continue;
            }
            self.head[self.have as usize] = bytes[0];
            self.have += 1;
            bytes = &bytes[1..];
            if let Some(verdict) = self.header() {
                return verdict;
            }
        }
        Verdict::More
    }

    /// Judges the header once it is whole (`None` while it is not, or when it was a frame to
    /// skip).
    fn header(&mut self) -> Option<Verdict> {
        let have = self.have as usize;
        if have < 2 {
            return None;
        }
        let (first, second) = (self.head[0], self.head[1]);
        let extended = match second & 0x7f {
            126 => 2,
            127 => 8,
            _ => 0,
        };
        if have < 2 + extended + 4 {
            return if second & 0x80 == 0 {
                Some(Verdict::Broken)
            } else {
                None
            };
        }
        let len = match extended {
            0 => u64::from(second & 0x7f),
            n => self.head[2..2 + n]
                .iter()
                .fold(0u64, |len, b| (len << 8) | u64::from(*b)),
        };
        self.have = 0;
        let opcode = first & 0x0f;
        let control = opcode & 0x8 != 0;
        // Reserved bits, a fragmented or long control frame, or a continuation of a message
        // that was never allowed to start.
        if first & 0x70 != 0 || (control && (first & 0x80 == 0 || len > 125)) || opcode == 0 {
            return Some(Verdict::Broken);
        }
        match opcode {
            0x8 => Some(Verdict::Closed),
            0x1 | 0x2 => Some(Verdict::Unexpected),
            // Pongs, and pings (browsers send none; they go unanswered): skipped.
            0x9 | 0xa => {
                self.skip = len;
                None
            }
            _ => Some(Verdict::Broken),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A browser's frame: masked, with the mask applied.
    fn client_frame(opcode: u8, payload: &[u8]) -> Vec<u8> {
        let mask = [1u8, 2, 3, 4];
        let mut frame = vec![0x80 | opcode];
        match payload.len() {
            n if n < 126 => frame.push(0x80 | n as u8),
            n => {
                frame.push(0x80 | 126);
                frame.extend_from_slice(&(n as u16).to_be_bytes());
            }
        }
        frame.extend_from_slice(&mask);
        frame.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
        frame
    }

    #[test]
    fn pongs_are_skipped_even_when_they_arrive_a_byte_at_a_time() {
        let mut frames = ClientFrames::default();
        let mut bytes = client_frame(0xa, b"a pong's data");
        bytes.extend(client_frame(0xa, b""));
        for b in &bytes {
            assert_eq!(frames.feed(std::slice::from_ref(b)), Verdict::More);
        }
        assert_eq!(
            frames.feed(&client_frame(0x8, &[0x03, 0xe8])),
            Verdict::Closed
        );
    }

    #[test]
    fn a_close_after_a_pong_in_one_read_closes() {
        let mut bytes = client_frame(0xa, b"x");
        bytes.extend(client_frame(0x8, &[]));
        assert_eq!(ClientFrames::default().feed(&bytes), Verdict::Closed);
    }

    #[test]
    fn a_message_from_a_waiting_page_is_refused() {
        let text = client_frame(0x1, b"hello");
        assert_eq!(ClientFrames::default().feed(&text), Verdict::Unexpected);
        let binary = client_frame(0x2, b"hello");
        assert_eq!(
            ClientFrames::default().feed(&binary[..6]),
            Verdict::Unexpected
        );
    }

    #[test]
    fn a_control_frame_longer_than_125_bytes_or_fragmented_is_broken_framing() {
        let long = client_frame(0xa, &[0u8; 126]);
        assert_eq!(ClientFrames::default().feed(&long[..8]), Verdict::Broken);
        let fits = client_frame(0xa, &[0u8; 125]);
        assert_eq!(ClientFrames::default().feed(&fits), Verdict::More);
        let mut fragment = client_frame(0xa, b"x");
        fragment[0] &= 0x7f;
        assert_eq!(ClientFrames::default().feed(&fragment), Verdict::Broken);
        assert_eq!(
            ClientFrames::default().feed(&client_frame(0x0, b"x")),
            Verdict::Broken
        );
    }

    #[test]
    fn unmasked_frames_and_reserved_bits_are_broken_framing() {
        assert_eq!(ClientFrames::default().feed(&[0x8a, 0x00]), Verdict::Broken);
        let mut reserved = client_frame(0xa, b"");
        reserved[0] |= 0x40;
        assert_eq!(ClientFrames::default().feed(&reserved), Verdict::Broken);
        assert_eq!(
            ClientFrames::default().feed(&client_frame(0x3, b"")),
            Verdict::Broken
        );
    }

    #[test]
    fn text_frames_carry_their_length_in_the_smallest_form() {
        assert_eq!(text_frame(""), Vec::<u8>::new());
        assert_eq!(text_frame("hi"), vec![0x81, 2, b'h', b'i']);
        let long = "x".repeat(300);
        let frame = text_frame(&long);
        assert_eq!(&frame[..4], &[0x81, 126, 0x01, 0x2c]);
        assert_eq!(frame.len(), 304);
    }
}
