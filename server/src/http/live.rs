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
use tokio::sync::broadcast::error::RecvError;

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
            event = events.recv() => match event {
                Ok(item) => {
                    let sent = match &*item {
                        BusItem::Event(_, json) => send_text(&mut sink, json.clone()).await,
                        // Events may have been missed (Redis was away): a fresh snapshot.
                        BusItem::Resync => match engine.live_snapshot_json(showtime, Instant::now()).await {
                            Ok(snapshot) => send_text(&mut sink, snapshot).await,
                            Err(_) => break, // the client reconnects and tries again
                        },
                    };
                    if sent.is_err() {
                        break;
                    }
                }
                Err(RecvError::Lagged(missed)) => {
                    tracing::info!(%showtime, missed, "live viewer too slow; disconnecting");
                    let close = CloseFrame { code: 4008, reason: "too slow, reconnect".into() };
                    let _ = sink.send(Message::Close(Some(close))).await;
                    break;
                }
                Err(RecvError::Closed) => break,
            },
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
    match tokio::time::timeout(SEND_TIMEOUT, sink.send(Message::Text(text))).await {
        Ok(Ok(())) => Ok(()),
        _ => Err(()),
    }
}
