//! The HTTP error: every failure leaves as a status code with a JSON body
//! `{"error": "<what was wrong>", "code": "<MACHINE_CODE>", "seats": [...]?, "retryAfter": s?}`;
//! a rate-limited request (429) also gets a `Retry-After` header in seconds.
//! Internal details are logged where they happen (in the engine and the stores), never sent.

use app::error::InventoryError;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;

/// Every error answer of the REST API: what was wrong, in English, and its machine code; some
/// codes carry more (the seats in question, when to retry, where to queue, the proof asked for).
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ErrorBody {
    /// What was wrong, for a person.
    #[schema(example = "seats not available: F5")]
    pub error: String,
    /// What was wrong, for a program (the table in docs/api.md).
    #[schema(example = "SEATS_UNAVAILABLE")]
    pub code: &'static str,
    /// `SEATS_UNAVAILABLE`, `LONE_SEAT`: the seats in question.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seats: Option<Vec<String>>,
    /// 429s, `RECENTLY_RELEASED`, `QUEUE_UNAVAILABLE`, `QUEUE_FULL`: seconds to wait (as the
    /// `Retry-After` header).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry_after: Option<u64>,
    /// `QUEUE_REQUIRED`: where to join the queue (the API) …
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queue: Option<String>,
    /// … and the waiting room's page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub waiting_room: Option<String>,
    /// `PROOF_REQUIRED`: the challenge to solve …
    #[serde(skip_serializing_if = "Option::is_none")]
    pub challenge: Option<String>,
    /// … with this many leading zero bits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bits: Option<u8>,
}

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error(transparent)]
    Inventory(#[from] InventoryError),
    #[error("{0}")]
    BadRequest(String),
    #[error("request body too large (at most {0} bytes)")]
    PayloadTooLarge(usize),
    #[error("no such resource")]
    NoRoute,
    #[error("{0}")]
    BadSignature(String),
    /// 403 with its code.
    #[error("{1}")]
    Forbidden(&'static str, String),
    /// 422 with its code: well formed, but not something this server can act on.
    #[error("{1}")]
    Unprocessable(&'static str, String),
    #[error("this request needs an Idempotency-Key header (1 to 200 characters)")]
    IdempotencyKeyMissing,
    #[error("this Idempotency-Key was already used for a different request")]
    IdempotencyKeyReused,
    #[error("a request with this Idempotency-Key is still being processed; retry shortly")]
    IdempotencyKeyInFlight,
}

impl ApiError {
    fn parts(&self) -> (StatusCode, &'static str, Option<&[String]>) {
        match self {
            Self::Inventory(e) => {
                let status = StatusCode::from_u16(e.status()).unwrap_or(StatusCode::BAD_REQUEST);
                (status, e.code(), e.seats())
            }
            Self::BadRequest(_) => (StatusCode::BAD_REQUEST, "BAD_REQUEST", None),
            Self::PayloadTooLarge(_) => (StatusCode::PAYLOAD_TOO_LARGE, "PAYLOAD_TOO_LARGE", None),
            Self::NoRoute => (StatusCode::NOT_FOUND, "NOT_FOUND", None),
            Self::BadSignature(_) => (StatusCode::UNAUTHORIZED, "BAD_SIGNATURE", None),
            Self::Forbidden(code, _) => (StatusCode::FORBIDDEN, code, None),
            Self::Unprocessable(code, _) => (StatusCode::UNPROCESSABLE_ENTITY, code, None),
            Self::IdempotencyKeyMissing => {
                (StatusCode::BAD_REQUEST, "IDEMPOTENCY_KEY_MISSING", None)
            }
            Self::IdempotencyKeyReused => (
                StatusCode::UNPROCESSABLE_ENTITY,
                "IDEMPOTENCY_KEY_REUSED",
                None,
            ),
            Self::IdempotencyKeyInFlight => {
                (StatusCode::CONFLICT, "IDEMPOTENCY_KEY_IN_FLIGHT", None)
            }
        }
    }
}

impl ApiError {
    pub fn status(&self) -> StatusCode {
        self.parts().0
    }

    fn retry_after(&self) -> Option<u64> {
        match self {
            Self::Inventory(e) => e.retry_after(),
            _ => None,
        }
    }

    /// The JSON body this error is answered with.
    pub fn body(&self) -> serde_json::Value {
        serde_json::to_value(self.error_body()).expect("error bodies serialise")
    }

    fn error_body(&self) -> ErrorBody {
        let (_, code, seats) = self.parts();
        let mut body = ErrorBody {
            error: self.to_string(),
            code,
            seats: seats.map(<[String]>::to_vec),
            retry_after: self.retry_after(),
            queue: None,
            waiting_room: None,
            challenge: None,
            bits: None,
        };
        if let Self::Inventory(e) = self {
            if let Some((queue, page)) = e.queue() {
                body.queue = Some(queue);
                body.waiting_room = Some(page);
            }
            if let InventoryError::ProofRequired { challenge, bits } = e {
                body.challenge = Some(challenge.clone());
                body.bits = Some(*bits);
            }
        }
        body
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let retry_after = self.retry_after();
        let mut response = (self.status(), Json(self.error_body())).into_response();
        if let Some(seconds) = retry_after {
            response.headers_mut().insert(
                axum::http::header::RETRY_AFTER,
                axum::http::HeaderValue::from(seconds),
            );
        }
        response
    }
}
