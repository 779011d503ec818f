//! `/showtimes/{id}/queue`: the waiting room of a hot sale. `POST` joins (again: the same
//! place), `GET` tells the caller's place (by session, or header `Queue-Ticket`), and
//! `GET …/queue/live?ticket=…` is the waiting page's WebSocket: the room's one frame (the same
//! bytes for every waiter) whenever it changes, while the connection keeps the place alive
//! (served by `queue_pages` once the handshake is answered here).

use super::error::ApiError;
use super::params::Id;
use super::upgrade::{handshake, not_an_upgrade, origin_allowed};
use super::AppState;
use app::domain::{CustomerId, QueuePlace, QueueProof, ShowtimeId};
use app::engine::{ClientAddr, WaitingRooms};
use app::error::InventoryError;
use axum::extract::{Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Extension, Json, Router};
use serde::Deserialize;
use utoipa::OpenApi;

/// This module's part of the OpenAPI description.
#[derive(OpenApi)]
#[openapi(paths(join, place, live))]
pub struct Api;

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

/// Takes a place in the showtime's waiting room (again: the same place).
#[utoipa::path(post, path = "/showtimes/{id}/queue", tag = "waiting room",
    params(("id" = i64, Path, description = "The showtime"),
        ("Queue-Proof" = Option<String>, Header, pattern = "^.+:[0-9]{1,19}$", description = "`<challenge>:<nonce>`, when the room asks a proof of work")),
    responses((status = 200, description = "The session's place", body = app::domain::QueuePlace),
        (status = 400, description = "A `Queue-Proof` that is not `<challenge>:<decimal nonce>`, or not a showtime id", body = super::error::ErrorBody),
        (status = 403, description = "`PROOF_REQUIRED` (`challenge`, `bits`): nothing joined", body = super::error::ErrorBody),
        (status = 404, description = "No such showtime", body = super::error::ErrorBody),
        (status = 409, description = "`NO_WAITING_ROOM` (hold directly), `SHOWTIME_CANCELLED`", body = super::error::ErrorBody),
        (status = 429, description = "`QUEUE_ADDRESS_LIMIT`", body = super::error::ErrorBody, headers(("Retry-After" = u64))),
        (status = 503, description = "`QUEUE_FULL`, `QUEUE_UNAVAILABLE`", body = super::error::ErrorBody)))]
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

/// The caller's place in the waiting room (by session, or by `Queue-Ticket`).
#[utoipa::path(get, path = "/showtimes/{id}/queue", tag = "waiting room",
    params(("id" = i64, Path, description = "The showtime"),
        ("Queue-Ticket" = Option<String>, Header, pattern = "^[0-9a-fA-F]{32}$",
            description = "The place's ticket (32 hexadecimal digits)")),
    responses((status = 200, description = "The place", body = app::domain::QueuePlace),
        (status = 400, description = "A `Queue-Ticket` that is not 32 hexadecimal digits, or not a showtime id", body = super::error::ErrorBody),
        (status = 404, description = "`QUEUE_PLACE_NOT_FOUND` (join again), or no such showtime", body = super::error::ErrorBody),
        (status = 409, description = "`NO_WAITING_ROOM`", body = super::error::ErrorBody),
        (status = 429, description = "`RATE_LIMITED`: asked sooner than half of `pollAfterMs`", body = super::error::ErrorBody, headers(("Retry-After" = u64))),
        (status = 503, description = "`QUEUE_UNAVAILABLE`", body = super::error::ErrorBody)))]
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

/// The waiting page's WebSocket: the room's frame whenever it changes; keeps the place alive.
/// Pinged every 15 s (`WAITING_ROOM_PAGE_PING_SECONDS`); a page that answers nothing for three
/// pings is closed (1001).
#[utoipa::path(get, path = "/showtimes/{id}/queue/live", tag = "waiting room",
    params(("id" = i64, Path, description = "The showtime"),
        ("ticket" = String, Query, pattern = "^[0-9a-fA-F]{32}$", description = "The place's ticket")),
    responses((status = 101, description = "Switched to the WebSocket protocol"),
        (status = 400, description = "No `ticket`, or not a WebSocket upgrade", body = super::error::ErrorBody),
        (status = 403, description = "`CROSS_SITE_REQUEST`: from a page of another site (`Origin`)", body = super::error::ErrorBody),
        (status = 404, description = "`QUEUE_PLACE_NOT_FOUND`: no place of the room has that ticket; or no such showtime", body = super::error::ErrorBody),
        (status = 409, description = "`NO_WAITING_ROOM`", body = super::error::ErrorBody),
        (status = 429, description = "`RATE_LIMITED`: the place has 4 pages open already", body = super::error::ErrorBody, headers(("Retry-After" = u64))),
        (status = 503, description = "`TOO_MANY_WAITERS` (the waiting pages' caps), over the connection caps, or `QUEUE_UNAVAILABLE`", body = super::error::ErrorBody)))]
async fn live(
    State(state): State<AppState>,
    Id(showtime): Id<ShowtimeId>,
    query: Result<Query<LiveQuery>, axum::extract::rejection::QueryRejection>,
    headers: HeaderMap,
    client: Option<Extension<ClientAddr>>,
    connection: Option<Extension<super::serve::HeldConnection>>,
    mut request: axum::extract::Request,
) -> Result<Response, ApiError> {
    state.engine.ensure_showtime(showtime).await?;
    let Ok(Query(LiveQuery { ticket })) = query else {
        return Err(ApiError::BadRequest(
            "name the place: /showtimes/{id}/queue/live?ticket=<ticket>".into(),
        ));
    };
    let ticket = ticket_shape(&ticket)?.to_string();
    if request.method() != axum::http::Method::GET {
        return Err(not_an_upgrade());
    }
    let accept = handshake(&headers)?;
    let upgrade = request
        .extensions_mut()
        .remove::<hyper::upgrade::OnUpgrade>()
        .ok_or_else(not_an_upgrade)?;
    if !origin_allowed(&state, &headers) {
        return Err(ApiError::Forbidden(
            "CROSS_SITE_REQUEST",
            "the waiting room's live feed is only for pages of this site".into(),
        ));
    }
    // Only a place of the room (it is on) gets a socket, and a few pages each at most: a
    // made-up ticket never holds a connection.
    state.engine.queue_page_allowed(showtime, &ticket).await?;
    let Some(of_place) = state.web.pages.of_place(showtime, &ticket) else {
        return Err(ApiError::Inventory(InventoryError::RateLimited(5)));
    };
    let Some(place) = state
        .web
        .waiters
        .admit(client.map(|c| crate::net::bucket(c.0 .0)))
    else {
        return Ok(super::sockets::over_cap(
            "TOO_MANY_WAITERS",
            "waiting pages",
        ));
    };
    state.web.pages.serve(
        upgrade,
        state.engine.clone(),
        showtime,
        ticket,
        (place, of_place, connection.map(|c| c.0)),
    );
    Ok((
        StatusCode::SWITCHING_PROTOCOLS,
        [
            (header::CONNECTION, HeaderValue::from_static("upgrade")),
            (header::UPGRADE, HeaderValue::from_static("websocket")),
            (header::SEC_WEBSOCKET_ACCEPT, accept),
        ],
    )
        .into_response())
}
