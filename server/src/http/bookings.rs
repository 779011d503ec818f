//! `/bookings`: the customer's own bookings (and those found again with `POST /bookings/lookup`);
//! `/tickets/{code}`: what a door scanner learns from a
//! ticket's QR code, and `POST /tickets/{code}/check-in`: the door letting its holder in, once.

use super::error::ApiError;
use super::json::{absent, from_object, RawBody, MAX_JSON_BODY};
use super::AppState;
use app::domain::{BookingId, BookingLookup, CheckInResult, CustomerId, ScanAt, DOOR_ROLES};
use app::engine::{Actor, Bookings, ClientAddr, Door, StaffAccess};
use app::error::InventoryError;
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Router};
use serde::Serialize;
use utoipa::OpenApi;

/// This module's part of the OpenAPI description.
#[derive(OpenApi)]
#[openapi(paths(
    my_bookings,
    get_booking,
    cancel_booking,
    lookup_booking,
    ticket_booking,
    check_in_ticket
))]
pub struct Api;

/// `GET /tickets/{code}`: the booking, and the ticket's state now.
#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TicketAnswer {
    #[serde(flatten)]
    booking: app::domain::BookingView,
    /// `state` is `VALID`.
    valid: bool,
    /// `VALID`, `CHECKED_IN`, `REFUNDED`, `EXCHANGED` or `CANCELLED`.
    #[schema(example = "VALID")]
    state: &'static str,
    /// A seat's ticket: its seat (the booking's code: none).
    seat: Option<String>,
    /// The booking's seats that are in.
    checked_in: Vec<String>,
}

/// `GET /tickets/{code}` of a code this server did not sign, or never issued.
#[derive(Serialize, utoipa::ToSchema)]
pub struct NotATicket {
    /// Always `false`.
    valid: bool,
    error: &'static str,
    /// `INVALID_TICKET`.
    code: &'static str,
}

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/bookings", get(my_bookings))
        .route("/bookings/{id}", get(get_booking))
        .route("/bookings/{id}/cancel", post(cancel_booking))
        .route(
            "/bookings/lookup",
            post(lookup_booking).layer(DefaultBodyLimit::max(MAX_JSON_BODY)),
        )
        .route("/tickets/{code}", get(ticket_booking))
        .route("/tickets/{code}/check-in", post(check_in_ticket))
}

/// `POST /tickets/{code}/check-in` (door staff, clerks, supervisors), with an optional JSON body
/// `{"gate": "A", "showtimeId": 42}` (the gate scanning, the showtime it admits): the holder is
/// let in once. 200 `{"result": "OK", …}`; 409 `ALREADY_CHECKED_IN` (with the first scan's time
/// and gate), `WRONG_SHOWTIME` or `REFUNDED`; 404 `NOT_FOUND` (not a ticket of ours, or never
/// sold). Always with the booking's showtime and seats when the ticket is ours.
#[utoipa::path(post, path = "/tickets/{code}/check-in", tag = "door",
    params(("code" = String, Path, description = "The code of the ticket's QR code")),
    request_body(content = Option<app::domain::ScanAt>, description = "The gate scanning and the showtime it admits (both optional)"),
    security(("staff_session" = []), ("staff_token" = [])),
    responses(
        (status = 200, description = "`OK`: let in", body = app::domain::CheckIn),
        (status = 400, description = "A body that is not `{gate, showtimeId}`", body = super::error::ErrorBody),
        (status = 401, description = "`STAFF_SIGN_IN_REQUIRED`", body = super::error::ErrorBody),
        (status = 403, description = "`STAFF_FORBIDDEN`: a role that does not work the door", body = super::error::ErrorBody),
        (status = 404, description = "`NOT_FOUND`: not a ticket of ours, or never sold", body = app::domain::CheckIn),
        (status = 409, description = "`ALREADY_CHECKED_IN`, `WRONG_SHOWTIME`, `REFUNDED`, `EXCHANGED`, `CANCELLED`", body = app::domain::CheckIn),
        (status = 423, description = "`STAFF_SESSION_LOCKED`", body = super::error::ErrorBody)))]
async fn check_in_ticket(
    State(state): State<AppState>,
    Extension(access): Extension<StaffAccess>,
    client: Option<Extension<ClientAddr>>,
    Path(code): Path<String>,
    RawBody(body): RawBody,
) -> Result<Response, ApiError> {
    let by = Actor {
        member: access.require(&DOOR_ROLES).await?,
        address: client.map(|c| c.0 .0),
    };
    let at: ScanAt = if absent(&body) {
        ScanAt::default()
    } else {
        // An object: a list (`[]`) is not "no showtime".
        from_object(&body).map_err(|e| {
            ApiError::BadRequest(format!("the body must be {{gate, showtimeId}}: {e}"))
        })?
    };
    let answer = state.engine.check_in_ticket(&by, &code, &at).await?;
    let status = match answer.result {
        CheckInResult::Ok => StatusCode::OK,
        CheckInResult::NotFound => StatusCode::NOT_FOUND,
        _ => StatusCode::CONFLICT,
    };
    Ok((status, axum::Json(answer)).into_response())
}

/// `GET /bookings/{id}`: the customer's own booking with its payments.
#[utoipa::path(get, path = "/bookings/{id}", tag = "bookings",
    params(("id" = uuid::Uuid, Path, description = "The booking (`bookingId`)")),
    responses((status = 200, description = "The booking", body = app::domain::BookingView),
        (status = 400, description = "Not a UUID", body = super::error::ErrorBody),
        (status = 403, description = "Another customer's", body = super::error::ErrorBody),
        (status = 404, description = "No such booking", body = super::error::ErrorBody)))]
async fn get_booking(
    State(state): State<AppState>,
    Extension(customer): Extension<CustomerId>,
    Path(raw): Path<String>,
) -> Result<Response, ApiError> {
    let id = booking_id(&raw)?;
    let view = state.engine.get_booking(BookingId(id), customer).await?;
    Ok(axum::Json(view).into_response())
}

/// A booking id from the path: not a UUID is 400.
pub(super) fn booking_id(raw: &str) -> Result<uuid::Uuid, ApiError> {
    uuid::Uuid::try_parse(raw)
        .map_err(|_| ApiError::BadRequest(format!("booking id must be a UUID, not {raw:?}")))
}

/// `POST /bookings/{id}/cancel`: the customer cancels their own online booking (or one whose
/// e-mailed link this session opened) until `CUSTOMER_CANCEL_UNTIL_MINUTES` before the start (by
/// the database's clock): 200 and the booking as it is then (refunded; the payment's refund
/// follows through the gateway), its seats back on sale at once. 409 `NOT_REFUNDABLE` with the
/// reason (too late, sold at the counter, a ticket used, not confirmed or refunded already); a
/// booking this session only found by its number and address → 403 `CANCEL_NEEDS_LINK`; another
/// customer's → 403; unknown → 404.
#[utoipa::path(post, path = "/bookings/{id}/cancel", tag = "bookings",
    params(("id" = uuid::Uuid, Path, description = "The booking (`bookingId`)")),
    responses((status = 200, description = "Cancelled: the booking as it is now (`refundedAt` set)", body = app::domain::BookingView),
        (status = 400, description = "Not a UUID", body = super::error::ErrorBody),
        (status = 403, description = "Another customer's (`NOT_YOUR_BOOKING`), or one this session only found by its number and address (`CANCEL_NEEDS_LINK`: open the e-mailed link)", body = super::error::ErrorBody),
        (status = 404, description = "No such booking", body = super::error::ErrorBody),
        (status = 409, description = "`NOT_REFUNDABLE`, with the reason", body = super::error::ErrorBody)))]
async fn cancel_booking(
    State(state): State<AppState>,
    Extension(customer): Extension<CustomerId>,
    Path(raw): Path<String>,
) -> Result<Response, ApiError> {
    let id = booking_id(&raw)?;
    let view = state.engine.cancel_booking(BookingId(id), customer).await?;
    Ok(axum::Json(view).into_response())
}

/// `POST /bookings/lookup` `{"reference": "21D6B008", "email": "kim@example.com"}`: the booking
/// with that reference (the short number on its ticket) checked out with that address; from
/// then on it is the caller's to see too (`GET /bookings/{id}`, `GET /bookings`). 404 when no
/// booking has both (an unknown reference and a wrong address answer alike); 400 for what
/// cannot be a reference or an address; 429 (with `Retry-After`) past the tries allowed per
/// client address and per reference.
#[utoipa::path(post, path = "/bookings/lookup", tag = "bookings",
    request_body = app::domain::BookingLookup,
    responses((status = 200, description = "The booking, from now on this session's to see too", body = app::domain::BookingView),
        (status = 400, description = "Not a reference (8 hexadecimal digits) or not an address", body = super::error::ErrorBody),
        (status = 404, description = "`BOOKING_NOT_FOUND`: no booking has both", body = super::error::ErrorBody),
        (status = 429, description = "`RATE_LIMITED`", body = super::error::ErrorBody, headers(("Retry-After" = u64)))))]
async fn lookup_booking(
    State(state): State<AppState>,
    Extension(customer): Extension<CustomerId>,
    client: Option<Extension<ClientAddr>>,
    RawBody(body): RawBody,
) -> Result<Response, ApiError> {
    let lookup: BookingLookup = from_object(&body).map_err(|e| {
        ApiError::BadRequest(format!(
            "the body must be {{\"reference\": the booking number on the ticket, \"email\": the address given at checkout}}: {e}"
        ))
    })?;
    let view = state
        .engine
        .lookup_booking(lookup, customer, client.map(|c| c.0 .0))
        .await?;
    Ok(axum::Json(view).into_response())
}

/// `GET /bookings`: the customer's bookings, newest first.
#[utoipa::path(get, path = "/bookings", tag = "bookings",
    responses((status = 200, description = "This session's bookings (and those it found again)", body = [app::domain::BookingView])))]
async fn my_bookings(
    State(state): State<AppState>,
    Extension(customer): Extension<CustomerId>,
) -> Result<Response, ApiError> {
    Ok(axum::Json(state.engine.my_bookings(customer).await?).into_response())
}

/// `GET /tickets/{code}`: what a door scanner learns from a ticket's QR code: the booking and
/// the ticket's state now (`state`: `VALID`, `CHECKED_IN`, `REFUNDED`, `EXCHANGED`,
/// `CANCELLED`; `valid` only for `VALID`). A code this server did not sign is 404 `{valid: false}`.
#[utoipa::path(get, path = "/tickets/{code}", tag = "door",
    params(("code" = String, Path, description = "The code of the ticket's QR code")),
    responses((status = 200, description = "The booking and the ticket's state", body = TicketAnswer),
        (status = 404, description = "Not a code of ours", body = NotATicket)))]
async fn ticket_booking(State(state): State<AppState>, Path(code): Path<String>) -> Response {
    match state.engine.ticket_booking(&code).await {
        Ok((booking, ticket)) => axum::Json(TicketAnswer {
            booking,
            valid: ticket.state == "VALID",
            state: ticket.state,
            seat: ticket.seat,
            checked_in: ticket.checked_in,
        })
        .into_response(),
        Err(InventoryError::BookingNotFound) => (
            StatusCode::NOT_FOUND,
            axum::Json(NotATicket {
                valid: false,
                error: "not a ticket of ours",
                code: "INVALID_TICKET",
            }),
        )
            .into_response(),
        Err(e) => ApiError::from(e).into_response(),
    }
}
