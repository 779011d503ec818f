//! The REST API and the routes that serve the Leptos app, in one axum router.

mod checkout;
pub mod error;
pub mod guard;
mod handlers;
pub mod json;
pub mod live;
pub mod operator;
pub mod serve;
pub mod session;

use crate::engine::Engine;
use axum::extract::{DefaultBodyLimit, FromRef};
use axum::routing::{delete, get, post};
use axum::Router;
use leptos::config::LeptosOptions;
use leptos_axum::{generate_route_list, LeptosRoutes};
use session::SessionKey;
use std::sync::Arc;
use std::time::Duration;

/// The HTTP layer's own settings (see `config`).
pub struct Web {
    pub trusted_proxies: Vec<crate::net::IpNet>,
    pub metrics_allow: Vec<crate::net::IpNet>,
    pub allowed_origins: Vec<String>,
    pub body_timeout: Duration,
    pub request_timeout: Duration,
    /// Live seat-map viewers and their caps.
    pub viewers: Arc<live::Viewers>,
    /// Open connections (for `/metrics`).
    pub connections: Arc<serve::Connections>,
}

/// What every handler gets. axum clones it for each request, so it holds only `Arc`s (the
/// Leptos options are a dozen strings: cloning them per hold request was measurable).
#[derive(Clone, FromRef)]
pub struct AppState {
    #[from_ref(skip)]
    pub leptos_options: Arc<LeptosOptions>,
    pub engine: Arc<Engine>,
    pub session: SessionKey,
    pub operator: operator::OperatorKey,
    pub web: Arc<Web>,
}

impl FromRef<AppState> for LeptosOptions {
    fn from_ref(state: &AppState) -> Self {
        (*state.leptos_options).clone()
    }
}

pub fn router(state: AppState) -> Router {
    let engine = state.engine.clone();
    let context = move || {
        let handle: Arc<dyn app::engine::Inventory> = engine.clone();
        leptos::prelude::provide_context(app::engine::InventoryHandle(handle));
    };
    let shell = {
        let options = state.leptos_options.clone();
        move || app::shell((*options).clone())
    };
    Router::new()
        .route("/health", get(handlers::health))
        .route("/metrics", get(handlers::metrics))
        .route("/showtimes", get(handlers::list_showtimes))
        .route("/showtimes/{id}/seats", get(handlers::seat_map))
        .route(
            "/showtimes/{id}/holds",
            post(handlers::create_hold).layer(DefaultBodyLimit::max(json::MAX_JSON_BODY)),
        )
        .route("/showtimes/{id}/live", get(live::live))
        .route("/holds/{hold_id}", delete(handlers::cancel_hold))
        .route(
            "/holds/{hold_id}/checkout",
            post(checkout::checkout).layer(DefaultBodyLimit::max(json::MAX_JSON_BODY)),
        )
        .route("/bookings", get(checkout::bookings))
        .route("/bookings/{id}", get(checkout::booking))
        .route("/tickets/{code}", get(checkout::ticket))
        .route("/reports/sales", get(checkout::sales_report))
        .route(
            "/payments/callback",
            post(checkout::payment_callback).layer(DefaultBodyLimit::max(json::MAX_JSON_BODY)),
        )
        .leptos_routes_with_context(&state, generate_route_list(app::App), context, shell)
        .fallback(guard::fallback)
        // Listed innermost first: a request passes them bottom-up.
        .layer(tower_http::timeout::RequestBodyTimeoutLayer::new(
            state.web.body_timeout,
        ))
        .layer(tower_http::limit::RequestBodyLimitLayer::new(
            guard::MAX_BODY,
        ))
        // A deadline for the whole request: a body sent a byte at a time, or a handler waiting
        // too long, ends with 408 instead of holding a connection for ever.
        .layer(tower_http::timeout::TimeoutLayer::with_status_code(
            axum::http::StatusCode::REQUEST_TIMEOUT,
            state.web.request_timeout,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.session.clone(),
            session::middleware,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            operator::middleware,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            guard::cross_site,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            guard::client,
        ))
        .layer(axum::middleware::from_fn(guard::shape))
        .layer(axum::middleware::from_fn(guard::answers))
        .layer(tower_http::trace::TraceLayer::new_for_http())
        .with_state(state)
}
