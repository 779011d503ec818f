//! `/bookings`: the customer's own bookings (and those found again with `POST /bookings/lookup`);
//! `/tickets/{code}`: what a door scanner learns from a
//! ticket's QR code, and `POST /tickets/{code}/check-in`: the door letting its holder in, once.

use super::error::ApiError;
use super::json::{from_object, RawBody, MAX_JSON_BODY};
use super::AppState;
use app::domain::{BookingId, BookingLookup, CheckInResult, CustomerId, ScanAt, DOOR_ROLES};
use app::engine::{Actor, Bookings, ClientAddr, Door, StaffAccess};
use app::error::InventoryError;
use axum::extract::{DefaultBodyLimit, Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Router};

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/bookings", get(my_bookings))
        .route("/bookings/{id}", get(get_booking))
        .route("/bookings/{id}/open", get(open_booking))
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
    let at: ScanAt = if body.iter().all(u8::is_ascii_whitespace) {
        ScanAt::default()
    } else {
        serde_json::from_slice(&body).map_err(|e| {
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
fn booking_id(raw: &str) -> Result<uuid::Uuid, ApiError> {
    uuid::Uuid::try_parse(raw)
        .map_err(|_| ApiError::BadRequest(format!("booking id must be a UUID, not {raw:?}")))
}

/// `POST /bookings/{id}/cancel`: the customer cancels their own online booking (or one they
/// found again) until `CUSTOMER_CANCEL_UNTIL_MINUTES` before the start: 200 and the booking as it
/// is then (refunded; the payment's refund follows through the gateway), its seats back on sale
/// at once. 409 `NOT_REFUNDABLE` with the reason (too late, sold at the counter, a ticket used,
/// not confirmed or refunded already); another customer's → 403; unknown → 404.
async fn cancel_booking(
    State(state): State<AppState>,
    Extension(customer): Extension<CustomerId>,
    Path(raw): Path<String>,
) -> Result<Response, ApiError> {
    let id = booking_id(&raw)?;
    let view = state.engine.cancel_booking(BookingId(id), customer).await?;
    Ok(axum::Json(view).into_response())
}

/// `GET /bookings/{id}/open?key=…`: the link in a booking's e-mail. With the key signed for that
/// booking, this browser (or client) may see the booking from now on, and is sent to its page
/// (303 to `/my-bookings/{id}`); a wrong or missing key is 404, as an unknown booking is.
async fn open_booking(
    State(state): State<AppState>,
    Extension(customer): Extension<CustomerId>,
    Path(raw): Path<String>,
    Query(query): Query<std::collections::HashMap<String, String>>,
) -> Result<Response, ApiError> {
    let id = booking_id(&raw)?;
    let key = query.get("key").map_or("", String::as_str);
    state
        .engine
        .open_booking_link(BookingId(id), key, customer)
        .await?;
    Ok(axum::response::Redirect::to(&format!("/my-bookings/{id}")).into_response())
}

/// `POST /bookings/lookup` `{"reference": "21D6B008", "email": "kim@example.com"}`: the booking
/// with that reference (the short number on its ticket) checked out with that address; from
/// then on it is the caller's to see too (`GET /bookings/{id}`, `GET /bookings`). 404 when no
/// booking has both (an unknown reference and a wrong address answer alike); 400 for what
/// cannot be a reference or an address; 429 (with `Retry-After`) past the tries allowed per
/// client address and per reference.
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
async fn my_bookings(
    State(state): State<AppState>,
    Extension(customer): Extension<CustomerId>,
) -> Result<Response, ApiError> {
    Ok(axum::Json(state.engine.my_bookings(customer).await?).into_response())
}

/// `GET /tickets/{code}`: what a door scanner learns from a ticket's QR code: the booking and
/// the ticket's state now (`state`: `VALID`, `CHECKED_IN`, `REFUNDED`, `CANCELLED`; `valid`
/// only for `VALID`). A code this server did not sign is 404 `{valid: false}`.
async fn ticket_booking(State(state): State<AppState>, Path(code): Path<String>) -> Response {
    match state.engine.ticket_booking(&code).await {
        Ok((view, ticket)) => {
            let mut body = serde_json::to_value(&view).expect("bookings serialise");
            body["valid"] = serde_json::Value::Bool(ticket.state == "VALID");
            body["state"] = serde_json::Value::from(ticket.state);
            body["seat"] = serde_json::to_value(&ticket.seat).expect("a seat serialises");
            body["checkedIn"] = serde_json::to_value(&ticket.checked_in).expect("seats serialise");
            axum::Json(body).into_response()
        }
        Err(InventoryError::BookingNotFound) => (
            StatusCode::NOT_FOUND,
            axum::Json(serde_json::json!({
                "valid": false, "error": "not a ticket of ours", "code": "INVALID_TICKET"
            })),
        )
            .into_response(),
        Err(e) => ApiError::from(e).into_response(),
    }
}
