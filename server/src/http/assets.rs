//! How the site's answers may be cached and compressed, as a CDN in front of it would want.
//!
//! - The site build names the WebAssembly, its JavaScript and the stylesheet by their content
//!   (`seats.<16 hex digits>.wasm`, listed in the site's `hash.txt`) and writes a `.br` and a `.gz`
//!   beside every file; the file handler sends the one `Accept-Encoding` asks for, with
//!   `Vary: Accept-Encoding`. A name that carries its content's hash never changes meaning:
//!   `Cache-Control: public, max-age=31536000, immutable`. Other files of the site, and pages:
//!   `no-cache` (kept, but asked again each time, so a new deploy's page never meets an old
//!   bundle).
//! - Pages, and JSON answers over 1 KB, are compressed as they stream (see `compress`).

use axum::body::Body;
use axum::extract::Request;
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// A year: what a content-hashed file may be kept for.
const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// Whether the file name carries a content hash: `<name>.<16 hexadecimal digits>.<ext>`.
fn hashed(path: &str) -> bool {
    let file = path.rsplit('/').next().unwrap_or_default();
    let mut parts = file.rsplitn(3, '.');
    let (_ext, hash, name) = (parts.next(), parts.next(), parts.next());
    name.is_some_and(|n| !n.is_empty())
        && hash.is_some_and(|h| h.len() == 16 && h.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The site's file at the request's path (precompressed as asked, 304 when unchanged, ranges),
/// or `None` when there is none (or the method is not GET or HEAD).
///
/// Served here, not by `leptos_axum::file_and_error_handler`: that one reads the status of its
/// answer from the Leptos context of whatever page last rendered on the worker thread, so a
/// bundle asked for while a page ended in an error could come back 404 (and the browser's page
/// never hydrated).
pub async fn site_file(root: &str, req: &axum::http::request::Parts) -> Option<Response> {
    if !matches!(req.method, Method::GET | Method::HEAD) {
        return None;
    }
    let mut file = Request::builder()
        .method(req.method.clone())
        .uri(req.uri.clone());
    for name in [
        header::ACCEPT_ENCODING,
        header::IF_MODIFIED_SINCE,
        header::IF_UNMODIFIED_SINCE,
        header::RANGE,
    ] {
        if let Some(value) = req.headers.get(&name) {
            file = file.header(name, value);
        }
    }
    let site = tower_http::services::ServeDir::new(root)
        .precompressed_br()
        .precompressed_gzip();
    let answer = tower::ServiceExt::oneshot(site, file.body(Body::empty()).ok()?)
        .await
        .unwrap_or_else(|never| match never {});
    let status = answer.status();
    (status.is_success() || status == StatusCode::NOT_MODIFIED).then(|| answer.into_response())
}

/// Sets `Cache-Control` on the site's files and pages (an answer that set its own keeps it).
pub async fn caching(req: Request, next: Next) -> Response {
    let site_file = req.uri().path().starts_with("/pkg/");
    let immutable = site_file && hashed(req.uri().path());
    let mut response = next.run(req).await;
    let html = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/html"));
    let ok = response.status().is_success();
    let headers = response.headers_mut();
    if headers.contains_key(header::CACHE_CONTROL) {
        return response;
    }
    if immutable && ok {
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(IMMUTABLE));
    } else if site_file || html {
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    }
    // The same address answers br, gzip or plain bytes by the request's Accept-Encoding.
    if site_file && !headers.contains_key(header::VARY) {
        headers.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    }
    response
}

#[cfg(test)]
mod tests {
    use super::hashed;

    #[test]
    fn a_hashed_name_has_sixteen_hex_digits_before_its_extension() {
        assert!(hashed("/pkg/seats.0123456789abcdef.wasm"));
        assert!(!hashed("/pkg/seats.0123456789abcdef.js.br"));
        assert!(!hashed("/pkg/seats.wasm"));
        assert!(!hashed("/pkg/seats.0123456789abcdeg.css"));
        assert!(!hashed("/pkg/.0123456789abcdef.css"));
        assert!(!hashed("/pkg/seats.0123456789abcde.css"));
    }
}
