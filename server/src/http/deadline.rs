//! A deadline for a page's whole answer, not only its start.
//!
//! A page is streamed: its status and head leave at once and the parts that wait for data
//! follow as the data arrives. `HTTP_REQUEST_TIMEOUT_SECONDS` bounds how long the start may take
//! (408); this bounds the rest. A page whose remaining parts have not all arrived by then — a
//! stalled render, a read that never answers — ends where it is, with a proper end of the
//! chunked body, instead of keeping the browser's spinner and our connection for ever. What was
//! sent still shows (the waiting parts keep their "loading" text), the warning names the path,
//! and `/metrics` counts it.

use super::AppState;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::Response;
use futures_util::StreamExt;
use std::sync::atomic::Ordering::Relaxed;

/// Ends an HTML answer's body at the request's deadline (counted from its arrival).
pub async fn pages(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let path = req.uri().path().to_string();
    let limit = state.web.request_timeout;
    let deadline = tokio::time::Instant::now() + limit;
    let response = next.run(req).await;
    let html = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/html"));
    if !html {
        return response;
    }
    let cut = state.web.connections.clone();
    let (parts, body) = response.into_parts();
    let deadline = Box::pin(tokio::time::sleep_until(deadline));
    let chunks = futures_util::stream::unfold(
        Some((body.into_data_stream(), deadline)),
        move |running| {
            let path = path.clone();
            let cut = cut.clone();
            async move {
                let (mut body, mut deadline) = running?;
                tokio::select! {
                    chunk = body.next() => chunk.map(|chunk| (chunk, Some((body, deadline)))),
                    _ = &mut deadline => {
                        cut.pages_cut.fetch_add(1, Relaxed);
                        tracing::warn!(path, ?limit, "page not finished by the request deadline: its answer ends here");
                        None
                    }
                }
            }
        },
    );
    Response::from_parts(parts, Body::from_stream(chunks))
}
