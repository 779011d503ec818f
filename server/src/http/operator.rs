//! Operator pages and reports (the sales figures) sit behind HTTP Basic authentication: user
//! `operator`, password `OPERATOR_PASSWORD` (in the embedded mode, when unset, a random one kept
//! in the data folder and named in the log at start). Without a password (PostgreSQL and no
//! `OPERATOR_PASSWORD`) they are off. Guessing is slowed down: after [`FAILURES_PER_MINUTE`]
//! wrong passwords from one address, that address gets 429 (with `Retry-After`) until its
//! allowance refills, whatever it sends (counted in this process).
//!
//! How: [`credentials`] puts the request's operator check in every request as a request
//! extension ([`OperatorAccess`]), and nothing is checked until an operator's action asks for
//! it — the operator's routes through the [`require`] layer (the pages below
//! `app::OPERATOR_PAGES`, `/reports`), the operator's server functions by calling
//! `app::engine::require_operator` first. A wrong password is counted only there.

use super::error::ApiError;
use super::AppState;
use crate::config::Secret;
use crate::gate::RateLimiter;
use app::engine::{ClientAddr, OperatorAccess, OperatorCheck};
use app::error::InventoryError;
use axum::extract::{Request, State};
use axum::http::header::{AUTHORIZATION, WWW_AUTHENTICATE};
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
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

/// The operator check of one request: the operator key, the client's address and the
/// `Authorization` header it sent.
struct Credentials {
    key: OperatorKey,
    addr: String,
    header: Option<HeaderValue>,
}

#[async_trait::async_trait]
impl OperatorCheck for Credentials {
    async fn admit(&self) -> Result<(), InventoryError> {
        let key = &self.key;
        if self.header.is_some() {
            // Every attempt is counted before its password is looked at (so a burst of guesses
            // sent at once is counted too); a right password gives its attempt back.
            if let Err(wait) = key.1.check(&self.addr).await {
                return Err(InventoryError::RateLimited(
                    wait.as_secs_f64().ceil().max(1.0) as u64,
                ));
            }
            if key.admits(self.header.as_ref()) {
                key.1.refund_locally(&self.addr);
                return Ok(());
            }
        }
        match key.0 {
            None => Err(InventoryError::OperatorPagesOff),
            Some(_) => Err(InventoryError::OperatorOnly),
        }
    }
}

/// Puts the request's operator check ([`OperatorAccess`]) in every request; nothing is checked
/// until an operator's action asks ([`require`], or `require_operator` in a server function).
pub async fn credentials(State(state): State<AppState>, mut req: Request, next: Next) -> Response {
    let addr = req
        .extensions()
        .get::<ClientAddr>()
        .map_or_else(|| "unknown".to_string(), |a| a.0.to_string());
    let check = Credentials {
        key: state.operator.clone(),
        addr,
        header: req.headers().get(AUTHORIZATION).cloned(),
    };
    req.extensions_mut().insert(OperatorAccess(Arc::new(check)));
    next.run(req).await
}

/// The layer of the operator's routes (the operator pages, the reports): the operator passes;
/// anyone else gets 401 with a Basic challenge (so a browser asks for the password), 403 when
/// operator pages are off, or 429 after too many wrong guesses.
pub async fn require(req: Request, next: Next) -> Response {
    let verdict = match req.extensions().get::<OperatorAccess>() {
        Some(access) => access.0.admit().await,
        None => Err(InventoryError::Unavailable),
    };
    match verdict {
        Ok(()) => next.run(req).await,
        Err(e) => {
            let challenge = e == InventoryError::OperatorOnly;
            let mut response = ApiError::from(e).into_response();
            if challenge {
                response.headers_mut().insert(
                    WWW_AUTHENTICATE,
                    HeaderValue::from_static("Basic realm=\"Seats operator\", charset=\"UTF-8\""),
                );
            }
            response
        }
    }
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
}
