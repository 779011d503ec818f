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
                        BusItem::Event(_, json) => {
                            match send_events(&mut sink, &mut events, json.clone()).await {
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

/// Frames sent with one flush when a viewer has several events waiting.
const MAX_BATCH: usize = 32;

/// What [`send_events`] found after the events it sent.
enum After {
    Nothing,
    /// A resync was waiting: send a fresh snapshot next.
    Resync,
    /// The viewer fell behind the channel's buffer.
    Lagged(u64),
}

/// Sends an event and the further events already waiting for this viewer with one flush, so a
/// viewer that fell behind catches up with fewer writes.
async fn send_events<S>(
    sink: &mut S,
    events: &mut tokio::sync::broadcast::Receiver<Arc<BusItem>>,
    first: Utf8Bytes,
) -> Result<After, ()>
where
    S: futures_util::Sink<Message> + Unpin,
{
    let mut batch = vec![first];
    let mut after = After::Nothing;
    while batch.len() < MAX_BATCH {
        match events.try_recv() {
            Ok(item) => match &*item {
                BusItem::Event(_, json) => batch.push(json.clone()),
                BusItem::Resync => {
                    after = After::Resync;
                    break;
                }
            },
            Err(TryRecvError::Lagged(missed)) => {
                after = After::Lagged(missed);
                break;
            }
            Err(_) => break,
        }
    }
    if batch.len() == 1 {
        send_text(sink, batch.pop().expect("one frame")).await?;
    } else {
        let mut frames =
            futures_util::stream::iter(batch.into_iter().map(|t| Ok(Message::Text(t))));
        with_timeout(sink.send_all(&mut frames)).await?;
    }
    Ok(after)
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
    use tokio::sync::broadcast;

    fn event(text: &str) -> Arc<BusItem> {
        Arc::new(BusItem::Event(LiveMessage::Ping, text.into()))
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
        let after = send_events(&mut sink, &mut events, "a".into()).await;
        assert!(matches!(after, Ok(After::Resync)));
        assert_eq!(texts(&sink), ["a", "b", "c"]);
        // What came after the resync is still there for the main loop.
        assert_eq!(*events.recv().await.unwrap(), *event("d"));
    }

    #[tokio::test]
    async fn a_viewer_found_lagging_while_draining_is_reported() {
        let (tx, mut events) = broadcast::channel(2);
        for text in ["b", "c", "d", "e"] {
            tx.send(event(text)).unwrap();
        }
        let mut sink: Vec<Message> = Vec::new();
        let after = send_events(&mut sink, &mut events, "a".into()).await;
        assert!(matches!(after, Ok(After::Lagged(2))));
    }
}
