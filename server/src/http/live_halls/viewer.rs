//! One viewer of a hall: what waits for its socket, and writing it without waiting.

use super::super::page_frames::text_frame;
use super::super::serve::HeldConnection;
use super::super::sockets::SocketPlace;
use super::STUCK_AFTER;
use app::domain::{LiveMessage, SeatChange, ShowtimeId};
use axum::body::Bytes;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::net::TcpStream;

/// How long a viewer may stay behind, however little it takes at a time.
const BEHIND_AFTER: Duration = Duration::from_secs(30);

/// One viewer in its hall. Dropping it closes the socket (which ends its reader) and gives its
/// place among the viewers and the connections back.
pub(super) struct Viewer {
    pub(super) id: u64,
    pub(super) stream: Arc<TcpStream>,
    /// Waiting for a snapshot taken at this time or later; changes wait in `pending` meanwhile.
    pub(super) snapshot_since: Option<Instant>,
    /// Its snapshot, ready to go out (after `unsent`, before `pending`).
    pub(super) snapshot: Option<Bytes>,
    /// What did not go out yet of a frame begun: written before anything else.
    pub(super) unsent: Option<(Bytes, usize)>,
    /// Changes not sent yet (its socket was full), each seat at its newest version.
    pub(super) pending: BTreeMap<String, SeatChange>,
    /// The showtime's cancellation, to be sent after `pending`.
    pub(super) cancelled: Option<Bytes>,
    /// Since when it has taken nothing (while busy).
    pub(super) stuck_since: Option<Instant>,
    /// Since when it has had something waiting, however little it took meanwhile.
    pub(super) busy_since: Option<Instant>,
    pub(super) _held: (SocketPlace, Option<HeldConnection>),
}

/// What a write did.
pub(super) enum Wrote {
    All,
    /// The socket is full: the rest waits.
    Busy,
    Dead,
}

impl Viewer {
    /// A viewer with nothing waiting yet.
    pub(super) fn new(
        id: u64,
        stream: Arc<TcpStream>,
        held: (SocketPlace, Option<HeldConnection>),
    ) -> Self {
        Self {
            id,
            stream,
            snapshot_since: None,
            snapshot: None,
            unsent: None,
            pending: BTreeMap::new(),
            cancelled: None,
            stuck_since: None,
            busy_since: None,
            _held: held,
        }
    }

    /// Whether nothing waits for this viewer: a frame can be written to it now.
    pub(super) fn idle(&self) -> bool {
        self.snapshot_since.is_none()
            && self.snapshot.is_none()
            && self.unsent.is_none()
            && self.pending.is_empty()
            && self.cancelled.is_none()
    }

    /// Writes `frame` from `offset` on, as far as the socket takes it.
    pub(super) fn write(&mut self, frame: &Bytes, offset: usize) -> Wrote {
        let rest = &frame[offset..];
        if rest.is_empty() {
            return Wrote::All;
        }
        match self.stream.try_write(rest) {
            Ok(n) if n == rest.len() => {
                self.stuck_since = None;
                if self.idle() {
                    self.busy_since = None;
                }
                Wrote::All
            }
            Ok(n) => {
                self.unsent = Some((frame.clone(), offset + n));
                self.stuck_since = None;
                self.busy_since.get_or_insert_with(Instant::now);
                Wrote::Busy
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                self.unsent = Some((frame.clone(), offset));
                self.stuck_since.get_or_insert_with(Instant::now);
                self.busy_since.get_or_insert_with(Instant::now);
                Wrote::Busy
            }
            Err(_) => Wrote::Dead,
        }
    }

    /// Keeps `changes` for later (newest version of each seat).
    pub(super) fn keep(&mut self, changes: &[SeatChange]) {
        for change in changes {
            match self.pending.get(change.code.as_str()) {
                Some(kept) if kept.version >= change.version => {}
                _ => {
                    self.pending
                        .insert(change.code.as_str().to_string(), change.clone());
                }
            }
        }
    }

    /// Sends what waits (the rest of a frame, its snapshot, the missed changes in one frame,
    /// then a cancellation) as far as the socket takes it; false when the viewer is to be
    /// dropped.
    pub(super) fn catch_up(&mut self, showtime: ShowtimeId) -> bool {
        if let Some((frame, offset)) = self.unsent.take() {
            match self.write(&frame, offset) {
                Wrote::All => {}
                Wrote::Busy => return true,
                Wrote::Dead => return false,
            }
        }
        if self.snapshot_since.is_some() {
            return true;
        }
        if let Some(frame) = self.snapshot.take() {
            match self.write(&frame, 0) {
                Wrote::All => {}
                Wrote::Busy => return true,
                Wrote::Dead => return false,
            }
        }
        if !self.pending.is_empty() {
            let seats = std::mem::take(&mut self.pending).into_values().collect();
            let merged = LiveMessage::SeatsChanged {
                showtime_id: showtime,
                seats,
            };
            let Ok(json) = serde_json::to_string(&merged) else {
                return false;
            };
            match self.write(&Bytes::from(text_frame(&json)), 0) {
                Wrote::All => {}
                Wrote::Busy => return true,
                Wrote::Dead => return false,
            }
        }
        if let Some(frame) = self.cancelled.take() {
            match self.write(&frame, 0) {
                Wrote::All | Wrote::Busy => {}
                Wrote::Dead => return false,
            }
        }
        true
    }

    /// Took nothing for [`STUCK_AFTER`], or has been behind for [`BEHIND_AFTER`] however
    /// little it took at a time (a connection taking a trickle).
    pub(super) fn stuck(&self) -> bool {
        self.stuck_since.is_some_and(|t| t.elapsed() > STUCK_AFTER)
            || self.busy_since.is_some_and(|t| t.elapsed() > BEHIND_AFTER)
    }

    /// Whether it has frames or changes waiting for its socket (not only for its snapshot).
    pub(super) fn behind(&self) -> bool {
        self.unsent.is_some()
            || (self.snapshot_since.is_none()
                && (self.snapshot.is_some()
                    || !self.pending.is_empty()
                    || self.cancelled.is_some()))
    }
}

impl Drop for Viewer {
    fn drop(&mut self) {
        let _ = socket2::SockRef::from(&*self.stream).shutdown(std::net::Shutdown::Both);
    }
}
