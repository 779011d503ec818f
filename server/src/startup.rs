//! Builds the application from its configuration: store, migrations, demo data, engine,
//! sweeper, router; and runs it.

use crate::clock::Clock;
use crate::config::{Config, Database, StoreConfig};
use crate::engine::{Engine, Payments};
use crate::gate::{RateLimiter, SeatGate};
use crate::http::serve::{ConnLimits, Connections};
use crate::http::sockets::{SocketCap, Sockets};
use crate::http::{router, AppState, Web};
use crate::live_bus::LiveBus;
use crate::payments::gateway::HttpGateway;
use crate::redis_link::RedisLink;
use crate::store::{HoldLimits, PgStore, SqliteStore, Store};
use crate::waiting_room::WaitingRoom;
use anyhow::Context;
use leptos::config::LeptosOptions;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;

mod secrets;
use secrets::{operator_password, session_key, ticket_keys};

/// Opens the configured store and brings its schema up to date.
pub async fn open_store(config: &StoreConfig) -> anyhow::Result<Store> {
    let store: Store = match &config.database {
        Database::Postgres(url) => Store::from(
            PgStore::connect(url, config.db_max_connections)
                .await
                .context("failed to connect to PostgreSQL (DATABASE_URL)")?
                .with_direct_url(config.direct_url.clone()),
        ),
        Database::Sqlite(url) => {
            std::fs::create_dir_all(&config.data_dir).with_context(|| {
                format!(
                    "failed to create the data folder {}",
                    config.data_dir.display()
                )
            })?;
            Store::from(
                SqliteStore::connect(url)
                    .await
                    .with_context(|| format!("failed to open {url}"))?,
            )
        }
    };
    store
        .migrate()
        .await
        .context("failed to run database migrations")?;
    Ok(store)
}

/// Leptos options from `Leptos.toml` when it is in the working folder, else from `LEPTOS_*`
/// variables; either way `LEPTOS_*` variables win.
pub fn leptos_options() -> anyhow::Result<LeptosOptions> {
    let file = std::path::Path::new("Leptos.toml")
        .exists()
        .then_some("Leptos.toml");
    let mut options = leptos::config::get_configuration(file)
        .context("failed to read the Leptos configuration")?
        .leptos_options;
    // The site build names its bundle and stylesheet by their content and lists the names in
    // the site's `hash.txt` (a development build may not): the shell links those names.
    let hashes = std::path::Path::new(&*options.site_root).join("hash.txt");
    if hashes.exists() {
        options.hash_files = true;
        options.hash_file = std::path::absolute(&hashes)
            .context("the site's hash.txt")?
            .to_string_lossy()
            .into();
    }
    Ok(options)
}

/// The least time the waiting room's Redis calls are given (`REDIS_TIMEOUT_MS` when longer).
const ROOM_REDIS_TIMEOUT: Duration = Duration::from_secs(1);

/// A built, not yet serving, application.
pub struct Application {
    pub listener: TcpListener,
    pub engine: Arc<Engine>,
    workers: crate::workers::Workers,
    state: AppState,
    limits: ConnLimits,
    connections: Arc<Connections>,
}

impl Application {
    pub async fn build(
        config: Config,
        clock: Clock,
        options: LeptosOptions,
    ) -> anyhow::Result<Self> {
        // The venue's clock, for everything this process shows and counts by day.
        app::format::set_venue_offset(&config.sales.venue_utc_offset);
        let store = open_store(&config.store).await?;
        if config.store.demo_data {
            let created = crate::seed::seed_demo(&store, chrono::Utc::now(), 4).await?;
            if !created.is_empty() {
                tracing::info!(
                    showtimes = created.len(),
                    "created demo halls and showtimes"
                );
            }
        }
        match operator_password(&config)? {
            Some(password) => {
                let password = String::from_utf8_lossy(password.expose());
                crate::staff::ensure_first_operator(&store, &password).await?;
            }
            None if store.staff_list().await?.is_empty() => tracing::info!(
                "no staff account yet: add one with `server staff add <name> --role operator` \
                 (or set OPERATOR_PASSWORD)"
            ),
            None => {}
        }
        let prefix = &config.redis.key_prefix;
        let live = match &config.redis.target {
            Some(target) => LiveBus::with_redis(target, prefix)
                .context("REDIS_URL is not a usable Redis address")?,
            None => LiveBus::default(),
        };
        let link =
            config.redis.target.clone().map(|target| {
                Arc::new(RedisLink::with_prefix(target, config.redis.timeout, prefix))
            });
        if let Some(link) = &link {
            crate::gate::load_scripts(link).await;
        }
        let cap = |n: u32| (n > 0).then_some(n);
        let mut engine = Engine::with_live_bus(store, clock, config.sales.hold_ttl, live)
            .with_rate_limit(RateLimiter::new(
                config.limits.hold_rate_per_minute,
                link.clone(),
            ))
            .with_address_rate_limit(RateLimiter::keyed(
                "address",
                config.limits.hold_rate_per_address,
                link.clone(),
            ))
            .with_checkout_rate_limits(
                RateLimiter::keyed(
                    "checkout",
                    config.limits.checkout_rate_per_minute,
                    link.clone(),
                ),
                RateLimiter::keyed(
                    "checkout-address",
                    config.limits.checkout_rate_per_address,
                    link.clone(),
                ),
            )
            .with_lookup_rate_limits(
                RateLimiter::keyed(
                    "lookup-address",
                    config.limits.lookup_rate_per_address,
                    link.clone(),
                ),
                RateLimiter::keyed(
                    "lookup-pair",
                    config.limits.lookup_rate_per_pair,
                    link.clone(),
                ),
                RateLimiter::keyed(
                    "lookup-misses",
                    config.limits.lookup_rate_per_reference,
                    link.clone(),
                ),
            )
            .with_email_retention(chrono::Duration::days(i64::from(
                config.limits.email_retention_days,
            )))
            .with_cancel_cutoff(chrono::Duration::minutes(i64::from(
                config.limits.customer_cancel_until_minutes,
            )))
            .with_staff_policy(config.staff.policy.clone())
            .with_seat_rules(config.sales.seat_rules)
            .with_hold_limits(HoldLimits {
                holds_per_customer: cap(config.limits.holds_per_customer),
                seats_per_address: cap(config.limits.held_seats_per_address),
                cooldown: (!config.limits.hold_cooldown.is_zero())
                    .then_some(config.limits.hold_cooldown),
            });
        if let Some(link) = link.clone() {
            engine = engine.with_gate(SeatGate::new(link, config.sales.hold_ttl));
        }
        let listener = TcpListener::bind(options.site_addr)
            .await
            .with_context(|| format!("failed to listen on {}", options.site_addr))?;
        let public_url = config.http.public_url.clone().unwrap_or_else(|| {
            format!("http://{}", listener.local_addr().expect("bound listener"))
        });
        engine = engine.with_payments(Payments {
            gateway: Arc::new(HttpGateway::new(&config.payments.gateway_url)),
            provider: "sandbox".into(),
            callback_url: format!("{public_url}/payments/callback"),
            // The customer's booking page; the REST view is /bookings/{id}.
            return_url_base: format!("{public_url}/my-bookings/"),
            webhook_secret: config.payments.webhook_secret.clone(),
        });
        let mailer = crate::mail::Mailer::new(&config.mail, &public_url)?;
        if config.mail.smtp_url.is_none() && config.store.is_production() {
            tracing::warn!(folder = %mailer.destination, "no SMTP_URL: customers' e-mail is written to files, not sent");
        }
        tracing::info!(to = %mailer.destination, "customers' e-mail");
        engine = engine.with_mailer(Arc::new(mailer));
        let secure = public_url.starts_with("https://");
        let session = session_key(&config)?.secure(secure);
        let room_clock = engine.clock().clone();
        // The room has a connection of its own, with a longer timeout: a slow answer there is
        // a refused hold (it fails closed), where the seat gate can simply be passed by.
        let room_link = config.redis.target.clone().map(|target| {
            let timeout = config.redis.timeout.max(ROOM_REDIS_TIMEOUT);
            Arc::new(RedisLink::with_prefix(target, timeout, prefix))
        });
        if let Some(link) = &room_link {
            crate::waiting_room::load_script(link).await;
        } else if config.store.is_production() {
            tracing::warn!(
                "PostgreSQL without REDIS_URL: each server process keeps its own waiting rooms, \
                 so run one process only, or set REDIS_URL, before a hot sale"
            );
        }
        let engine = engine
            .with_waiting_room(WaitingRoom::new(
                room_link,
                config.waiting_room.clone(),
                session.expose(),
                room_clock,
            ))
            // Every instance signs staff browsers' devices and sign-in challenges alike.
            .with_staff_key(session.expose());
        let engine =
            Arc::new(engine.with_ticket_keys(ticket_keys(&config)?.with_legacy(session.expose())));
        let workers = crate::workers::Workers::start(&engine, &config).await?;
        let connections = Arc::new(Connections::default());
        // WebSockets of every kind together leave the reserve to plain requests.
        let sockets = Sockets::new(config.http.max_sockets());
        let state = AppState {
            leptos_options: Arc::new(options),
            engine: engine.clone(),
            session,
            staff: crate::http::staff::StaffDoor::new(secure, link.clone()),
            web: Arc::new(Web {
                trusted_proxies: config.http.trusted_proxies.clone(),
                metrics_allow: config.http.metrics_allow.clone(),
                // The public address is this site, whatever Host a proxy passes on.
                allowed_origins: config
                    .http
                    .allowed_origins
                    .iter()
                    .cloned()
                    .chain(config.http.public_url.iter().map(|u| origin_of(u)))
                    .collect(),
                body_timeout: config.http.body_timeout,
                request_timeout: config.http.request_timeout,
                viewers: SocketCap::new(
                    sockets.clone(),
                    config.http.max_live_viewers,
                    config.http.max_live_viewers_per_address,
                ),
                waiters: SocketCap::new(
                    sockets,
                    config.http.max_queue_pages,
                    config.http.max_queue_pages_per_address,
                ),
                connections: connections.clone(),
                pages: Default::default(),
                live_halls: Arc::new(crate::http::LiveHalls::on_current_runtime()),
            }),
        };
        Ok(Self {
            listener,
            engine,
            workers,
            state,
            limits: ConnLimits {
                max: config.http.max_connections,
                per_address: config.http.max_connections_per_address,
                header_timeout: config.http.header_timeout,
                trusted_proxies: config.http.trusted_proxies.clone(),
            },
            connections,
        })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.listener.local_addr().expect("bound listener")
    }

    pub async fn serve(self) -> anyhow::Result<()> {
        let app = router(self.state);
        crate::http::serve::serve(
            self.listener,
            app,
            self.limits,
            self.connections,
            shutdown_signal(),
        )
        .await?;
        self.workers.stop().await;
        Ok(())
    }
}

/// `scheme://host[:port]` of a URL (`PUBLIC_URL` may carry a path).
fn origin_of(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("http", url));
    let host = rest.split('/').next().unwrap_or(rest);
    format!("{scheme}://{host}")
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        if let Ok(mut s) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        {
            s.recv().await;
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! { _ = ctrl_c => {}, _ = terminate => {} }
}

#[cfg(test)]
mod tests {
    /// The server reads the site's options from Leptos.toml, cargo-leptos builds the site from
    /// the workspace Cargo.toml: where the site is written, its pkg folder, address and reload
    /// port must be the same in both (cargo-leptos's default site root is inside
    /// $CARGO_TARGET_DIR, so a missing value there is a site the server never finds), and the
    /// output name must be the same in the three places that need it.
    #[test]
    fn leptos_options_agree_with_cargo_leptos_build_options() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
        let file = format!("{root}/Leptos.toml");
        let options = leptos::config::get_config_from_file(&file)
            .unwrap()
            .leptos_options;
        let cargo = std::fs::read_to_string(format!("{root}/Cargo.toml")).unwrap();
        let metadata = &cargo[cargo.find("[[workspace.metadata.leptos]]").unwrap()..];
        let value = |key: &str| {
            metadata
                .lines()
                .find_map(|l| l.strip_prefix(key)?.trim_start().strip_prefix('='))
                .map(|v| v.trim().trim_matches('"').to_owned())
                .unwrap_or_else(|| panic!("{key} is not set for cargo-leptos in Cargo.toml"))
        };
        assert_eq!(value("site-root"), &*options.site_root);
        assert_eq!(value("site-pkg-dir"), &*options.site_pkg_dir);
        assert_eq!(value("site-addr"), options.site_addr.to_string());
        assert_eq!(value("reload-port"), options.reload_port.to_string());
        assert_eq!(value("name"), &*options.output_name);
        assert_eq!(
            option_env!("LEPTOS_OUTPUT_NAME"),
            Some(&*options.output_name)
        );
    }
}
