//! `GET /showtimes/{id}/live`: the live seat map over a WebSocket. On connect the viewer gets a
//! snapshot of every seat, then each committed change as it happens (merged when they come
//! faster than they can go out), and a ping every [`PING_EVERY`]. The connections themselves are
//! served by `live_halls`: one writer per showtime, no task woken per viewer and change.
//!
//! Viewers have nothing to say: a message is answered with close code 1008 (1009 over 125 bytes,
//! refused on its header before it is read). A browser's connection must come from this site or
//! an allowed origin. Viewers are capped in all and per client address, and with the waiting
//! pages by the sockets' shared cap (`sockets`; 503 before the upgrade).

use super::error::ApiError;
use super::params::Id;
use super::serve::HeldConnection;
use super::upgrade::{handshake, not_an_upgrade, origin_allowed};
use super::AppState;
use app::domain::ShowtimeId;
use app::engine::ClientAddr;
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::IntoResponse;
use axum::response::Response;
use axum::Extension;
use std::time::Duration;

pub const PING_EVERY: Duration = Duration::from_secs(15);

/// A showtime's live seat feed (WebSocket): a snapshot, then every change.
///
/// `{"type":"snapshot","showtimeId","seats":[{code,status,version}]}` on connect, then
/// `seatsHeld` / `seatsReleased` / `seatsBooked` / `seatsChanged` with the changed seats (apply
/// each seat by its version), `showtimeCancelled`, and `ping` every 15 s. A viewer sends nothing.
#[utoipa::path(get, path = "/showtimes/{id}/live", tag = "showtimes",
    params(("id" = i64, Path, description = "The showtime")),
    responses(
        (status = 101, description = "Switched to the WebSocket protocol"),
        (status = 400, description = "Not a WebSocket upgrade, or not a showtime id", body = super::error::ErrorBody),
        (status = 403, description = "From a page of another site (`Origin`)", body = super::error::ErrorBody),
        (status = 404, description = "No such showtime", body = super::error::ErrorBody),
        (status = 503, description = "Over the viewer caps", body = super::error::ErrorBody)))]
pub async fn live(
    State(state): State<AppState>,
    Id(showtime): Id<ShowtimeId>,
    headers: HeaderMap,
    client: Option<Extension<ClientAddr>>,
    connection: Option<Extension<HeldConnection>>,
    mut request: axum::extract::Request,
) -> Result<Response, ApiError> {
    // Unknown showtimes are refused with a 404 before the upgrade (cached layout, no query).
    state.engine.ensure_showtime(showtime).await?;
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
            "the live seat map is only for pages of this site".into(),
        ));
    }
    let Some(place) = state
        .web
        .viewers
        .admit(client.map(|c| crate::net::bucket(c.0 .0)))
    else {
        return Ok(super::sockets::over_cap("TOO_MANY_VIEWERS", "live viewers"));
    };
    // The upgraded connection keeps its place among the viewers and the server's connections.
    state.web.live_halls.serve(
        upgrade,
        state.engine.clone(),
        showtime,
        (place, connection.map(|c| c.0)),
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
