//! `/showtimes/{id}/queue`: the waiting room of a hot sale. `POST` joins (again: the same
//! place), `GET` tells the caller's place (by session, or header `Queue-Ticket`), and
//! `GET …/queue/live?ticket=…` is the waiting page's WebSocket: the room's one frame (the same
//! bytes for every waiter) whenever it changes, while the connection keeps the place alive.

use super::error::ApiError;
use super::live::{origin_allowed, with_timeout, MAX_FRAME, PING_EVERY};
use super::params::Id;
use super::AppState;
use app::domain::{CustomerId, QueuePlace, QueueProof, ShowtimeId};
use app::engine::{ClientAddr, WaitingRooms};
use app::error::InventoryError;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Extension, Json, Router};
use futures_util::{SinkExt, StreamExt};
use serde::Deserialize;

pub const QUEUE_TICKET: &str = "queue-ticket";
pub const QUEUE_PROOF: &str = "queue-proof";

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/showtimes/{id}/queue", get(place).post(join))
        .route("/showtimes/{id}/queue/live", get(live))
}

/// A ticket as the room makes them: 32 hexadecimal digits.
fn ticket_shape(ticket: &str) -> Result<&str, ApiError> {
    if ticket.len() == 32 && ticket.bytes().all(|b| b.is_ascii_hexdigit()) {
        Ok(ticket)
    } else {
        Err(ApiError::BadRequest(
            "a queue ticket is the 32 hexadecimal digits the queue answered".into(),
        ))
    }
}

/// `Queue-Proof: <challenge>:<nonce>`, when the room asks a proof of work.
fn proof_header(headers: &HeaderMap) -> Result<Option<QueueProof>, ApiError> {
    let Some(value) = headers.get(QUEUE_PROOF) else {
        return Ok(None);
    };
    value
        .to_str()
        .ok()
        .and_then(|v| v.rsplit_once(':'))
        .and_then(|(challenge, nonce)| {
            Some(QueueProof {
                challenge: challenge.to_string(),
                nonce: nonce.parse().ok()?,
            })
        })
        .map(Some)
        .ok_or_else(|| {
            ApiError::BadRequest(
                "Queue-Proof is <challenge>:<nonce>, the nonce a decimal number".into(),
            )
        })
}

#[tracing::instrument(skip(state, headers))]
async fn join(
    State(state): State<AppState>,
    Extension(customer): Extension<CustomerId>,
    client: Option<Extension<ClientAddr>>,
    Id(showtime): Id<ShowtimeId>,
    headers: HeaderMap,
) -> Result<(StatusCode, Json<QueuePlace>), ApiError> {
    let address = client.map(|c| c.0 .0);
    let proof = proof_header(&headers)?;
    let place = state
        .engine
        .join_queue(showtime, customer, address, proof)
        .await?;
    Ok((StatusCode::OK, Json(place)))
}

#[tracing::instrument(skip(state, headers))]
async fn place(
    State(state): State<AppState>,
    Extension(customer): Extension<CustomerId>,
    Id(showtime): Id<ShowtimeId>,
    headers: HeaderMap,
) -> Result<Json<QueuePlace>, ApiError> {
    let ticket = match headers.get(QUEUE_TICKET) {
        Some(value) => Some(ticket_shape(value.to_str().unwrap_or_default())?.to_string()),
        None => None,
    };
    state
        .engine
        .queue_place(showtime, ticket.as_deref(), customer)
        .await?
        .map(Json)
        .ok_or(ApiError::Inventory(InventoryError::NoWaitingRoom))
}

#[derive(Deserialize)]
struct LiveQuery {
    ticket: String,
}

async fn live(
    State(state): State<AppState>,
    Id(showtime): Id<ShowtimeId>,
    query: Result<Query<LiveQuery>, axum::extract::rejection::QueryRejection>,
    headers: HeaderMap,
    connection: Option<Extension<super::serve::HeldConnection>>,
    ws: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Result<Response, ApiError> {
    state.engine.ensure_showtime(showtime).await?;
    let Ok(Query(LiveQuery { ticket })) = query else {
        return Err(ApiError::BadRequest(
            "name the place: /showtimes/{id}/queue/live?ticket=<ticket>".into(),
        ));
    };
    let ticket = ticket_shape(&ticket)?.to_string();
    let ws = ws.map_err(|_| {
        ApiError::BadRequest("connect to this address with a WebSocket upgrade".into())
    })?;
    if !origin_allowed(&state, &headers) {
        return Err(ApiError::BadRequest(
            "the waiting room's live feed is only for pages of this site".into(),
        ));
    }
    let engine = state.engine.clone();
    let connection = connection.map(|c| c.0);
    Ok(ws
        .max_message_size(MAX_FRAME)
        .max_frame_size(MAX_FRAME)
        // A waiter's socket is sent one small frame now and then: the smallest buffers.
        .read_buffer_size(1024)
        .write_buffer_size(0)
        .max_write_buffer_size(16 * 1024)
        .on_upgrade(move |socket| async move {
            pages().spawn(async move {
                let _held = connection;
                serve(socket, engine, showtime, ticket).await
            });
        })
        .into_response())
}

/// The waiting pages' sockets run on a thread of their own: a frame sent to thousands of them
/// takes that thread for a moment, not the threads that answer holds and seat maps. (Their
/// sockets stay with the server's runtime, which wakes this thread for them.)
fn pages() -> &'static tokio::runtime::Handle {
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

/// Forgets the connected page when its connection ends, however it ends.
struct Connected<'a> {
    engine: &'a crate::engine::Engine,
    showtime: ShowtimeId,
    ticket: String,
}

impl Drop for Connected<'_> {
    fn drop(&mut self) {
        self.engine
            .waiting_rooms()
            .disconnect(self.showtime, &self.ticket);
    }
}

async fn serve(
    socket: WebSocket,
    engine: std::sync::Arc<crate::engine::Engine>,
    showtime: ShowtimeId,
    ticket: String,
) {
    engine.waiting_rooms().connect(showtime, &ticket);
    let _connected = Connected {
        engine: &engine,
        showtime,
        ticket,
    };
    let mut frames = engine.queue_frames(showtime);
    let (mut sink, mut incoming) = socket.split();
    let mut ping = tokio::time::interval(PING_EVERY);
    ping.tick().await;
    // The current frame first (the channel marks it seen), then each change.
    let current = frames.borrow_and_update().clone();
    if !current.is_empty() && sink.send(Message::Text(current)).await.is_err() {
        return;
    }
    loop {
        tokio::select! {
            changed = frames.changed() => {
                if changed.is_err() {
                    break;
                }
                let frame = frames.borrow_and_update().clone();
                if frame.is_empty() {
                    continue;
                }
                // Most sends finish at once and arm no timer (thousands of pages get each frame).
                if with_timeout(sink.send(Message::Text(frame))).await.is_err() {
                    break;
                }
            }
            _ = ping.tick() => {
                if sink.send(Message::Ping(Default::default())).await.is_err() {
                    break;
                }
            }
            frame = incoming.next() => match frame {
                None | Some(Err(_)) | Some(Ok(Message::Close(_))) => break,
                Some(Ok(Message::Text(_) | Message::Binary(_))) => break,
                Some(Ok(_)) => {}
            },
        }
    }
}
