//! Builds the application from its configuration: store, migrations, demo data, engine,
//! sweeper, router; and runs it.

use crate::clock::Clock;
use crate::config::{Config, Database, Secret};
use crate::engine::{Engine, Payments};
use crate::events::EventBus;
use crate::gate::{RateLimiter, SeatGate};
use crate::http::session::SessionKey;
use crate::http::{router, AppState};
use crate::payments::gateway::HttpGateway;
use crate::redis_link::RedisLink;
use crate::store::{PgStore, SqliteStore, Store};
use anyhow::Context;
use leptos::config::LeptosOptions;
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::net::TcpListener;

/// Opens the configured store and brings its schema up to date.
pub async fn open_store(config: &Config) -> anyhow::Result<Arc<dyn Store>> {
    let store: Arc<dyn Store> = match &config.database {
        Database::Postgres(url) => Arc::new(
            PgStore::connect(url, config.db_max_connections)
                .await
                .context("failed to connect to PostgreSQL (DATABASE_URL)")?,
        ),
        Database::Sqlite(url) => {
            std::fs::create_dir_all(&config.data_dir).with_context(|| {
                format!(
                    "failed to create the data folder {}",
                    config.data_dir.display()
                )
            })?;
            Arc::new(
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

/// The session key from `SESSION_SECRET`, or a random one kept in the data folder.
fn session_key(config: &Config) -> anyhow::Result<SessionKey> {
    if let Some(secret) = &config.session_secret {
        return Ok(SessionKey::new(secret.clone()));
    }
    let path = config.data_dir.join("session.key");
    if let Ok(hex_key) = std::fs::read_to_string(&path) {
        if let Ok(bytes) = hex::decode(hex_key.trim()) {
            return Ok(SessionKey::new(Secret::new(bytes)));
        }
    }
    std::fs::create_dir_all(&config.data_dir)?;
    let bytes: [u8; 32] = rand::random();
    std::fs::write(&path, hex::encode(bytes))
        .with_context(|| format!("failed to write {}", path.display()))?;
    Ok(SessionKey::new(Secret::new(bytes.to_vec())))
}

/// The operator password: `OPERATOR_PASSWORD`, else (embedded mode) a random one kept in the
/// data folder, else none (operator pages off).
fn operator_password(config: &Config) -> anyhow::Result<Option<Secret>> {
    if let Some(password) = &config.operator_password {
        return Ok(Some(password.clone()));
    }
    if matches!(config.database, Database::Postgres(_)) {
        tracing::info!("operator pages are off (set OPERATOR_PASSWORD to turn them on)");
        return Ok(None);
    }
    let path = config.data_dir.join("operator.password");
    let password = match std::fs::read_to_string(&path) {
        Ok(text) if text.trim().len() >= 8 => text.trim().to_string(),
        _ => {
            std::fs::create_dir_all(&config.data_dir)?;
            let password = hex::encode(rand::random::<[u8; 12]>());
            std::fs::write(&path, &password)
                .with_context(|| format!("failed to write {}", path.display()))?;
            password
        }
    };
    tracing::info!(
        "operator pages (/operator/sales): user \"operator\", password in {}",
        path.display()
    );
    Ok(Some(Secret::new(password.into_bytes())))
}

/// Leptos options from `Leptos.toml` when it is in the working folder, else from `LEPTOS_*`
/// variables; either way `LEPTOS_*` variables win.
pub fn leptos_options() -> anyhow::Result<LeptosOptions> {
    let file = std::path::Path::new("Leptos.toml")
        .exists()
        .then_some("Leptos.toml");
    Ok(leptos::config::get_configuration(file)
        .context("failed to read the Leptos configuration")?
        .leptos_options)
}

/// A built, not yet serving, application.
pub struct Application {
    pub listener: TcpListener,
    pub engine: Arc<Engine>,
    relay: Arc<crate::relay::Relay>,
    state: AppState,
}

impl Application {
    pub async fn build(
        config: Config,
        clock: Clock,
        options: LeptosOptions,
    ) -> anyhow::Result<Self> {
        let store = open_store(&config).await?;
        if config.demo_data {
            let created = crate::seed::seed_demo(store.as_ref(), chrono::Utc::now(), 4).await?;
            if !created.is_empty() {
                tracing::info!(
                    showtimes = created.len(),
                    "created demo halls and showtimes"
                );
            }
        }
        let events = match &config.redis {
            Some(target) => {
                EventBus::with_redis(target).context("REDIS_URL is not a usable Redis address")?
            }
            None => EventBus::default(),
        };
        let link = config
            .redis
            .clone()
            .map(|target| Arc::new(RedisLink::new(target, config.redis_timeout)));
        if let Some(link) = &link {
            crate::gate::load_scripts(link).await;
        }
        let mut engine = Engine::with_events(store, clock, config.hold_ttl, events)
            .with_rate_limit(RateLimiter::new(config.hold_rate_per_minute, link.clone()));
        if let Some(link) = link {
            engine = engine.with_gate(SeatGate::new(link));
        }
        let listener = TcpListener::bind(options.site_addr)
            .await
            .with_context(|| format!("failed to listen on {}", options.site_addr))?;
        let public_url = config.public_url.clone().unwrap_or_else(|| {
            format!("http://{}", listener.local_addr().expect("bound listener"))
        });
        engine = engine.with_payments(Payments {
            gateway: Arc::new(HttpGateway::new(&config.payment_gateway_url)),
            provider: "sandbox".into(),
            callback_url: format!("{public_url}/payments/callback"),
            // The booking page (not built yet: issue 6); the REST view is /bookings/{id}.
            return_url_base: format!("{public_url}/my-bookings/"),
            webhook_secret: config.payment_webhook_secret.clone(),
        });
        let session = session_key(&config)?;
        let engine = Arc::new(engine.with_ticket_key(session.expose()));
        crate::sweeper::spawn(engine.clone(), config.sweep_interval);
        crate::engine::settlement::spawn(engine.clone());
        crate::engine::settlement::spawn_reconciliation(
            engine.clone(),
            config.reconcile_interval,
            config.reconcile_after,
        );
        let relay = crate::relay::start(&engine, &config).await?;
        let state = AppState {
            leptos_options: Arc::new(options),
            engine: engine.clone(),
            session,
            operator: crate::http::operator::OperatorKey::new(operator_password(&config)?),
        };
        Ok(Self {
            listener,
            engine,
            relay,
            state,
        })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.listener.local_addr().expect("bound listener")
    }

    pub async fn serve(self) -> anyhow::Result<()> {
        use axum::serve::ListenerExt;
        let app = router(self.state);
        // Small frames (live-map events, JSON answers) leave at once instead of waiting for the
        // previous segment's ACK (Nagle), which a delayed ACK can hold back for tens of ms.
        let listener = self.listener.tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
        axum::serve(listener, app)
            .with_graceful_shutdown(shutdown_signal())
            .await?;
        self.relay.stop().await;
        Ok(())
    }
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
