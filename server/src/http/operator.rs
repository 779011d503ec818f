//! Operator pages and reports (the sales figures) sit behind HTTP Basic authentication: user
//! `operator`, password `OPERATOR_PASSWORD` (in the embedded mode, when unset, a random one kept
//! in the data folder and named in the log at start). Without a password (PostgreSQL and no
//! `OPERATOR_PASSWORD`) they are off.

use crate::config::Secret;
use axum::extract::{Request, State};
use axum::http::header::{AUTHORIZATION, WWW_AUTHENTICATE};
use axum::http::{HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Json;
use std::sync::Arc;

pub const USER: &str = "operator";

/// The operator's password, if operator pages are on.
#[derive(Clone)]
pub struct OperatorKey(Option<Arc<Secret>>);

impl OperatorKey {
    pub fn new(password: Option<Secret>) -> Self {
        Self(password.map(Arc::new))
    }

    /// Whether `header` (an `Authorization` value) carries the operator's credentials.
    fn admits(&self, header: Option<&HeaderValue>) -> bool {
        let (Some(password), Some(header)) = (&self.0, header) else {
            return false;
        };
        let Some(encoded) = header.to_str().ok().and_then(|h| h.strip_prefix("Basic ")) else {
            return false;
        };
        let Some(decoded) = base64_decode(encoded.trim()) else {
            return false;
        };
        let expected = [USER.as_bytes(), b":", password.expose()].concat();
        // Compare without an early exit on the first differing byte.
        decoded.len() == expected.len()
            && decoded
                .iter()
                .zip(&expected)
                .fold(0u8, |acc, (a, b)| acc | (a ^ b))
                == 0
    }
}

/// Paths only the operator may reach: the pages, the reports, the page's server function.
fn is_operator_path(path: &str) -> bool {
    path == "/operator"
        || path.starts_with("/operator/")
        || path.starts_with("/reports/")
        || path == "/api/sales_figures"
}

pub async fn middleware(State(key): State<OperatorKey>, req: Request, next: Next) -> Response {
    if !is_operator_path(req.uri().path()) || key.admits(req.headers().get(AUTHORIZATION)) {
        return next.run(req).await;
    }
    if key.0.is_none() {
        return (
            StatusCode::FORBIDDEN,
            Json(serde_json::json!({
                "error": "operator pages are off: set OPERATOR_PASSWORD to turn them on",
                "code": "OPERATOR_PAGES_OFF",
            })),
        )
            .into_response();
    }
    let mut response = (
        StatusCode::UNAUTHORIZED,
        Json(serde_json::json!({
            "error": "this page is for the cinema's operator: sign in as user \"operator\" with the operator password",
            "code": "OPERATOR_CREDENTIALS_REQUIRED",
        })),
    )
        .into_response();
    response.headers_mut().insert(
        WWW_AUTHENTICATE,
        HeaderValue::from_static("Basic realm=\"Seats operator\", charset=\"UTF-8\""),
    );
    response
}

/// Standard base64 (with or without padding); `None` when it is not.
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let bytes = text.trim_end_matches('=').as_bytes();
    if bytes.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    for chunk in bytes.chunks(4) {
        let mut acc = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            acc |= value(c)? << (18 - 6 * i);
        }
        let n = chunk.len() * 6 / 8;
        out.extend_from_slice(&acc.to_be_bytes()[1..1 + n]);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> OperatorKey {
        OperatorKey::new(Some(Secret::new(b"s3cret pass".to_vec())))
    }

    #[test]
    fn base64_reads_padded_and_unpadded_text() {
        assert_eq!(base64_decode("b3BlcmF0b3I6eA==").unwrap(), b"operator:x");
        assert_eq!(base64_decode("b3BlcmF0b3I6eA").unwrap(), b"operator:x");
        assert_eq!(base64_decode("YWJj").unwrap(), b"abc");
        assert!(base64_decode("a").is_none());
        assert!(base64_decode("ab!c").is_none());
    }

    #[test]
    fn only_the_operator_password_is_admitted() {
        // "operator:s3cret pass"
        let good = HeaderValue::from_static("Basic b3BlcmF0b3I6czNjcmV0IHBhc3M=");
        assert!(key().admits(Some(&good)));
        // "operator:s3cret pasS", "admin:s3cret pass"
        for bad in [
            "Basic b3BlcmF0b3I6czNjcmV0IHBhc1M=",
            "Basic YWRtaW46czNjcmV0IHBhc3M=",
            "Bearer b3BlcmF0b3I6czNjcmV0IHBhc3M=",
        ] {
            assert!(!key().admits(Some(&HeaderValue::from_static(bad))), "{bad}");
        }
        assert!(!key().admits(None));
        assert!(!OperatorKey::new(None).admits(Some(&good)));
    }

    #[test]
    fn operator_paths_are_the_pages_the_reports_and_their_server_function() {
        for path in [
            "/operator",
            "/operator/sales",
            "/reports/sales",
            "/api/sales_figures",
        ] {
            assert!(is_operator_path(path), "{path}");
        }
        for path in [
            "/",
            "/operators",
            "/my-bookings",
            "/api/get_booking",
            "/showtimes",
        ] {
            assert!(!is_operator_path(path), "{path}");
        }
    }
}
