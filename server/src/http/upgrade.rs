//! The checks of a WebSocket upgrade that the live map and the waiting page share: that it is
//! one (RFC 6455, version 13), and that a browser's comes from this site.

use super::error::ApiError;
use super::AppState;
use axum::http::{header, HeaderMap, HeaderValue};
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;

/// Whether a WebSocket request from a browser comes from this site (non-browser clients send
/// no `Origin`).
pub(super) fn origin_allowed(state: &AppState, headers: &HeaderMap) -> bool {
    let Some(origin) = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()) else {
        return true;
    };
    let origin = origin.trim_end_matches('/');
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or_default();
    state.web.allowed_origins.iter().any(|o| o == origin)
        || (!host.is_empty()
            && origin
                .strip_prefix("http://")
                .or_else(|| origin.strip_prefix("https://"))
                == Some(host))
}

pub(super) fn not_an_upgrade() -> ApiError {
    ApiError::BadRequest("connect to this address with a WebSocket upgrade".into())
}

/// Checks a WebSocket opening handshake (RFC 6455, version 13): the `Sec-WebSocket-Accept`
/// value that answers it.
pub(super) fn handshake(headers: &HeaderMap) -> Result<HeaderValue, ApiError> {
    let names = |name: header::HeaderName, token: &str| {
        headers.get_all(name).iter().any(|v| {
            v.to_str()
                .is_ok_and(|v| v.split(',').any(|t| t.trim().eq_ignore_ascii_case(token)))
        })
    };
    if !names(header::CONNECTION, "upgrade") || !names(header::UPGRADE, "websocket") {
        return Err(not_an_upgrade());
    }
    if headers
        .get(header::SEC_WEBSOCKET_VERSION)
        .map(|v| v.as_bytes())
        != Some(b"13")
    {
        return Err(ApiError::BadRequest(
            "this feed speaks WebSocket version 13 (Sec-WebSocket-Version: 13)".into(),
        ));
    }
    // 16 random bytes in base64: 24 characters, the last two "==".
    let key = headers
        .get(header::SEC_WEBSOCKET_KEY)
        .filter(|k| k.len() == 24 && k.as_bytes().ends_with(b"=="))
        .ok_or_else(|| {
            ApiError::BadRequest(
                "a WebSocket upgrade needs Sec-WebSocket-Key: 16 bytes in base64".into(),
            )
        })?;
    HeaderValue::from_str(&derive_accept_key(key.as_bytes())).map_err(|_| not_an_upgrade())
}
