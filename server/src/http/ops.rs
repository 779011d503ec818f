//! `GET /health` and `GET /metrics` (the latter only for `METRICS_ALLOW` addresses, see
//! `guard.rs`).

use super::AppState;
use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::IntoResponse;
use axum::routing::get;
use axum::{Json, Router};
use serde::Serialize;
use utoipa::OpenApi;

/// This module's part of the OpenAPI description.
#[derive(OpenApi)]
#[openapi(paths(health, metrics, favicon_svg, favicon_ico))]
pub struct Api;

/// `GET /health`'s answer.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Health {
    /// `ok`, or `unavailable` when the database does not answer.
    #[schema(example = "ok")]
    status: &'static str,
    /// `postgres` or `sqlite`.
    #[schema(example = "postgres")]
    database: &'static str,
}

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/health", get(health))
        .route("/metrics", get(metrics))
        .route("/favicon.svg", get(favicon_svg))
        .route("/favicon.ico", get(favicon_ico))
}

/// The site's icon: a seat in the accent colour (pages link it; `/favicon.ico` answers the same
/// for clients that ask for it without reading the page).
const FAVICON: &str = r##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#15171b"/><path d="M8 9a3 3 0 0 1 3-3h10a3 3 0 0 1 3 3v9H8z" fill="#ffb020"/><rect x="6" y="19" width="20" height="4" rx="2" fill="#ffb020"/><rect x="8" y="23" width="3" height="4" fill="#ffb020"/><rect x="21" y="23" width="3" height="4" fill="#ffb020"/></svg>"##;

/// The site's icon (SVG).
#[utoipa::path(get, path = "/favicon.svg", tag = "operations",
    responses((status = 200, description = "The icon", content_type = "image/svg+xml", body = String)))]
async fn favicon_svg() -> impl IntoResponse {
    favicon()
}

/// The site's icon, for clients that ask for it without reading a page (SVG too).
#[utoipa::path(get, path = "/favicon.ico", tag = "operations",
    responses((status = 200, description = "The icon", content_type = "image/svg+xml", body = String)))]
async fn favicon_ico() -> impl IntoResponse {
    favicon()
}

fn favicon() -> impl IntoResponse {
    (
        [
            (header::CONTENT_TYPE, "image/svg+xml"),
            (header::CACHE_CONTROL, "public, max-age=86400"),
        ],
        FAVICON,
    )
}

/// Whether this instance and its database answer (for load balancers).
#[utoipa::path(get, path = "/health", tag = "operations",
    responses((status = 200, description = "Up", body = Health),
        (status = 503, description = "The database does not answer", body = Health)))]
#[tracing::instrument(skip(state))]
async fn health(State(state): State<AppState>) -> impl IntoResponse {
    let backend = state.engine.store().backend();
    match state.engine.store().ping().await {
        Ok(()) => (
            StatusCode::OK,
            Json(Health {
                status: "ok",
                database: backend,
            }),
        ),
        Err(e) => {
            tracing::error!(error = %e, "health check: database does not answer");
            (
                StatusCode::SERVICE_UNAVAILABLE,
                Json(Health {
                    status: "unavailable",
                    database: backend,
                }),
            )
        }
    }
}

/// Counters in the Prometheus text format: what became of hold attempts (rate limit, seat gate,
/// database) and how often Redis had to be bypassed.
#[utoipa::path(get, path = "/metrics", tag = "operations",
    responses((status = 200, description = "Prometheus text (version 0.0.4)", content_type = "text/plain", body = String),
        (status = 403, description = "From an address outside `METRICS_ALLOW`", body = super::error::ErrorBody)))]
async fn metrics(State(state): State<AppState>) -> impl IntoResponse {
    use std::fmt::Write;
    use std::sync::atomic::Ordering::Relaxed;
    let m = state.engine.metrics();
    let mut out = String::new();
    let mut counter = |name: &str, help: &str, value: u64| {
        let _ = writeln!(
            out,
            "# HELP {name} {help}\n# TYPE {name} counter\n{name} {value}"
        );
    };
    counter(
        "seats_hold_rate_limited_total",
        "Hold attempts refused by the per-customer rate limit (429).",
        m.rate_limited.load(Relaxed),
    );
    counter(
        "seats_hold_gate_rejected_total",
        "Hold attempts the Redis seat gate refused without database work (409).",
        m.gate_rejected.load(Relaxed),
    );
    counter(
        "seats_hold_gate_passed_total",
        "Hold attempts the Redis seat gate let through to the database.",
        m.gate_passed.load(Relaxed),
    );
    counter(
        "seats_hold_gate_bypassed_total",
        "Hold attempts that went to the database without the gate (no Redis, or Redis unusable).",
        m.gate_bypassed.load(Relaxed),
    );
    counter(
        "seats_hold_db_statements_total",
        "Hold statements (one conditional UPDATE each) sent to the database.",
        m.db_hold_statements.load(Relaxed),
    );
    counter(
        "seats_best_available_repicks_total",
        "Best-available picks made again because others took the seats first.",
        m.repicks.load(Relaxed),
    );
    counter(
        "seats_holds_granted_total",
        "Holds the database granted.",
        m.held.load(Relaxed),
    );
    counter(
        "seats_redis_bypassed_total",
        "Seat gate and rate limit calls that went past an unusable Redis.",
        state.engine.gate().link().map_or(0, |l| l.bypassed()),
    );
    counter(
        "seats_live_redis_publish_failures_total",
        "Live events that could not go through Redis (delivered in this process only).",
        state.engine.live_bus().redis_failures(),
    );
    counter(
        "seats_hold_address_rate_limited_total",
        "Hold attempts refused by the per-address rate limit (429).",
        m.address_rate_limited.load(Relaxed),
    );
    counter(
        "seats_hold_address_capped_total",
        "Hold attempts refused because the address's live holds held as many seats as allowed.",
        m.address_capped.load(Relaxed),
    );
    counter(
        "seats_payment_mismatches_total",
        "Payments whose charge did not match the session asked for (refunded, not confirmed).",
        m.payment_mismatches.load(Relaxed),
    );
    counter(
        "seats_payment_events_parked_total",
        "Payment events this process parked for an operator (failed too often, or hopeless).",
        m.events_parked.load(Relaxed),
    );
    counter(
        "seats_connections_refused_total",
        "Connections answered 503 and closed for being over a connection cap.",
        state.web.connections.refused.load(Relaxed) as u64,
    );
    counter(
        "seats_pages_cut_total",
        "Pages whose answer was ended unfinished at the request deadline.",
        state.web.connections.pages_cut.load(Relaxed) as u64,
    );
    counter(
        "seats_staff_sign_ins_challenged_total",
        "Staff sign-ins asked for a proof of work before their password was looked at.",
        m.sign_ins_challenged.load(Relaxed),
    );
    counter(
        "seats_staff_sign_ins_refused_total",
        "Staff sign-ins and password confirmations refused unchecked while their count waits.",
        m.sign_ins_refused.load(Relaxed),
    );
    counter(
        "seats_waiting_room_joins_total",
        "Places taken in waiting rooms through this process (repeated joins included).",
        m.room_joins.load(Relaxed),
    );
    counter(
        "seats_waiting_room_admitted_total",
        "Shoppers this process's admission steps let in.",
        m.room_admitted.load(Relaxed),
    );
    counter(
        "seats_mail_sent_total",
        "Customers' e-mail messages this process sent.",
        m.mail_sent.load(Relaxed),
    );
    counter(
        "seats_mail_failed_total",
        "Tries of customers' e-mail that failed in this process (retried later, or parked).",
        m.mail_failed.load(Relaxed),
    );
    counter(
        "seats_consumer_rejoins_total",
        "Times a Kafka consumer of this process rejoined its group over a partition nobody read.",
        m.consumer_rejoins.load(Relaxed),
    );
    for (showtime, counts) in state.engine.room_figures() {
        let _ = writeln!(
            out,
            "seats_waiting_room_waiting{{showtime=\"{showtime}\"}} {}\nseats_waiting_room_inside{{showtime=\"{showtime}\"}} {}",
            counts.waiting, counts.inside
        );
    }
    let _ = writeln!(
        out,
        "# HELP seats_waiting_room_pages Waiting pages connected to this process.\n# TYPE seats_waiting_room_pages gauge\nseats_waiting_room_pages {}",
        state.engine.waiting_rooms().connected_pages()
    );
    let mut gauge = |name: &str, help: &str, value: i64| {
        if value >= 0 {
            let _ = writeln!(
                out,
                "# HELP {name} {help}\n# TYPE {name} gauge\n{name} {value}"
            );
        }
    };
    let g = state.engine.gauges();
    // Read by the housekeeping task every second: a scrape costs no query.
    gauge(
        "seats_outbox_unpublished",
        "Committed booking events the relay has not yet delivered.",
        g.outbox_unpublished.load(Relaxed),
    );
    gauge(
        "seats_outbox_parked",
        "Outbox events parked for an operator (see outbox.last_error).",
        g.outbox_parked.load(Relaxed),
    );
    gauge(
        "seats_mail_queued",
        "Customers' e-mail messages waiting to be sent (new, or to be tried again).",
        g.mail_queued.load(Relaxed),
    );
    gauge(
        "seats_mail_parked",
        "Customers' e-mail messages parked after too many failed tries (see the console).",
        g.mail_parked.load(Relaxed),
    );
    gauge(
        "seats_connections_open",
        "Connections open now.",
        state.web.connections.open() as i64,
    );
    gauge(
        "seats_live_viewers",
        "Live seat-map viewers connected now.",
        state.web.viewers.count() as i64,
    );
    gauge(
        "seats_queue_page_sockets",
        "Waiting pages' WebSockets open now (of MAX_QUEUE_PAGES).",
        state.web.waiters.count() as i64,
    );
    gauge(
        "seats_runtime_tasks_alive",
        "Tasks alive on the server's runtime (requests, renders, sockets, workers).",
        tokio::runtime::Handle::current()
            .metrics()
            .num_alive_tasks() as i64,
    );
    gauge(
        "seats_gate_pending_releases",
        "Seat-gate releases waiting for Redis to answer again.",
        state.engine.gate().pending_releases() as i64,
    );
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], out)
}
