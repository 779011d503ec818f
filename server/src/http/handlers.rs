//! REST handlers: parse the request, call the engine, shape the answer. Nothing else.

use super::error::ApiError;
use super::json::JsonBody;
use super::AppState;
use app::domain::{CustomerId, HoldId, SeatSelection, ShowtimeId};
use app::engine::Inventory;
use app::error::InventoryError;
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde::Deserialize;
use serde_json::json;

pub(super) fn showtime_id(raw: &str) -> Result<ShowtimeId, ApiError> {
    ShowtimeId::parse(raw).ok_or_else(|| {
        ApiError::BadRequest(format!(
            "showtime id must be a positive whole number, not {raw:?}"
        ))
    })
}

#[tracing::instrument(skip(state))]
pub async fn health(State(state): State<AppState>) -> impl IntoResponse {
    let backend = state.engine.store().backend();
    match state.engine.store().ping().await {
        Ok(()) => (
            StatusCode::OK,
            Json(json!({ "status": "ok", "database": backend })),
        ),
        Err(e) => {
            tracing::error!(error = %e, "health check: database does not answer");
            (
                StatusCode::SERVICE_UNAVAILABLE,
                Json(json!({ "status": "unavailable", "database": backend })),
            )
        }
    }
}

#[tracing::instrument(skip(state))]
pub async fn list_showtimes(State(state): State<AppState>) -> Result<impl IntoResponse, ApiError> {
    Ok(Json(state.engine.list_showtimes().await?))
}

/// Served from the in-memory snapshot, with a strong `ETag` and a one-second public cache
/// lifetime so that a CDN can absorb the reads; `If-None-Match` with the current tag gets 304.
#[tracing::instrument(skip(state, headers))]
pub async fn seat_map(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let snapshot = state.engine.seat_map_snapshot(showtime_id(&id)?).await?;
    let cache = [
        (header::ETAG, snapshot.etag.clone()),
        (header::CACHE_CONTROL, "public, max-age=1".to_string()),
    ];
    let unchanged = headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|tag| tag.trim() == snapshot.etag || tag.trim() == "*");
    if unchanged {
        return Ok((StatusCode::NOT_MODIFIED, cache).into_response());
    }
    Ok((
        StatusCode::OK,
        cache,
        [(header::CONTENT_TYPE, "application/json".to_string())],
        snapshot.json.clone(),
    )
        .into_response())
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HoldBody {
    seats: Vec<String>,
}

#[tracing::instrument(skip(state, body))]
pub async fn create_hold(
    State(state): State<AppState>,
    Extension(customer): Extension<CustomerId>,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<HoldBody>,
) -> Result<impl IntoResponse, ApiError> {
    let showtime = showtime_id(&id)?;
    let seats = SeatSelection::parse(&body.seats).map_err(InventoryError::from)?;
    let hold = state.engine.hold(showtime, &seats, customer).await?;
    let location = format!("/holds/{}", hold.hold_id);
    Ok((
        StatusCode::CREATED,
        [(header::LOCATION, location)],
        Json(hold),
    ))
}

#[tracing::instrument(skip(state))]
pub async fn cancel_hold(
    State(state): State<AppState>,
    Extension(customer): Extension<CustomerId>,
    Path(raw): Path<String>,
) -> Result<impl IntoResponse, ApiError> {
    let Some(hold) = HoldId::parse(&raw) else {
        return match uuid::Uuid::try_parse(&raw) {
            // A well-formed id that no hold of ours can have.
            Ok(_) => Err(InventoryError::HoldNotFound.into()),
            Err(_) => Err(ApiError::BadRequest(format!(
                "hold id must be a UUID, not {raw:?}"
            ))),
        };
    };
    state.engine.cancel(hold, customer).await?;
    Ok(StatusCode::NO_CONTENT)
}
