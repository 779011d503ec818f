//! The HTTP error: every failure leaves as a status code with a JSON body
//! `{"error": "<what was wrong>", "code": "<MACHINE_CODE>", "seats": [...]?, "retryAfter": s?}`;
//! a rate-limited request (429) also gets a `Retry-After` header in seconds.
//! Internal details are logged where they happen (see `engine.rs`), never sent.

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
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (status, code, seats) = self.parts();
        let mut body = json!({ "error": self.to_string(), "code": code });
        if let Some(seats) = seats {
            body["seats"] = json!(seats);
        }
        let retry_after = match &self {
            Self::Inventory(e) => e.retry_after(),
            _ => None,
        };
        if let Some(seconds) = retry_after {
            body["retryAfter"] = json!(seconds);
        }
        let mut response = (status, Json(body)).into_response();
        if let Some(seconds) = retry_after {
            response.headers_mut().insert(
                axum::http::header::RETRY_AFTER,
                axum::http::HeaderValue::from(seconds),
            );
        }
        response
    }
}
