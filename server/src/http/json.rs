//! A JSON body extractor whose every rejection is an [`ApiError`] with a JSON body (axum's own
//! `Json` answers some rejections in plain text).

use super::error::ApiError;
use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;
use serde::de::DeserializeOwned;

/// The largest request body the JSON endpoints accept. A hold of 8 seats is under 100 bytes.
pub const MAX_JSON_BODY: usize = 16 * 1024;

pub struct JsonBody<T>(pub T);

/// The raw body, with the same JSON rejections (413 past the route's limit).
pub struct RawBody(pub Bytes);

impl<S: Send + Sync> FromRequest<S> for RawBody {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        Bytes::from_request(req, state)
            .await
            .map(RawBody)
            .map_err(|e| {
                if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
                    ApiError::PayloadTooLarge(MAX_JSON_BODY)
                } else {
                    ApiError::BadRequest(format!(
                        "could not read the request body: {}",
                        e.body_text()
                    ))
                }
            })
    }
}

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let RawBody(bytes) = RawBody::from_request(req, state).await?;
        if bytes.is_empty() {
            return Err(ApiError::BadRequest("the request needs a JSON body".into()));
        }
        serde_json::from_slice(&bytes)
            .map(JsonBody)
            .map_err(|e| ApiError::BadRequest(format!("invalid JSON body: {e}")))
    }
}

/// Whether an optional body was left out: empty, blanks, or JSON `null` (what the OpenAPI
/// description's optional bodies allow).
pub fn absent(body: &[u8]) -> bool {
    let text = body.trim_ascii();
    text.is_empty() || text == b"null"
}

/// `body` read as a JSON object into `T`: a list of the same values (which serde's derived
/// structs also take) is refused.
pub fn from_object<T: DeserializeOwned>(body: &[u8]) -> Result<T, serde_json::Error> {
    let fields: serde_json::Map<String, serde_json::Value> = serde_json::from_slice(body)?;
    serde_json::from_value(serde_json::Value::Object(fields))
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_optional_body_is_absent_when_empty_blank_or_null() {
        for body in [&b""[..], b"  \n", b"null", b" null\n"] {
            assert!(super::absent(body), "{body:?}");
        }
        for body in [&b"{}"[..], b"nul", b"[null]", b"\"null\""] {
            assert!(!super::absent(body), "{body:?}");
        }
    }
}
