//! Operator pages and reports (the sales figures) sit behind HTTP Basic authentication: user
//! `operator`, password `OPERATOR_PASSWORD` (in the embedded mode, when unset, a random one kept
//! in the data folder and named in the log at start). Without a password (PostgreSQL and no
//! `OPERATOR_PASSWORD`) they are off. Guessing is slowed down: after [`FAILURES_PER_MINUTE`]
//! wrong passwords from one address, that address gets 429 (with `Retry-After`) until its
//! allowance refills, whatever it sends (counted in this process).

use super::AppState;
use crate::config::Secret;
use crate::gate::RateLimiter;
use app::engine::ClientAddr;
use axum::extract::{Request, State};
use axum::http::header::{AUTHORIZATION, WWW_AUTHENTICATE};
use axum::http::{HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Json;
use std::sync::Arc;

pub const USER: &str = "operator";

/// Wrong passwords one address may send a minute (a burst of that many, refilled one every
/// 60/N s).
pub const FAILURES_PER_MINUTE: u32 = 10;

/// The operator's password, if operator pages are on, and the count of wrong guesses.
#[derive(Clone)]
pub struct OperatorKey(Option<Arc<Secret>>, Arc<RateLimiter>);

impl OperatorKey {
    pub fn new(password: Option<Secret>) -> Self {
        Self(
            password.map(Arc::new),
            Arc::new(RateLimiter::keyed("operator", FAILURES_PER_MINUTE, None)),
        )
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

pub async fn middleware(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let key = &state.operator;
    if !is_operator_path(req.uri().path()) {
        return next.run(req).await;
    }
    let credentials = req.headers().get(AUTHORIZATION);
    if credentials.is_some() {
        let addr = req
            .extensions()
            .get::<ClientAddr>()
            .map_or_else(|| "unknown".to_string(), |a| a.0.to_string());
        // Every attempt is counted before its password is looked at (so a burst of guesses
        // sent at once is counted too); a right password gives its attempt back.
        if let Err(wait) = key.1.check(&addr).await {
            return too_many_guesses(wait);
        }
        if key.admits(credentials) {
            key.1.refund_locally(&addr);
            return next.run(req).await;
        }
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

fn too_many_guesses(wait: std::time::Duration) -> Response {
    let seconds = wait.as_secs_f64().ceil().max(1.0) as u64;
    let mut response = (
        StatusCode::TOO_MANY_REQUESTS,
        Json(serde_json::json!({
            "error": format!("too many wrong passwords from this address; try again in {seconds} s"),
            "code": "RATE_LIMITED",
            "retryAfter": seconds,
        })),
    )
        .into_response();
    response
        .headers_mut()
        .insert(axum::http::header::RETRY_AFTER, HeaderValue::from(seconds));
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
