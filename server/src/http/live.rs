//! `GET /showtimes/{id}/live`: the live seat map over a WebSocket. On connect the viewer gets a
//! snapshot of every seat, then each committed change as it happens, and a ping every
//! [`PING_EVERY`]. A viewer too slow to keep up is disconnected (close code 4008) rather than
//! buffered for; browsers reconnect and resync from a fresh snapshot.

use super::error::ApiError;
use super::handlers::showtime_id;
use super::AppState;
use crate::engine::Engine;
use crate::events::BusItem;
use app::domain::{LiveMessage, ShowtimeId};
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, State};
use axum::response::Response;
use futures_util::{SinkExt, StreamExt};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::broadcast::error::{RecvError, TryRecvError};

pub const PING_EVERY: Duration = Duration::from_secs(15);
/// How long one message may take to leave before the viewer counts as stuck.
const SEND_TIMEOUT: Duration = Duration::from_secs(5);

pub async fn live(
    State(state): State<AppState>,
    Path(id): Path<String>,
    ws: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Result<Response, ApiError> {
    let showtime = showtime_id(&id)?;
    // Unknown showtimes are refused with a 404 before the upgrade (cached layout, no query).
    state.engine.ensure_showtime(showtime).await?;
    let ws = ws.map_err(|_| {
        ApiError::BadRequest("connect to this address with a WebSocket upgrade".into())
    })?;
    let engine = state.engine.clone();
    Ok(ws
        .max_message_size(1024)
        // Viewers send nothing: small buffers keep thousands of sockets cheap (tungstenite's
        // defaults are 128 KiB each). A viewer whose unsent data passes the cap is dropped.
        .read_buffer_size(4 * 1024)
        .write_buffer_size(0)
        .max_write_buffer_size(512 * 1024)
        .on_upgrade(move |socket| serve(socket, engine, showtime)))
}

async fn serve(socket: WebSocket, engine: Arc<Engine>, showtime: ShowtimeId) {
    // Subscribe before taking the snapshot that is sent, so nothing falls between the two; a
    // change that is in both is ignored by the client thanks to the seat versions.
    let mut events = engine.events().subscribe(showtime);
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
                Some(Ok(_)) => {} // viewers have nothing to say; pongs are handled by axum
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
async fn with_timeout<F, E>(send: F) -> Result<(), ()>
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
