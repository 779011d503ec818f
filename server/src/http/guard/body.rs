//! Request bodies: each route's limit, and every body read before the handler runs.

use super::error;
use axum::body::Body;
use axum::extract::Request;
use axum::http::header::{self, HeaderValue};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::Response;

/// Longest request target accepted (414 past it).
pub const MAX_URI: usize = 8 * 1024;
/// Largest header block accepted (431 past it).
pub const MAX_HEADERS: usize = 32 * 1024;
/// Largest request body accepted (413 past it; JSON endpoints allow less), but for…
pub const MAX_BODY: usize = 64 * 1024;
/// …a hall's plan imported as JSON: 3,000 seats with gaps and names are about 300 KB.
pub const MAX_PLAN_BODY: usize = 1024 * 1024;
/// The route that takes a hall's plan.
const PLAN_ROUTE: &str = "/api/import_hall";

/// The body limit of `path`.
fn body_limit_of(path: &str) -> usize {
    if path == PLAN_ROUTE {
        MAX_PLAN_BODY
    } else {
        MAX_BODY
    }
}

/// Enforces each route's body limit ([`body_limit_of`]), and reads every body before the
/// handler runs. A body past the route's limit is answered 413 — but read to its end first
/// while it stays within the largest limit ([`MAX_PLAN_BODY`]): a refusal sent with the body
/// still arriving would have the connection reset under the client's next request, losing the
/// answer. So within that bound the connection stays open for the next request; a declared
/// length past it, or a body that breaks off, is answered and the connection closed.
pub async fn body_limit(req: Request, next: Next) -> Response {
    let limit = body_limit_of(req.uri().path());
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    let too_large = || {
        error(
            StatusCode::PAYLOAD_TOO_LARGE,
            "PAYLOAD_TOO_LARGE",
            format!("request body too large (at most {limit} bytes here)"),
        )
    };
    if declared.is_some_and(|length| length > MAX_PLAN_BODY) {
        let mut refused = too_large();
        refused
            .headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
        return refused;
    }
    let (parts, body) = req.into_parts();
    let read = match read_body(body, limit).await {
        Ok(read) => read,
        Err(BodyBroke) => {
            return error(
                StatusCode::REQUEST_TIMEOUT,
                "REQUEST_TIMEOUT",
                "the request body did not arrive in time",
            )
        }
    };
    let mut answer = match read {
        Read::Whole(bytes) => {
            next.run(Request::from_parts(parts, Body::from(bytes)))
                .await
        }
        // Past the largest limit, the rest is not read: the connection closes.
        Read::TooLarge { drained: false } => {
            let mut refused = too_large();
            refused
                .headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
            return refused;
        }
        Read::TooLarge { drained: true } => too_large(),
    };
    // Nothing of the request is left unread: the connection can carry the next one.
    if answer.status() == StatusCode::PAYLOAD_TOO_LARGE {
        answer
            .headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("keep-alive"));
    }
    answer
}

enum Read {
    Whole(axum::body::Bytes),
    /// Past the limit: read to its end and dropped (`drained`), or past the largest limit too,
    /// left unread.
    TooLarge {
        drained: bool,
    },
}

/// The body broke off, or did not arrive in time.
struct BodyBroke;

/// Reads `body`: whole when within `limit`, else to its end and dropped — but no further than
/// [`MAX_PLAN_BODY`], the largest any route takes.
async fn read_body(body: Body, limit: usize) -> Result<Read, BodyBroke> {
    use futures_util::StreamExt;
    let mut chunks = body.into_data_stream();
    let mut whole = Vec::new();
    let (mut seen, mut over) = (0usize, false);
    while let Some(chunk) = chunks.next().await {
        let chunk = chunk.map_err(|_| BodyBroke)?;
        seen += chunk.len();
        if seen > MAX_PLAN_BODY {
            return Ok(Read::TooLarge { drained: false });
        }
        over = over || seen > limit;
        if over {
            whole = Vec::new();
        } else {
            whole.extend_from_slice(&chunk);
        }
    }
    Ok(if over {
        Read::TooLarge { drained: true }
    } else {
        Read::Whole(whole.into())
    })
}
