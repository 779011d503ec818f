//! `/showtimes`: the programme, a showtime's seat map (cached, with `ETag`), holds on it, and
//! its live feed (`live.rs`).

use super::error::ApiError;
use super::json::{JsonBody, MAX_JSON_BODY};
use super::params::Id;
use super::AppState;
use app::domain::{BestAvailable, CustomerId, SeatSelection, ShowtimeId};
use app::engine::{AdmissionProof, Holder, Holds, Showtimes};
use app::error::InventoryError;
use axum::extract::{DefaultBodyLimit, FromRequest, Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Json, Router};
use serde::Deserialize;
use utoipa::OpenApi;

/// This module's part of the OpenAPI description (`openapi.rs` puts the parts together).
#[derive(OpenApi)]
#[openapi(paths(list_showtimes, seat_map, hold_seats_or_best, super::live::live))]
pub struct Api;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/showtimes", get(list_showtimes))
        .route("/showtimes/{id}/seats", get(seat_map))
        .route(
            "/showtimes/{id}/holds",
            post(hold_seats_or_best).layer(DefaultBodyLimit::max(MAX_JSON_BODY)),
        )
        .route("/showtimes/{id}/live", get(super::live::live))
}

/// The programme: today's (venue time) and later showtimes.
#[utoipa::path(get, path = "/showtimes", tag = "showtimes",
    responses((status = 200, description = "The showtimes, soonest first", body = [app::domain::ShowtimeSummary],
        // A showtime a day or two ahead (the demo programme has six a day), on sale.
        links(("seats" = (operation_id = "seat_map", parameters(("id" = "$response.body#/12/id")))),
            ("hold" = (operation_id = "hold_seats_or_best", parameters(("id" = "$response.body#/12/id")),
                request_body = json!({"bestAvailable": {"count": 2}}))),
            ("queue" = (operation_id = "join", parameters(("id" = "$response.body#/12/id"))))))))]
#[tracing::instrument(skip(state))]
async fn list_showtimes(State(state): State<AppState>) -> Result<impl IntoResponse, ApiError> {
    Ok(Json(state.engine.list_showtimes().await?))
}

/// Served from the in-memory snapshot, with a strong `ETag` and a one-second public cache
/// lifetime so that a CDN can absorb the reads; `If-None-Match` with the current tag gets 304.
#[utoipa::path(get, path = "/showtimes/{id}/seats", tag = "showtimes",
    summary = "A showtime's seat map",
    params(("id" = i64, Path, description = "The showtime"),
        ("If-None-Match" = Option<String>, Header, description = "The `ETag` of a map already read")),
    responses(
        (status = 200, description = "The seats and their states now", body = app::domain::SeatMap,
            headers(("ETag" = String, description = "Changes with every change of a seat"),
                ("Cache-Control" = String, description = "`public, max-age=1`"))),
        (status = 304, description = "Unchanged since the `ETag` given",
            headers(("ETag" = String), ("Cache-Control" = String))),
        (status = 400, description = "Not a showtime id", body = super::error::ErrorBody),
        (status = 404, description = "No such showtime", body = super::error::ErrorBody)))]
#[tracing::instrument(skip(state, headers))]
async fn seat_map(
    State(state): State<AppState>,
    Id(showtime): Id<ShowtimeId>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let snapshot = state.engine.seat_map_snapshot(showtime).await?;
    let cache = [
        (header::ETAG, snapshot.etag().to_string()),
        (header::CACHE_CONTROL, "public, max-age=1".to_string()),
    ];
    let unchanged = headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|tag| tag.trim() == snapshot.etag() || tag.trim() == "*");
    if unchanged {
        return Ok((StatusCode::NOT_MODIFIED, cache).into_response());
    }
    Ok((
        StatusCode::OK,
        cache,
        [(header::CONTENT_TYPE, "application/json".to_string())],
        snapshot.json().clone(),
    )
        .into_response())
}

/// The body of a hold request, parsed: `{"seats": [...]}` with 1–8 distinct valid codes, or
/// `{"bestAvailable": {"count": 1..8, "category": "<optional>"}}` for the server to pick them.
/// JSON that does not have one of those shapes is 400 `BAD_REQUEST`; a request that breaks the
/// rules is 400 `INVALID_REQUEST` saying which rule.
pub enum HoldBody {
    Seats(SeatSelection),
    Best(BestAvailable),
}

impl<S: Send + Sync> FromRequest<S> for HoldBody {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let JsonBody(raw) = JsonBody::<HoldRequest>::from_request(req, state).await?;
        match (raw.seats, raw.best_available) {
            (Some(seats), None) => Ok(Self::Seats(
                SeatSelection::try_from(seats).map_err(InventoryError::from)?,
            )),
            (None, Some(best)) => Ok(Self::Best(best.check().map_err(InventoryError::from)?)),
            _ => Err(ApiError::BadRequest(
                "a hold names its seats ({\"seats\": [\"A1\", ...]}) or asks for the best ones ({\"bestAvailable\": {\"count\": 2}}), one of the two".into(),
            )),
        }
    }
}

/// A hold request as sent: the seats by code, or the best ones (exactly one of the two).
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct HoldRequest {
    /// 1 to 8 distinct seat codes of the showtime, e.g. `["F5", "F6"]`.
    #[schema(example = json!(["F5", "F6"]))]
    seats: Option<Vec<String>>,
    /// Or: the server picks `count` adjacent seats (of `category`, if named).
    best_available: Option<BestAvailable>,
}

/// The header a REST hold shows the waiting room's admission with.
pub const ADMISSION_TOKEN: &str = "admission-token";

/// Holds seats for 10 minutes (`HOLD_TTL_SECONDS`): all of them or none.
#[utoipa::path(post, path = "/showtimes/{id}/holds", tag = "holds",
    params(("id" = i64, Path, description = "The showtime"),
        ("Admission-Token" = Option<String>, Header,
            description = "The waiting room's admission, while the showtime's room is on")),
    request_body = HoldRequest,
    responses(
        (status = 201, description = "Held", body = app::domain::Hold,
            headers(("Location" = String, description = "`/holds/{holdId}`")),
            links(("cancel" = (operation_id = "cancel_hold", parameters(("hold_id" = "$response.body#/holdId")))),
                ("checkout" = (operation_id = "checkout_hold",
                    parameters(("hold_id" = "$response.body#/holdId")),
                    request_body = json!({}))))),
        (status = 400, description = "Not a hold request, or a seat code that is not one", body = super::error::ErrorBody),
        (status = 403, description = "`QUEUE_REQUIRED`: the waiting room is on and no admission was shown", body = super::error::ErrorBody),
        (status = 404, description = "No such showtime", body = super::error::ErrorBody),
        (status = 409, description = "`SEATS_UNAVAILABLE` (nothing held), `NO_BLOCK`, `SALES_CLOSED`, `SALES_NOT_OPEN`, `HOLD_LIMIT`, `ADDRESS_HOLD_LIMIT`, `RECENTLY_RELEASED`, `ADMISSION_SEAT_LIMIT`", body = super::error::ErrorBody),
        (status = 422, description = "`LONE_SEAT`, `COMPANION_NEEDS_WHEELCHAIR`", body = super::error::ErrorBody),
        (status = 429, description = "`RATE_LIMITED`", body = super::error::ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds"))),
        (status = 503, description = "`QUEUE_UNAVAILABLE`", body = super::error::ErrorBody)))]
#[tracing::instrument(skip(state, body, headers))]
async fn hold_seats_or_best(
    State(state): State<AppState>,
    Extension(customer): Extension<CustomerId>,
    client: Option<Extension<app::engine::ClientAddr>>,
    Id(showtime): Id<ShowtimeId>,
    headers: HeaderMap,
    body: HoldBody,
) -> Result<impl IntoResponse, ApiError> {
    let proof = match headers.get(ADMISSION_TOKEN).map(|v| v.to_str()) {
        Some(Ok(token)) => AdmissionProof::Token(token.to_string()),
        Some(Err(_)) => {
            return Err(ApiError::BadRequest(
                "Admission-Token is the token the queue answered".into(),
            ))
        }
        None => AdmissionProof::None,
    };
    let holder = Holder::customer(customer, client.map(|c| c.0 .0)).admitted_by(proof);
    let hold = match body {
        HoldBody::Seats(seats) => state.engine.hold_seats(showtime, &seats, holder).await?,
        HoldBody::Best(best) => state.engine.hold_best(showtime, &best, holder).await?,
    };
    let location = format!("/holds/{}", hold.hold_id);
    Ok((
        StatusCode::CREATED,
        [(header::LOCATION, location)],
        Json(hold),
    ))
}
