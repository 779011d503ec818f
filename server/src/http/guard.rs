//! What every request passes before a handler sees it, and what every answer gets on its way
//! out:
//! - the client's address (the peer, or the address a trusted proxy forwarded for), put in the
//!   request for the rate limits and caps; `/metrics` only for addresses in `METRICS_ALLOW`;
//! - request shape: a path that is not a path (`GET *`), an over-long URI (414) or header block
//!   (431), a page asked for with a trailing slash (redirected to the path without it);
//! - cross-site requests: a state-changing request (POST, PUT, PATCH, DELETE) from a browser
//!   must come from this site or an allowed origin (`Origin`, else `Sec-Fetch-Site`), and
//!   carry JSON when it has a body — a foreign page can neither post a form to us nor send a
//!   "simple" `text/plain` request;
//! - errors as JSON: an error answer from the API (a 404 for an unknown API path, 405, 413, …)
//!   has the `{"error", "code"}` body; a server function that could not read its arguments
//!   answers 400, not 500;
//! - security headers on everything: `nosniff`, a referrer policy, no framing, and a
//!   Content-Security-Policy (pages set their own, with the nonce of their inline scripts).

use super::AppState;
use app::engine::ClientAddr;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::header::{self, HeaderValue};
use axum::http::{Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};
use axum::Json;
use serde_json::json;

mod body;
pub use body::body_limit;
use body::{MAX_BODY, MAX_HEADERS, MAX_PLAN_BODY, MAX_URI};

/// Content-Security-Policy of answers that are not pages.
const CSP_NOT_A_PAGE: &str = "default-src 'none'; frame-ancestors 'none'";

/// The JSON error answer. It also carries `kind`/`detail`, the shape in which the browser reads
/// a server function's error, so a page gets a message it can show for these too.
fn error(status: StatusCode, code: &str, message: impl Into<String>) -> Response {
    let message = message.into();
    (
        status,
        Json(json!({
            "error": message,
            "code": code,
            "kind": "InvalidRequest",
            "detail": message,
        })),
    )
        .into_response()
}

/// Paths of the REST API and the server functions: their errors are JSON, never a page.
fn is_api_path(path: &str) -> bool {
    const API: [&str; 8] = [
        "/api/",
        "/holds",
        "/bookings",
        "/tickets",
        "/payments",
        "/reports",
        "/health",
        "/metrics",
    ];
    API.iter().any(|p| path.starts_with(p))
        || path == "/showtimes"
        || path
            .strip_prefix("/showtimes/")
            .is_some_and(|rest| rest.contains('/'))
}

/// Whether the request wants a page (a browser navigating) rather than data.
fn wants_page(req: &Request) -> bool {
    !is_api_path(req.uri().path())
        && req
            .headers()
            .get(header::ACCEPT)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|accept| accept.contains("text/html"))
}

/// Puts the client's address into the request, and keeps `/metrics` to `METRICS_ALLOW`.
pub async fn client(State(state): State<AppState>, mut req: Request, next: Next) -> Response {
    let Some(peer) = super::serve::peer_of(&req) else {
        return next.run(req).await;
    };
    let addr = crate::net::client_addr(peer.ip(), req.headers(), &state.web.trusted_proxies);
    if req.uri().path() == "/metrics" && !state.web.metrics_allow.iter().any(|n| n.contains(addr)) {
        return error(
            StatusCode::FORBIDDEN,
            "FORBIDDEN",
            "metrics are served only to the addresses in METRICS_ALLOW",
        );
    }
    // The full address (the audit log keeps it); limits count it by `net::bucket` themselves.
    req.extensions_mut()
        .insert(ClientAddr(crate::net::canonical(addr)));
    next.run(req).await
}

/// Refuses requests whose shape is wrong before routing, and turns a page's trailing slash into
/// a redirect.
pub async fn shape(req: Request, next: Next) -> Response {
    let path = req.uri().path();
    if !path.starts_with('/') {
        return error(
            StatusCode::BAD_REQUEST,
            "BAD_REQUEST",
            "the request target must be a path",
        );
    }
    if req.uri().to_string().len() > MAX_URI {
        return error(
            StatusCode::URI_TOO_LONG,
            "URI_TOO_LONG",
            format!("the request target is longer than {MAX_URI} bytes"),
        );
    }
    let header_bytes: usize = req
        .headers()
        .iter()
        .map(|(k, v)| k.as_str().len() + v.len() + 4)
        .sum();
    if header_bytes > MAX_HEADERS {
        return error(
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            "HEADERS_TOO_LARGE",
            format!("the request headers are larger than {MAX_HEADERS} bytes"),
        );
    }
    if path.len() > 1 && path.ends_with('/') && matches!(*req.method(), Method::GET | Method::HEAD)
    {
        let trimmed = path.trim_end_matches('/');
        let target = match req.uri().query() {
            Some(q) => format!("{}?{q}", if trimmed.is_empty() { "/" } else { trimmed }),
            None => if trimmed.is_empty() { "/" } else { trimmed }.to_string(),
        };
        // `//evil.example` would be read as another host.
        if !target.starts_with("//") {
            return Redirect::permanent(&target).into_response();
        }
    }
    next.run(req).await
}

/// The origins that may send state-changing requests: this server's own (as the request names
/// it in `Host`, and `PUBLIC_URL`) and `ALLOWED_ORIGINS`.
fn same_site(state: &AppState, req: &Request, origin: &str) -> bool {
    let origin = origin.trim_end_matches('/');
    if state.web.allowed_origins.iter().any(|o| o == origin) {
        return true;
    }
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or_default();
    let bare = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"));
    bare == Some(host) && !host.is_empty()
}

/// Cross-site request protection for state-changing requests (see the module docs). The payment
/// gateway's callback is signed and comes from a server, not a browser: it is exempt.
pub async fn cross_site(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let changes_state = matches!(
        *req.method(),
        Method::POST | Method::PUT | Method::PATCH | Method::DELETE
    );
    if !changes_state || req.uri().path() == "/payments/callback" {
        return next.run(req).await;
    }
    let headers = req.headers();
    let origin = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok());
    let fetch_site = headers.get("sec-fetch-site").and_then(|v| v.to_str().ok());
    let foreign = match origin {
        Some(origin) => !same_site(&state, &req, origin),
        // No Origin: a browser still says where the request came from.
        None => fetch_site.is_some_and(|s| s == "cross-site" || s == "same-site"),
    };
    if foreign {
        return error(
            StatusCode::FORBIDDEN,
            "CROSS_SITE_REQUEST",
            "requests that change something must come from this site",
        );
    }
    let has_body = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|n| n.trim() != "0")
        || headers.contains_key(header::TRANSFER_ENCODING);
    let json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"));
    if has_body && !json {
        return error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "UNSUPPORTED_MEDIA_TYPE",
            "a request body must be JSON (Content-Type: application/json)",
        );
    }
    next.run(req).await
}

/// Makes every error answer of the API JSON, and adds the security headers.
pub async fn answers(req: Request, next: Next) -> Response {
    let path = req.uri().path().to_string();
    let server_fn = path.starts_with("/api/");
    let api = is_api_path(&path) || !wants_page(&req);
    let response = next.run(req).await;
    let mut response = if server_fn && response.status() == StatusCode::INTERNAL_SERVER_ERROR {
        // A server function answers its own errors with their status (see `app::engine::respond`);
        // a 500 means Leptos could not even read the arguments.
        bad_arguments(&path, response).await
    } else if api && response.status().is_client_error() && !is_json(&response) {
        let status = response.status();
        let (code, message) = match status {
            StatusCode::NOT_FOUND => ("NOT_FOUND", "no such resource".to_string()),
            StatusCode::METHOD_NOT_ALLOWED => (
                "METHOD_NOT_ALLOWED",
                "this method is not allowed here".to_string(),
            ),
            StatusCode::PAYLOAD_TOO_LARGE => (
                "PAYLOAD_TOO_LARGE",
                format!("request body too large (at most {MAX_BODY} bytes; a hall's plan {MAX_PLAN_BODY})"),
            ),
            StatusCode::REQUEST_TIMEOUT => (
                "REQUEST_TIMEOUT",
                "the request body did not arrive in time".to_string(),
            ),
            other => (
                "BAD_REQUEST",
                other
                    .canonical_reason()
                    .unwrap_or("bad request")
                    .to_lowercase(),
            ),
        };
        let allow = response.headers().get(header::ALLOW).cloned();
        let mut answer = error(status, code, message);
        if let Some(allow) = allow {
            answer.headers_mut().insert(header::ALLOW, allow);
        }
        answer
    } else {
        response
    };
    let status = response.status();
    let headers = response.headers_mut();
    if matches!(
        status,
        StatusCode::PAYLOAD_TOO_LARGE | StatusCode::REQUEST_TIMEOUT
    ) && !headers.contains_key(header::CONNECTION)
    {
        // The request's body was not read to its end (`body_limit` says so when it was), so
        // the connection cannot carry another request: said up front, so that a client does
        // not send its next one on it and see the connection close under it.
        headers.insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("strict-origin-when-cross-origin"),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    if !headers.contains_key(header::CONTENT_SECURITY_POLICY) {
        headers.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(CSP_NOT_A_PAGE),
        );
    }
    response
}

fn is_json(response: &Response) -> bool {
    response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"))
}

/// A 400 with the JSON error shape (and the server functions' own `kind`/`detail`, so the
/// browser reads it as an `InventoryError`) for arguments a server function could not read.
async fn bad_arguments(path: &str, response: Response) -> Response {
    let (_, body) = response.into_parts();
    let bytes = axum::body::to_bytes(body, 64 * 1024)
        .await
        .unwrap_or_default();
    tracing::debug!(path, answer = %String::from_utf8_lossy(&bytes), "server function arguments unreadable");
    let function = path.trim_start_matches("/api/");
    // What Leptos said is an `InventoryError::Transport` naming the argument that failed to
    // parse (a seat code, a showtime id…): passed on, so the caller learns what was wrong.
    let reason = serde_json::from_slice::<serde_json::Value>(&bytes)
        .ok()
        .and_then(|v| {
            v["detail"]
                .as_str()
                .map(|d| d.chars().take(300).collect::<String>())
        });
    let message = match reason {
        Some(reason) => format!("the arguments of {function} could not be read: {reason}"),
        None => format!("the arguments of {function} could not be read"),
    };
    error(StatusCode::BAD_REQUEST, "BAD_REQUEST", message)
}

/// The answer for a path no route serves: a file of the site (`/pkg/…`), else the app's own
/// "not found" page — or, for the API's paths, JSON (see [`answers`]).
pub async fn fallback(State(state): State<AppState>, req: Request<Body>) -> Response {
    let path = req.uri().path();
    // No file whose name starts with a dot (`.env`, `.git/`…, `%2eenv` as the file service
    // would decode it) is the site's, whatever the root holds.
    let dotted = |segment: &str| {
        segment.starts_with('.')
            || segment
                .get(..3)
                .is_some_and(|start| start.eq_ignore_ascii_case("%2e"))
    };
    if is_api_path(path) || path.split('/').any(dotted) {
        return error(StatusCode::NOT_FOUND, "NOT_FOUND", "no such resource");
    }
    let (parts, body) = req.into_parts();
    let root = &state.leptos_options.site_root;
    if !matches!(parts.method, Method::GET | Method::HEAD) {
        // The site's files and pages are read, never posted to: a file's path answers 405 (with
        // `Allow`), anything else 404, and neither reaches the page handler (which would serve
        // the file to any method).
        let mut get = parts.clone();
        get.method = Method::GET;
        if super::assets::site_file(root, &get).await.is_some() {
            let mut refused = error(
                StatusCode::METHOD_NOT_ALLOWED,
                "METHOD_NOT_ALLOWED",
                "the site's files are only read (GET, HEAD)",
            );
            refused
                .headers_mut()
                .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
            return refused;
        }
        return error(StatusCode::NOT_FOUND, "NOT_FOUND", "no such resource");
    }
    if let Some(file) = super::assets::site_file(root, &parts).await {
        return file;
    }
    let req = Request::from_parts(parts, body);
    let context = super::render_context(state.engine.clone());
    let page = leptos_axum::file_and_error_handler_with_context::<AppState, _>(context, app::shell);
    page(req.uri().clone(), State(state), req).await
}
