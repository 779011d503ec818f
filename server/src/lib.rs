//! The server: configuration, the inventory engine and its two stores, the REST API, the Leptos
//! routes and the background workers.

pub mod booking_events;
pub mod clock;
pub mod config;
pub mod engine;
pub mod gate;
pub mod http;
pub mod live_bus;
pub mod net;
pub mod payments;
pub mod read_model;
pub mod redis_link;
pub mod seed;
pub mod startup;
pub mod store;
pub mod workers;

/// Logs to stderr; `RUST_LOG` filters (default `info`).
pub fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,sqlx=warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}
