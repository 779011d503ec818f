//! The HTTP error: every failure leaves as a status code with a JSON body
//! `{"error": "<what was wrong>", "code": "<MACHINE_CODE>", "seats": [...]?, "retryAfter": s?}`;
//! a rate-limited request (429) also gets a `Retry-After` header in seconds.
//! Internal details are logged where they happen (in the engine and the stores), never sent.

use app::error::InventoryError;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

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
        let (_, code, seats) = self.parts();
        let mut body = json!({ "error": self.to_string(), "code": code });
        if let Some(seats) = seats {
            body["seats"] = json!(seats);
        }
        if let Some(seconds) = self.retry_after() {
            body["retryAfter"] = json!(seconds);
        }
        if let Self::Inventory(e) = self {
            if let Some((queue, page)) = e.queue() {
                body["queue"] = json!(queue);
                body["waitingRoom"] = json!(page);
            }
            if let InventoryError::ProofRequired { challenge, bits } = e {
                body["challenge"] = json!(challenge);
                body["bits"] = json!(bits);
            }
        }
        body
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let retry_after = self.retry_after();
        let mut response = (self.status(), Json(self.body())).into_response();
        if let Some(seconds) = retry_after {
            response.headers_mut().insert(
                axum::http::header::RETRY_AFTER,
                axum::http::HeaderValue::from(seconds),
            );
        }
        response
    }
}
