//! The server: configuration, the inventory engine and its two stores, the REST API, the Leptos
//! routes and the background workers. `docs/architecture.md` describes the guarantees and the
//! flows; this is where each part lives.
//!
//! # Layout
//!
//! - [`startup`] builds an [`startup::Application`] from [`config`]: the store, the engine, the
//!   workers and the router, then serves it; `main.rs` only calls it.
//! - [`http`]: one router per resource (`showtimes`, `holds`, `bookings`, `payments`, `reports`,
//!   `ops`) merged with the Leptos pages and server functions under the request guards
//!   (`guard`, `session`, `staff`); `serve` is the accept loop with the connection caps, and
//!   `live` the WebSocket of the live seat map.
//! - [`engine`]: the use cases, one module each (`holds`, `catalog`, `checkout`, `bookings`,
//!   `tickets`, `sales`, `settlement`, `consumers`, `box_office`, `staff`: sign-in, sessions,
//!   tokens, audit); each implements one of the app's engine traits (`app/src/engine/`), which
//!   the server functions call.
//! - [`store`]: one concrete `Store` over PostgreSQL or SQLite, split by capability (`catalog`,
//!   `holds`, `payments`, `settlement`, `idempotency`, `relay`, `consumers`, `contacts`, `mail`,
//!   `box_office`, `staff`), each an `impl Store` block; `store/dialect.rs` has what really
//!   differs between the dialects and `store/sql.rs` the column types both share.
//! - [`workers`]: everything that runs in the background, started and stopped together: the
//!   sweeper and housekeeping, the payment workers (confirmations, refunds, reconciliation) and
//!   the outbox relay.
//! - [`booking_events`]: the versioned events the outbox carries; [`live_bus`]: the seat-map
//!   changes, in process and through Redis pub/sub; [`read_model`]: the cached seat map.
//! - [`gate`] (the Redis seat gate and the rate limits) and [`redis_link`] (one Redis or a
//!   cluster, with timeouts and a breaker); [`payments`]: the gateway client, callback
//!   signatures and the sandbox; [`net`]: address ranges and the client address behind proxies;
//!   [`staff`]: staff accounts, their password hashes and the `server staff` command.
//!
//! The hold path, from the button to the SQL: `app/src/pages/seat_map/panels.rs` (the button)
//! → `app/src/pages/seat_map/picker/actions.rs` → `app/src/serverfns/holds/hold_seats.rs` (or
//! `POST /showtimes/{id}/holds` in `http/showtimes.rs`) → `engine/holds/mod.rs` →
//! `store/holds/mod.rs` → `store/holds/postgres/statements.rs` (`HOLD_SQL`) or
//! `store/holds/sqlite.rs`.

pub mod booking_events;
pub mod clock;
pub mod config;
pub mod engine;
pub mod gate;
pub mod http;
pub mod live_bus;
pub mod mail;
pub mod net;
pub mod payments;
pub mod read_model;
pub mod redis_link;
pub mod seed;
pub mod staff;
pub mod startup;
pub mod store;
pub mod waiting_room;
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
