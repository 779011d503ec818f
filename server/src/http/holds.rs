//! `/holds/{holdId}`: cancelling a hold, and its checkout. Checkout takes an `Idempotency-Key`
//! header. The key is claimed durably per customer before anything happens: the same key with the
//! same request gets the first answer again (status and body, with `Idempotent-Replayed: true`),
//! with another request 422, while the first still runs 409, and no key 400. An answer worth
//! retrying (5xx: the gateway or the database was away) frees the key instead of being kept.

use super::error::ApiError;
use super::json::{absent, from_object, RawBody, MAX_JSON_BODY};
use super::params::Id;
use super::AppState;
use crate::store::IdempotencyBegin;
use app::domain::{CheckoutDetails, CustomerId, HoldId};
use app::engine::Holds;
use app::error::InventoryError;
use axum::extract::{DefaultBodyLimit, FromRequestParts, State};
use axum::http::request::Parts;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, post};
use axum::{Extension, Router};
use sha2::{Digest, Sha256};
use utoipa::OpenApi;

/// This module's part of the OpenAPI description.
#[derive(OpenApi)]
#[openapi(paths(cancel_hold, checkout_hold))]
pub struct Api;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/holds/{hold_id}", delete(cancel_hold))
        .route(
            "/holds/{hold_id}/checkout",
            post(checkout_hold).layer(DefaultBodyLimit::max(MAX_JSON_BODY)),
        )
}

/// Gives a hold's seats back at once.
#[utoipa::path(delete, path = "/holds/{hold_id}", tag = "holds",
    params(("hold_id" = uuid::Uuid, Path, description = "The hold (`holdId`)")),
    responses((status = 204, description = "Cancelled: its seats are free"),
        (status = 400, description = "Not a UUID", body = super::error::ErrorBody),
        (status = 403, description = "Another customer's hold", body = super::error::ErrorBody),
        (status = 404, description = "No such live hold", body = super::error::ErrorBody)))]
#[tracing::instrument(skip(state))]
async fn cancel_hold(
    State(state): State<AppState>,
    Extension(customer): Extension<CustomerId>,
    Id(hold): Id<HoldId>,
) -> Result<impl IntoResponse, ApiError> {
    state.engine.cancel_hold(hold, customer).await?;
    Ok(StatusCode::NO_CONTENT)
}

fn json_answer(status: StatusCode, body: String) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// The `Idempotency-Key` header: 1 to 200 characters. Read before the hold id (axum runs the
/// extractors in argument order), so a request without one is told that first.
struct IdempotencyKey(String);

impl<S: Send + Sync> FromRequestParts<S> for IdempotencyKey {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        parts
            .headers
            .get("idempotency-key")
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
            .filter(|k| !k.is_empty() && k.len() <= 200)
            .map(|k| Self(k.to_string()))
            .ok_or(ApiError::IdempotencyKeyMissing)
    }
}

/// Starts paying for a hold: one booking and one payment session per hold.
///
/// The same `Idempotency-Key` and hold again answer the stored answer (`Idempotent-Replayed`).
#[utoipa::path(post, path = "/holds/{hold_id}/checkout", tag = "holds",
    params(("hold_id" = uuid::Uuid, Path, description = "The hold (`holdId`)"),
        ("Idempotency-Key" = String, Header, min_length = 1, max_length = 200, pattern = r"\S",
            description = "1 to 200 characters, one per checkout attempt")),
    request_body(content = Option<app::domain::CheckoutDetails>, description = "All optional; an empty body is `{}`"),
    responses(
        (status = 201, description = "The booking, pending its payment", body = app::domain::Checkout,
            links(("booking" = (operation_id = "get_booking", parameters(("id" = "$response.body#/bookingId")))),
                ("cancel" = (operation_id = "cancel_booking", parameters(("id" = "$response.body#/bookingId")))))),
        (status = 400, description = "No `Idempotency-Key`, not a UUID, or a body that is not checkout's", body = super::error::ErrorBody),
        (status = 403, description = "Another customer's hold", body = super::error::ErrorBody),
        (status = 404, description = "No such hold", body = super::error::ErrorBody),
        (status = 409, description = "`HOLD_LAPSED`, `TOO_LITTLE_TIME`, `SALES_CLOSED`, `PAYMENT_RECEIVED`, or the key's first request still runs", body = super::error::ErrorBody),
        (status = 422, description = "`TICKET_TYPES`, `EMAIL_UNDELIVERABLE` (an address the ticket could never be sent to: an internationalised domain not in its `xn--` form, an IP literal), or the key was used for another request", body = super::error::ErrorBody),
        (status = 429, description = "`RATE_LIMITED`", body = super::error::ErrorBody, headers(("Retry-After" = u64))),
        (status = 503, description = "The payment gateway is unreachable (the key is not kept)", body = super::error::ErrorBody)))]
async fn checkout_hold(
    State(state): State<AppState>,
    Extension(customer): Extension<CustomerId>,
    client: Option<Extension<app::engine::ClientAddr>>,
    IdempotencyKey(key): IdempotencyKey,
    Id(hold): Id<HoldId>,
    RawBody(body): RawBody,
) -> Result<Response, ApiError> {
    // An empty body (or `null`) is `{}`: no address, no language (what checkout took before them).
    let details = if absent(&body) {
        CheckoutDetails::default()
    } else {
        from_object::<CheckoutDetails>(&body).map_err(|e| {
                ApiError::BadRequest(format!(
                    "checkout takes an optional \"email\" (an e-mail address), \"language\" (\"ko\" or \"en\") and \"ticketTypes\" (seats per type, e.g. {{\"ADULT\": 1, \"YOUTH\": 1}}; types ADULT, YOUTH, SENIOR, DISABLED): {e}"
                ))
            })?
    };
    // An address the ticket could never be sent to is refused, not parked later.
    if let Some(email) = &details.email {
        email.deliverable().map_err(|reason| {
            ApiError::Unprocessable(
                "EMAIL_UNDELIVERABLE",
                InventoryError::Invalid(vec![reason]).to_string(),
            )
        })?;
    }
    // Rate-limited, and only for the caller's own hold, before any of it is stored.
    state
        .engine
        .checkout_gate(hold, customer, client.map(|c| c.0 .0))
        .await?;
    // The request is its hold, and the address and language it gives (none: as before they
    // were taken, so a key used then means the same request now).
    let mut request = format!("POST /holds/{hold}/checkout");
    if details != CheckoutDetails::default() {
        request.push_str(&serde_json::to_string(&details).expect("details serialise"));
    }
    let fingerprint = hex::encode(Sha256::digest(request));
    let store = state.engine.store();
    let begin = store
        .idempotency_begin(customer, &key, &fingerprint, state.engine.clock().now())
        .await
        .map_err(InventoryError::from)?;
    match begin {
        IdempotencyBegin::Replay { status, body } => {
            let status = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
            let mut response = json_answer(status, body);
            response
                .headers_mut()
                .insert("idempotent-replayed", HeaderValue::from_static("true"));
            Ok(response)
        }
        IdempotencyBegin::InFlight => Err(ApiError::IdempotencyKeyInFlight),
        IdempotencyBegin::Mismatch => Err(ApiError::IdempotencyKeyReused),
        IdempotencyBegin::Started => {
            let (status, body) = match state.engine.payment_session(hold, customer, &details).await
            {
                Ok(checkout) => (
                    StatusCode::CREATED,
                    serde_json::to_string(&checkout).expect("checkouts serialise"),
                ),
                Err(e) => {
                    let e = ApiError::from(e);
                    (e.status(), e.body().to_string())
                }
            };
            let kept = if status.is_server_error() {
                store.idempotency_abandon(customer, &key).await
            } else {
                store
                    .idempotency_finish(customer, &key, status.as_u16(), &body)
                    .await
            };
            if let Err(e) = kept {
                tracing::error!(error = %e, "idempotency key not updated");
            }
            Ok(json_answer(status, body))
        }
    }
}
