//! A deadline for a page's whole answer, not only its start.
//!
//! A page is streamed: its status and head leave at once and the parts that wait for data
//! follow as the data arrives. `HTTP_REQUEST_TIMEOUT_SECONDS` bounds how long the start may take
//! (408); this bounds the rest. A page whose remaining parts have not all arrived by then — a
//! stalled render, a read that never answers — ends where it is, with a proper end of the
//! chunked body, instead of keeping the browser's spinner and our connection for ever. What was
//! sent still shows (the waiting parts keep their "loading" text), the warning names the path,
//! and `/metrics` counts it.
//!
//! The same wrapper reads a page's render to its end when its body is dropped before (a
//! browser that hung up): see [`PageBody`].

use super::serve::Connections;
use super::AppState;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::Response;
use futures_util::StreamExt;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::task::{Context, Poll};

/// Ends an HTML answer's body at the request's deadline (counted from its arrival), and
/// finishes the render of a page whose body is dropped before its end.
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
    let (parts, body) = response.into_parts();
    let body = PageBody {
        body: Some(body.into_data_stream()),
        deadline: Box::pin(tokio::time::sleep_until(deadline)),
        cut: false,
        path,
        limit,
        connections: state.web.connections.clone(),
    };
    Response::from_parts(parts, Body::from_stream(body))
}

/// A page's body: its render's chunks until they end or the deadline passes.
///
/// Dropped before its end (the browser hung up, a layer swapped the answer, the deadline
/// passed), it hands what is left of the render to a task that reads it to its end, unsent:
/// Leptos frees a render's state (its tasks, its reactive owner, what its reads returned) only
/// at the end of its stream, and a render dropped half-way kept all of it for ever (50 to 300
/// KB a page, BENCHMARKS.md). That task gives the render as long again as the request had
/// ([`GRACE`] times the limit from the first deadline): a render stuck for longer than that is
/// dropped where it is. Reading the rest costs what the render had left to do (its reads have
/// mostly been made by the time the first bytes leave).
struct PageBody {
    body: Option<axum::body::BodyDataStream>,
    deadline: Pin<Box<tokio::time::Sleep>>,
    /// The answer was ended at the deadline: nothing more is sent, the render is still read.
    cut: bool,
    path: String,
    limit: std::time::Duration,
    connections: Arc<Connections>,
}

/// How many request limits past its deadline a dropped render is still read to its end.
const GRACE: u32 = 2;

impl futures_util::Stream for PageBody {
    type Item = Result<Bytes, axum::Error>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if this.cut {
            return Poll::Ready(None);
        }
        let Some(body) = this.body.as_mut() else {
            return Poll::Ready(None);
        };
        // The deadline first: a render that keeps sending never outlives it either.
        if this.deadline.as_mut().poll(cx).is_ready() {
            this.cut = true;
            this.connections.pages_cut.fetch_add(1, Relaxed);
            let (path, limit) = (&this.path, this.limit);
            tracing::warn!(
                path,
                ?limit,
                "page not finished by the request deadline: its answer ends here"
            );
            return Poll::Ready(None);
        }
        match body.poll_next_unpin(cx) {
            Poll::Ready(None) => {
                this.body = None;
                Poll::Ready(None)
            }
            other => other,
        }
    }
}

impl Drop for PageBody {
    fn drop(&mut self) {
        let Some(mut rest) = self.body.take() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let until = self.deadline.deadline() + self.limit * GRACE;
        runtime.spawn(async move {
            let _ = tokio::time::timeout_at(until, async { while rest.next().await.is_some() {} })
                .await;
        });
    }
}
