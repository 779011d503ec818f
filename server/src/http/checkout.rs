//! The payment endpoints. `POST /holds/{holdId}/checkout` with an `Idempotency-Key` header. The key is
//! claimed durably per customer before anything happens: the same key with the same request gets
//! the first answer again (status and body, with `Idempotent-Replayed: true`), with another
//! request 422, while the first still runs 409, and no key 400. An answer worth retrying (5xx:
//! the gateway or the database was away) frees the key instead of being kept.

use super::error::ApiError;
use super::handlers::hold_id;
use super::json::RawBody;
use super::AppState;
use crate::payments::gateway::{CallbackEvent, SessionStatus};
use crate::payments::signature;
use crate::store::{Charged, IdempotencyBegin, PaymentReport, ReportOutcome};
use app::domain::{BookingId, CustomerId};
use app::error::InventoryError;
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Extension;
use sha2::{Digest, Sha256};

/// Checkout takes no fields; an empty body or `{}` is fine, anything else is refused.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct NoFields {}

fn json_answer(status: StatusCode, body: String) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

pub async fn checkout(
    State(state): State<AppState>,
    Extension(customer): Extension<CustomerId>,
    Path(raw): Path<String>,
    headers: HeaderMap,
    RawBody(body): RawBody,
) -> Result<Response, ApiError> {
    let key = headers
        .get("idempotency-key")
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|k| !k.is_empty() && k.len() <= 200)
        .ok_or(ApiError::IdempotencyKeyMissing)?
        .to_string();
    let hold = hold_id(&raw)?;
    if !body.iter().all(u8::is_ascii_whitespace) {
        serde_json::from_slice::<NoFields>(&body).map_err(|e| {
            ApiError::BadRequest(format!(
                "checkout takes no fields (empty body or {{}}): {e}"
            ))
        })?;
    }
    // The request is its hold (the body has no fields).
    let fingerprint = hex::encode(Sha256::digest(format!("POST /holds/{hold}/checkout")));
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
            let (status, body) = match state.engine.open_checkout(hold, customer).await {
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

/// `POST /payments/callback`: the gateway's signed report. A bad or stale signature is 401 and
/// records nothing; a verified report is recorded once (a repeat is 200 and changes nothing) and
/// answered at once — the seats are confirmed by the outbox worker, not here.
pub async fn payment_callback(
    State(state): State<AppState>,
    headers: HeaderMap,
    RawBody(body): RawBody,
) -> Result<Response, ApiError> {
    let Some(secret) = state.engine.webhook_secret() else {
        return Err(InventoryError::Unavailable.into());
    };
    let header = headers
        .get(signature::HEADER)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    signature::verify(secret, header, &body, chrono::Utc::now().timestamp()).map_err(|e| {
        tracing::warn!(error = %e, "payment callback refused");
        ApiError::BadSignature(e.to_string())
    })?;
    let event: CallbackEvent = serde_json::from_slice(&body)
        .map_err(|e| ApiError::BadRequest(format!("not a payment event: {e}")))?;
    let paid = match event.status {
        SessionStatus::Paid if event.payment_id.is_none() => {
            return Err(ApiError::BadRequest(
                "a paid callback must name the payment (paymentId)".into(),
            ))
        }
        SessionStatus::Paid => true,
        SessionStatus::Declined => false,
        other => {
            return Err(ApiError::BadRequest(format!(
                "a callback reports a paid or declined payment, not {other:?}"
            )))
        }
    };
    let outcome = state
        .engine
        .payment_report(&PaymentReport {
            session_id: event.session_id,
            payment_id: event.payment_id,
            paid,
            event_id: event.event_id,
            // Checked against the session we asked for: a mismatch is refunded, not confirmed.
            charged: Some(Charged {
                amount: event.amount,
                currency: event.currency,
                merchant_reference: event.merchant_reference,
            }),
        })
        .await?;
    let status = match outcome {
        ReportOutcome::Recorded => "recorded",
        ReportOutcome::Mismatched => "recorded; does not match the order, refunded",
        ReportOutcome::Duplicate => "duplicate",
        ReportOutcome::UnknownSession => "unknown session",
    };
    Ok(axum::Json(serde_json::json!({ "status": status })).into_response())
}

/// `GET /bookings/{id}`: the customer's own booking with its payments.
pub async fn booking(
    State(state): State<AppState>,
    Extension(customer): Extension<CustomerId>,
    Path(raw): Path<String>,
) -> Result<Response, ApiError> {
    let id = uuid::Uuid::try_parse(&raw)
        .map_err(|_| ApiError::BadRequest(format!("booking id must be a UUID, not {raw:?}")))?;
    let view = state
        .engine
        .customer_booking(BookingId(id), customer)
        .await?;
    Ok(axum::Json(view).into_response())
}

/// `GET /bookings`: the customer's bookings, newest first.
pub async fn bookings(
    State(state): State<AppState>,
    Extension(customer): Extension<CustomerId>,
) -> Result<Response, ApiError> {
    Ok(axum::Json(state.engine.customer_bookings(customer).await?).into_response())
}

/// `GET /tickets/{code}`: what a door scanner learns from a ticket's QR code. A code this server
/// did not sign is 404 `{valid: false}`.
pub async fn ticket(State(state): State<AppState>, Path(code): Path<String>) -> Response {
    match state.engine.ticket_booking(&code).await {
        Ok(view) => {
            let mut body = serde_json::to_value(&view).expect("bookings serialise");
            body["valid"] = serde_json::Value::Bool(true);
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

/// `GET /reports/sales`: the sales figures per day and showtime (operator only; see
/// `operator.rs`).
pub async fn sales_report(State(state): State<AppState>) -> Response {
    use app::engine::Inventory;
    match state.engine.sales().await {
        Ok(rows) => axum::Json(rows).into_response(),
        Err(e) => ApiError::from(e).into_response(),
    }
}
