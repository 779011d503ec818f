//! The HTTP side: one router per resource (`showtimes`, `holds`, `bookings`, `payments`,
//! `reports`, `ops`; `openapi` describes them), merged here with the Leptos pages and server functions under one stack of
//! guards (`guard`, `session`, `staff`); `serve` is the accept loop under them.

mod assets;
mod booking_link;
mod bookings;
mod compress;
mod deadline;
pub mod error;
pub mod guard;
mod holds;
pub mod json;
pub mod live;
mod live_halls;
mod openapi;
mod openapi_page;
mod ops;
mod page_frames;
mod params;
mod payments;
mod queue;
mod queue_pages;

pub use live_halls::Halls as LiveHalls;
mod reports;
pub mod serve;
pub mod session;
mod showtimes;
pub mod sockets;
pub mod staff;
mod upgrade;

use crate::engine::Engine;
use axum::extract::FromRef;
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
    pub viewers: Arc<sockets::SocketCap>,
    /// Waiting pages' sockets and their caps.
    pub waiters: Arc<sockets::SocketCap>,
    /// Open connections (for `/metrics`).
    pub connections: Arc<serve::Connections>,
    /// The waiting rooms' pages connected here.
    pub pages: Arc<queue_pages::Pages>,
    /// The live seat map's viewers connected here, by showtime.
    pub live_halls: Arc<LiveHalls>,
}

/// What every handler gets. axum clones it for each request, so it holds only `Arc`s (the
/// Leptos options are a dozen strings: cloning them per hold request was measurable).
#[derive(Clone, FromRef)]
pub struct AppState {
    #[from_ref(skip)]
    pub leptos_options: Arc<LeptosOptions>,
    pub engine: Arc<Engine>,
    pub session: SessionKey,
    pub staff: staff::StaffDoor,
    pub web: Arc<Web>,
}

impl FromRef<AppState> for LeptosOptions {
    fn from_ref(state: &AppState) -> Self {
        (*state.leptos_options).clone()
    }
}

/// What every render and server function is given: the engine's handle.
fn render_context(engine: Arc<Engine>) -> impl Fn() + Clone + Send + Sync + 'static {
    move || {
        let handle: Arc<dyn app::engine::Inventory> = engine.clone();
        leptos::prelude::provide_context(app::engine::InventoryHandle(handle));
    }
}

pub fn router(state: AppState) -> Router {
    let engine = state.engine.clone();
    let context = render_context(engine);
    let shell = {
        let options = state.leptos_options.clone();
        move || app::shell((*options).clone())
    };
    // One route table for the pages of every bundle; the shell links each page's own.
    let mut pages = generate_route_list(app::CustomerApp);
    pages.extend(generate_route_list(app::BookingsApp));
    pages.extend(generate_route_list(app::StaffApp));
    Router::new()
        .merge(ops::routes())
        .merge(showtimes::routes())
        .merge(queue::routes())
        .merge(holds::routes())
        .merge(bookings::routes())
        .merge(booking_link::routes())
        .merge(payments::routes())
        .merge(reports::routes())
        .merge(openapi::routes())
        .leptos_routes_with_context(&state, pages, context, shell)
        .fallback(guard::fallback)
        // Listed innermost first: a request passes them bottom-up.
        .layer(axum::middleware::from_fn(guard::body_limit))
        .layer(tower_http::timeout::RequestBodyTimeoutLayer::new(
            state.web.body_timeout,
        ))
        // A deadline for the whole request: a body sent a byte at a time, or a handler waiting
        // too long, ends with 408 instead of holding a connection for ever.
        .layer(tower_http::timeout::TimeoutLayer::with_status_code(
            axum::http::StatusCode::REQUEST_TIMEOUT,
            state.web.request_timeout,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            deadline::pages,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.session.clone(),
            session::middleware,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            staff::access,
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
        .layer(axum::middleware::from_fn(assets::caching))
        .layer(axum::middleware::from_fn(compress::compression))
        .layer(tower_http::trace::TraceLayer::new_for_http())
        .with_state(state)
}
