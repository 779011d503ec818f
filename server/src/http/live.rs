//! `GET /showtimes/{id}/live`: the live seat map over a WebSocket. On connect the viewer gets a
//! snapshot of every seat, then each committed change as it happens, and a ping every
//! [`PING_EVERY`]. A viewer too slow to keep up is disconnected (close code 4008) rather than
//! buffered for; browsers reconnect and resync from a fresh snapshot.
//!
//! Viewers have nothing to say: a frame larger than [`MAX_FRAME`] ends the connection before it
//! is read into memory, and a text or binary message is answered with close code 1008. A
//! browser's connection must come from this site or an allowed origin. Viewers are capped in
//! all and per client address (503 before the upgrade).

use super::error::ApiError;
use super::params::Id;
use super::serve::HeldConnection;
use super::AppState;
use crate::engine::Engine;
use crate::live_bus::BusItem;
use app::domain::{LiveMessage, ShowtimeId};
use app::engine::ClientAddr;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::IntoResponse;
use axum::response::Response;
use axum::Extension;
use futures_util::{SinkExt, StreamExt};
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Arc;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use tokio::sync::broadcast::error::{RecvError, TryRecvError};

pub const PING_EVERY: Duration = Duration::from_secs(15);
/// How long one message may take to leave before the viewer counts as stuck.
const SEND_TIMEOUT: Duration = Duration::from_secs(5);

/// The largest frame or message a viewer may send (pings and close frames fit).
pub const MAX_FRAME: usize = 256;

/// Live viewers now, in all and per client address, against their caps.
pub struct Viewers {
    max: usize,
    per_address: usize,
    by_address: Mutex<(usize, HashMap<IpAddr, usize>)>,
}

impl Viewers {
    pub fn new(max: usize, per_address: usize) -> Self {
        Self {
            max,
            per_address,
            by_address: Mutex::default(),
        }
    }

    /// A viewer's place, unless a cap is reached.
    fn admit(self: &Arc<Self>, addr: Option<IpAddr>) -> Option<ViewerPlace> {
        let mut counts = self.by_address.lock().expect("viewer counts");
        let (total, by_address) = &mut *counts;
        let mine = addr.map_or(0, |a| by_address.get(&a).copied().unwrap_or(0));
        if *total >= self.max || mine >= self.per_address {
            return None;
        }
        *total += 1;
        if let Some(a) = addr {
            by_address.insert(a, mine + 1);
        }
        Some(ViewerPlace {
            viewers: self.clone(),
            addr,
        })
    }

    /// Viewers connected now.
    pub fn count(&self) -> usize {
        self.by_address.lock().expect("viewer counts").0
    }
}

struct ViewerPlace {
    viewers: Arc<Viewers>,
    addr: Option<IpAddr>,
}

impl Drop for ViewerPlace {
    fn drop(&mut self) {
        let mut counts = self.viewers.by_address.lock().expect("viewer counts");
        let (total, by_address) = &mut *counts;
        *total -= 1;
        if let Some(a) = self.addr {
            if let Some(n) = by_address.get_mut(&a) {
                *n -= 1;
                if *n == 0 {
                    by_address.remove(&a);
                }
            }
        }
    }
}

/// Whether a WebSocket request from a browser comes from this site (non-browser clients send
/// no `Origin`).
pub(super) fn origin_allowed(state: &AppState, headers: &HeaderMap) -> bool {
    let Some(origin) = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()) else {
        return true;
    };
    let origin = origin.trim_end_matches('/');
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or_default();
    state.web.allowed_origins.iter().any(|o| o == origin)
        || (!host.is_empty()
            && origin
                .strip_prefix("http://")
                .or_else(|| origin.strip_prefix("https://"))
                == Some(host))
}

pub async fn live(
    State(state): State<AppState>,
    Id(showtime): Id<ShowtimeId>,
    headers: HeaderMap,
    client: Option<Extension<ClientAddr>>,
    connection: Option<Extension<HeldConnection>>,
    ws: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Result<Response, ApiError> {
    // Unknown showtimes are refused with a 404 before the upgrade (cached layout, no query).
    state.engine.ensure_showtime(showtime).await?;
    let ws = ws.map_err(|_| {
        ApiError::BadRequest("connect to this address with a WebSocket upgrade".into())
    })?;
    if !origin_allowed(&state, &headers) {
        return Ok((
            StatusCode::FORBIDDEN,
            axum::Json(serde_json::json!({
                "error": "the live seat map is only for pages of this site",
                "code": "CROSS_SITE_REQUEST",
            })),
        )
            .into_response());
    }
    let Some(place) = state
        .web
        .viewers
        .admit(client.map(|c| crate::net::bucket(c.0 .0)))
    else {
        return Ok((
            StatusCode::SERVICE_UNAVAILABLE,
            [(header::RETRY_AFTER, "5")],
            axum::Json(serde_json::json!({
                "error": "too many live viewers; try again in a moment",
                "code": "TOO_MANY_VIEWERS",
            })),
        )
            .into_response());
    };
    let engine = state.engine.clone();
    // The upgraded connection keeps its place among the server's connections.
    let connection = connection.map(|c| c.0);
    Ok(ws
        .max_message_size(MAX_FRAME)
        .max_frame_size(MAX_FRAME)
        // Viewers send nothing: small buffers keep thousands of sockets cheap (tungstenite's
        // defaults are 128 KiB each). A viewer whose unsent data passes the cap is dropped.
        .read_buffer_size(4 * 1024)
        .write_buffer_size(0)
        .max_write_buffer_size(512 * 1024)
        .on_upgrade(move |socket| async move {
            let _held = (place, connection);
            serve(socket, engine, showtime).await
        }))
}

async fn serve(socket: WebSocket, engine: Arc<Engine>, showtime: ShowtimeId) {
    // Subscribe before taking the snapshot that is sent, so nothing falls between the two; a
    // change that is in both is ignored by the client thanks to the seat versions.
    let mut events = engine.live_bus().subscribe(showtime);
    let subscribed_at = Instant::now();
    let Ok(snapshot) = engine.live_snapshot_json(showtime, subscribed_at).await else {
        return;
    };
    let (mut sink, mut incoming) = socket.split();
    if send_text(&mut sink, snapshot).await.is_err() {
        return;
    }
    let mut ping = tokio::time::interval(PING_EVERY);
    ping.tick().await;
    loop {
        tokio::select! {
            event = events.recv() => {
                let after = match event {
                    Ok(item) => match &*item {
                        BusItem::Event(..) => {
                            match send_events(&mut sink, &mut events, item.clone()).await {
                                Ok(after) => after,
                                Err(()) => break,
                            }
                        }
                        // Events may have been missed (Redis was away): a fresh snapshot.
                        BusItem::Resync => After::Resync,
                    },
                    Err(RecvError::Lagged(missed)) => After::Lagged(missed),
                    Err(RecvError::Closed) => break,
                };
                match after {
                    After::Nothing => {}
                    After::Resync => {
                        let Ok(snapshot) = engine.live_snapshot_json(showtime, Instant::now()).await else {
                            break; // the client reconnects and tries again
                        };
                        if send_text(&mut sink, snapshot).await.is_err() {
                            break;
                        }
                    }
                    After::Lagged(missed) => {
                        tracing::info!(%showtime, missed, "live viewer too slow; disconnecting");
                        let close = CloseFrame { code: 4008, reason: "too slow, reconnect".into() };
                        let _ = sink.send(Message::Close(Some(close))).await;
                        break;
                    }
                }
            }
            _ = ping.tick() => {
                if send(&mut sink, &LiveMessage::Ping).await.is_err() {
                    break;
                }
            }
            frame = incoming.next() => match frame {
                None | Some(Err(_)) | Some(Ok(Message::Close(_))) => break,
                Some(Ok(Message::Text(_) | Message::Binary(_))) => {
                    // Viewers have nothing to say.
                    let close = CloseFrame { code: 1008, reason: "viewers send nothing".into() };
                    let _ = sink.send(Message::Close(Some(close))).await;
                    break;
                }
                Some(Ok(_)) => {} // pings and pongs are handled by axum
            },
        }
    }
}

/// What [`send_events`] found after the events it sent.
enum After {
    Nothing,
    /// A resync was waiting: send a fresh snapshot next.
    Resync,
    /// The viewer fell behind the channel's buffer.
    Lagged(u64),
}

/// Sends an event and every further event already waiting for this viewer, with one flush. The
/// seat changes among them go out merged ([`coalesce`]): a viewer whose connection was still
/// busy while changes came gets one frame for all of them, so the frames a viewer is sent stay
/// bounded however fast seats change; a viewer with nothing waiting gets the change's own frame
/// at once — nothing is held back to wait for more.
async fn send_events<S>(
    sink: &mut S,
    events: &mut tokio::sync::broadcast::Receiver<Arc<BusItem>>,
    first: Arc<BusItem>,
) -> Result<After, ()>
where
    S: futures_util::Sink<Message> + Unpin,
{
    let mut waiting = vec![first];
    let after = loop {
        match events.try_recv() {
            Ok(item) => match &*item {
                BusItem::Event(..) => waiting.push(item),
                BusItem::Resync => break After::Resync,
            },
            Err(TryRecvError::Lagged(missed)) => break After::Lagged(missed),
            Err(_) => break After::Nothing,
        }
    };
    let mut frames = coalesce(&waiting);
    if frames.len() == 1 {
        send_text(sink, frames.pop().expect("one frame")).await?;
    } else {
        let mut frames =
            futures_util::stream::iter(frames.into_iter().map(|t| Ok(Message::Text(t))));
        with_timeout(sink.send_all(&mut frames)).await?;
    }
    Ok(after)
}

/// The frames for events waiting together, in their order: each run of seat changes as one
/// frame ([`LiveMessage::merged`]; a change alone keeps the frame made once for every viewer),
/// any other message (a cancelled showtime) as its own frame.
fn coalesce(waiting: &[Arc<BusItem>]) -> Vec<Utf8Bytes> {
    let mut frames = Vec::new();
    let mut run: Vec<(&LiveMessage, &Utf8Bytes)> = Vec::new();
    let flush = |run: &mut Vec<(&LiveMessage, &Utf8Bytes)>, frames: &mut Vec<Utf8Bytes>| {
        match run.as_slice() {
            [] => {}
            [(_, json)] => frames.push((*json).clone()),
            [(first, _), ..] => {
                let merged = first
                    .showtime()
                    .map(|s| LiveMessage::merged(s, run.iter().map(|(m, _)| *m)))
                    .and_then(|m| serde_json::to_string(&m).ok());
                match merged {
                    Some(text) => frames.push(text.into()),
                    // Not expected (every seat change names its showtime): one by one.
                    None => frames.extend(run.iter().map(|(_, json)| (*json).clone())),
                }
            }
        }
        run.clear();
    };
    for item in waiting {
        let BusItem::Event(message, json) = &**item else {
            continue;
        };
        if message.seats().is_empty() {
            flush(&mut run, &mut frames);
            frames.push(json.clone());
        } else {
            run.push((message, json));
        }
    }
    flush(&mut run, &mut frames);
    frames
}

async fn send<S>(sink: &mut S, message: &LiveMessage) -> Result<(), ()>
where
    S: futures_util::Sink<Message> + Unpin,
{
    let text = serde_json::to_string(message).map_err(|_| ())?;
    send_text(sink, text.into()).await
}

async fn send_text<S>(sink: &mut S, text: Utf8Bytes) -> Result<(), ()>
where
    S: futures_util::Sink<Message> + Unpin,
{
    with_timeout(sink.send(Message::Text(text))).await
}

/// Awaits a send for at most [`SEND_TIMEOUT`]. Most sends finish at once (the socket takes the
/// frame): those are polled once and never arm a timer.
pub(super) async fn with_timeout<F, E>(send: F) -> Result<(), ()>
where
    F: std::future::Future<Output = Result<(), E>>,
{
    let mut send = std::pin::pin!(send);
    if let Some(done) = futures_util::FutureExt::now_or_never(send.as_mut()) {
        return done.map_err(|_| ());
    }
    match tokio::time::timeout(SEND_TIMEOUT, send).await {
        Ok(Ok(())) => Ok(()),
        _ => Err(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use app::domain::{SeatChange, SeatCode, SeatStatus};
    use tokio::sync::broadcast;

    /// A message without seats (each goes out as its own frame).
    fn event(text: &str) -> Arc<BusItem> {
        Arc::new(BusItem::Event(LiveMessage::Ping, text.into()))
    }

    /// A seat change of showtime 7, with its frame as the bus makes it.
    fn change(code: &str, status: SeatStatus, version: i64) -> Arc<BusItem> {
        let message = LiveMessage::SeatsHeld {
            showtime_id: ShowtimeId::try_from(7).unwrap(),
            seats: vec![SeatChange {
                code: SeatCode::parse(code).unwrap(),
                status,
                version,
            }],
        };
        let json = serde_json::to_string(&message).unwrap();
        Arc::new(BusItem::Event(message, json.into()))
    }

    fn texts(sink: &[Message]) -> Vec<String> {
        sink.iter()
            .map(|m| match m {
                Message::Text(t) => t.to_string(),
                other => format!("{other:?}"),
            })
            .collect()
    }

    #[tokio::test]
    async fn waiting_events_go_out_together_in_order_and_a_resync_behind_them_is_reported() {
        let (tx, mut events) = broadcast::channel(16);
        for item in [
            event("b"),
            event("c"),
            Arc::new(BusItem::Resync),
            event("d"),
        ] {
            tx.send(item).unwrap();
        }
        let mut sink: Vec<Message> = Vec::new();
        let after = send_events(&mut sink, &mut events, event("a")).await;
        assert!(matches!(after, Ok(After::Resync)));
        assert_eq!(texts(&sink), ["a", "b", "c"]);
        // What came after the resync is still there for the main loop.
        assert_eq!(*events.recv().await.unwrap(), *event("d"));
    }

    /// Seat changes waiting together go out as one frame, each seat at its newest version; a
    /// message without seats between them splits the run; a change alone goes out as the
    /// bus made it. The control: with nothing waiting, the first change's own frame, at once.
    #[tokio::test]
    async fn seat_changes_waiting_together_are_merged_into_one_frame() {
        let (tx, mut events) = broadcast::channel(16);
        for item in [
            change("A2", SeatStatus::Held, 3),
            change("A1", SeatStatus::Available, 2),
            event("cancelled"),
            change("B1", SeatStatus::Held, 1),
        ] {
            tx.send(item).unwrap();
        }
        let mut sink: Vec<Message> = Vec::new();
        let first = change("A1", SeatStatus::Held, 1);
        let after = send_events(&mut sink, &mut events, first).await;
        assert!(matches!(after, Ok(After::Nothing)));
        let sent = texts(&sink);
        assert_eq!(sent.len(), 3, "{sent:?}");
        let merged: LiveMessage = serde_json::from_str(&sent[0]).unwrap();
        let seats: Vec<(String, SeatStatus, i64)> = merged
            .seats()
            .iter()
            .map(|c| (c.code.as_str().to_string(), c.status, c.version))
            .collect();
        assert!(matches!(merged, LiveMessage::SeatsChanged { .. }));
        assert_eq!(
            seats,
            [
                ("A1".to_string(), SeatStatus::Available, 2),
                ("A2".to_string(), SeatStatus::Held, 3)
            ]
        );
        assert_eq!(sent[1], "cancelled");
        let BusItem::Event(_, alone) = &*change("B1", SeatStatus::Held, 1) else {
            unreachable!()
        };
        assert_eq!(sent[2], alone.as_str());

        let mut idle: Vec<Message> = Vec::new();
        let only = change("C1", SeatStatus::Held, 1);
        send_events(&mut idle, &mut events, only.clone())
            .await
            .unwrap();
        let BusItem::Event(_, own) = &*only else {
            unreachable!()
        };
        assert_eq!(texts(&idle), [own.to_string()]);
    }

    #[tokio::test]
    async fn a_viewer_found_lagging_while_draining_is_reported() {
        let (tx, mut events) = broadcast::channel(2);
        for text in ["b", "c", "d", "e"] {
            tx.send(event(text)).unwrap();
        }
        let mut sink: Vec<Message> = Vec::new();
        let after = send_events(&mut sink, &mut events, event("a")).await;
        assert!(matches!(after, Ok(After::Lagged(2))));
    }
}
