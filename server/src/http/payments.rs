//! `POST /payments/callback`: the payment gateway's signed reports.

use super::error::ApiError;
use super::json::{RawBody, MAX_JSON_BODY};
use super::AppState;
use crate::payments::gateway::{CallbackEvent, SessionStatus};
use crate::payments::signature;
use crate::store::{Charged, PaymentReport, ReportOutcome};
use app::error::InventoryError;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use serde::Serialize;
use utoipa::OpenApi;

/// This module's part of the OpenAPI description.
#[derive(OpenApi)]
#[openapi(paths(payment_callback))]
pub struct Api;

/// What became of a verified report.
#[derive(Serialize, utoipa::ToSchema)]
pub struct CallbackAnswer {
    /// `recorded`, `duplicate`, `unknown session` or `recorded; does not match the order, refunded`.
    #[schema(example = "recorded")]
    status: &'static str,
}

pub fn routes() -> Router<AppState> {
    Router::new().route(
        "/payments/callback",
        post(payment_callback).layer(DefaultBodyLimit::max(MAX_JSON_BODY)),
    )
}

/// `POST /payments/callback`: the gateway's signed report. A bad or stale signature is 401 and
/// records nothing; a verified report is recorded once (a repeat is 200 and changes nothing) and
/// answered at once — the seats are confirmed by the outbox worker, not here.
#[utoipa::path(post, path = "/payments/callback", tag = "payments",
    params(("Sandbox-Signature" = String, Header, description = "`t=<unix seconds>,v1=<hex HMAC-SHA256 of \"<t>.<body>\">` with the webhook secret")),
    request_body = crate::payments::gateway::CallbackEvent,
    responses((status = 200, description = "Recorded once", body = CallbackAnswer),
        (status = 400, description = "Not a payment event, or a paid one without `paymentId`", body = super::error::ErrorBody),
        (status = 401, description = "`BAD_SIGNATURE`: bad or stale; nothing recorded", body = super::error::ErrorBody),
        (status = 503, description = "No webhook secret configured", body = super::error::ErrorBody)))]
async fn payment_callback(
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
    Ok(axum::Json(CallbackAnswer { status }).into_response())
}
