//! Test support: a fresh database per test on either backend, an engine over it with a clock
//! the test can move, and raw reads of `show_seat` to check what is really stored.

/// Declares each named `async fn name(backend: Backend)` as two tests, `postgres::name` and
/// `sqlite::name`: one contract, both backends.
macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {
        mod postgres {
            $(#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $name() { super::$name(super::Backend::Postgres).await }) *
        }
        mod sqlite {
            $(#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $name() { super::$name(super::Backend::Sqlite).await }) *
        }
    };
}

use app::domain::{SeatCode, SeatSelection, ShowtimeId};
use chrono::{TimeZone, Utc};
use server::clock::Clock;
use server::engine::Engine;
use server::seed::demo_halls;
use server::store::{PgStore, SqliteStore, Store};
use sqlx::{PgPool, SqlitePool};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;
use uuid::Uuid;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Postgres,
    Sqlite,
}

/// PostgreSQL server for tests: `TEST_DATABASE_URL`, else the machine's local server. The test
/// command (scripts/test.sh) starts a throwaway one when none runs. Never skipped: if it cannot
/// be reached the PostgreSQL tests fail.
pub fn pg_admin_url() -> String {
    std::env::var("TEST_DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into())
}

/// A fresh, migrated database of one backend; its URL works for a second connection too.
pub struct TestDb {
    pub backend: Backend,
    pub url: String,
    pub store: Store,
    pg: Option<PgPool>,
    sqlite: Option<SqlitePool>,
}

impl TestDb {
    pub async fn new(backend: Backend) -> Self {
        // Named with its creation time, so later runs can sweep the databases tests left.
        let name = format!(
            "seats_test_{}_{}",
            Utc::now().timestamp(),
            Uuid::new_v4().simple()
        );
        match backend {
            Backend::Postgres => {
                let admin = PgPool::connect(&pg_admin_url())
                    .await
                    .expect("PostgreSQL for tests is reachable");
                sweep_old_test_databases(&admin).await;
                sqlx::query(&format!("create database {name}"))
                    .execute(&admin)
                    .await
                    .expect("create test database");
                admin.close().await;
                let url = with_database(&pg_admin_url(), &name);
                let store = Store::from(
                    PgStore::connect(&url, 64)
                        .await
                        .expect("connect to test database"),
                );
                store.migrate().await.expect("migrate");
                let pool = PgPool::connect(&url).await.expect("inspection pool");
                Self {
                    backend,
                    url,
                    store,
                    pg: Some(pool),
                    sqlite: None,
                }
            }
            Backend::Sqlite => {
                let dir = std::env::temp_dir().join("seats-tests");
                std::fs::create_dir_all(&dir).expect("temp dir");
                let url = format!("sqlite://{}", dir.join(format!("{name}.db")).display());
                let store = Store::from(SqliteStore::connect(&url).await.expect("open sqlite"));
                store.migrate().await.expect("migrate");
                let pool = SqlitePool::connect(&url).await.expect("inspection pool");
                Self {
                    backend,
                    url,
                    store,
                    pg: None,
                    sqlite: Some(pool),
                }
            }
        }
    }

    /// The demo 300-seat hall (rows A–O, seats 1–20) with one showtime tomorrow (its sales
    /// are open now and at every time of the tests' manual clocks).
    pub async fn showtime(&self) -> ShowtimeId {
        self.showtime_at(Utc::now() + chrono::Duration::days(1))
            .await
    }

    /// The demo 300-seat hall with one showtime starting at `starts_at` (the hall is made once).
    pub async fn showtime_at(&self, starts_at: chrono::DateTime<Utc>) -> ShowtimeId {
        self.showtime_selling(starts_at, None, None).await
    }

    /// The same, on sale from `opens` (none: at once) until `closes` (none: the start).
    pub async fn showtime_selling(
        &self,
        starts_at: chrono::DateTime<Utc>,
        opens: Option<chrono::DateTime<Utc>>,
        closes: Option<chrono::DateTime<Utc>>,
    ) -> ShowtimeId {
        let hall = match self.store.import_hall(&demo_halls()[1]).await.unwrap() {
            Some(hall) => hall,
            None => self.hall_id("Hall 2 (Grand)").await,
        };
        self.store
            .schedule_showtime(&app::domain::NewShowtime {
                sales_open_at: opens,
                sales_close_at: closes,
                ..app::domain::NewShowtime::on_sale(hall, "Test Film", starts_at)
            })
            .await
            .unwrap()
    }

    async fn hall_id(&self, name: &str) -> i64 {
        match self.backend {
            Backend::Postgres => sqlx::query_scalar("select id from hall where name = $1")
                .bind(name)
                .fetch_one(self.pg.as_ref().unwrap())
                .await
                .unwrap(),
            Backend::Sqlite => sqlx::query_scalar("select id from hall where name = ?1")
                .bind(name)
                .fetch_one(self.sqlite.as_ref().unwrap())
                .await
                .unwrap(),
        }
    }

    /// Frees `seat` (as a cancel or the sweeper would) in a transaction that stays open until
    /// the returned handle commits it: what a hold waiting for that row meets.
    pub async fn release_in_open_transaction(&self, showtime: ShowtimeId, seat: &str) -> OpenTx {
        let sql = "update show_seat
                      set status = 'AVAILABLE', hold_id = null, customer_id = null,
                          hold_expires_at = null, version = version + 1
                    where showtime_id = $1 and seat_code = $2 and status = 'HELD'";
        match self.backend {
            Backend::Postgres => {
                let mut tx = self.pg.as_ref().unwrap().begin().await.unwrap();
                let n = sqlx::query(sql)
                    .bind(showtime.get())
                    .bind(seat)
                    .execute(&mut *tx)
                    .await
                    .unwrap()
                    .rows_affected();
                assert_eq!(n, 1, "{seat} was held");
                OpenTx::Pg(tx)
            }
            Backend::Sqlite => {
                let mut tx = self
                    .sqlite
                    .as_ref()
                    .unwrap()
                    .begin_with("BEGIN IMMEDIATE")
                    .await
                    .unwrap();
                let n = sqlx::query(&sql.replace('$', "?"))
                    .bind(showtime.get())
                    .bind(seat)
                    .execute(&mut *tx)
                    .await
                    .unwrap()
                    .rows_affected();
                assert_eq!(n, 1, "{seat} was held");
                OpenTx::Sqlite(tx)
            }
        }
    }

    /// Waits until some statement of this database waits for a row lock held by another
    /// transaction (PostgreSQL); on SQLite, whose writers wait inside the driver, a moment.
    pub async fn until_a_statement_waits_for_a_lock(&self) {
        let Some(pool) = self.pg.as_ref() else {
            tokio::time::sleep(Duration::from_millis(300)).await;
            return;
        };
        let waiting = eventually(
            Duration::from_secs(10),
            || async {
                sqlx::query_scalar::<_, i64>(
                    "select count(*) from pg_stat_activity
                      where datname = current_database() and wait_event_type = 'Lock'",
                )
                .fetch_one(pool)
                .await
                .unwrap()
            },
            |waiting| *waiting > 0,
        )
        .await;
        assert!(waiting > 0, "no statement started waiting for the lock");
    }

    /// The hold ids recorded for a showtime (`seat_hold`).
    pub async fn hold_ids(&self, showtime: ShowtimeId) -> Vec<Uuid> {
        match self.backend {
            Backend::Postgres => {
                sqlx::query_scalar("select hold_id from seat_hold where showtime_id = $1")
                    .bind(showtime.get())
                    .fetch_all(self.pg.as_ref().unwrap())
                    .await
                    .unwrap()
            }
            Backend::Sqlite => {
                sqlx::query_scalar("select hold_id from seat_hold where showtime_id = ?1")
                    .bind(showtime.get())
                    .fetch_all(self.sqlite.as_ref().unwrap())
                    .await
                    .unwrap()
            }
        }
    }

    /// The PostgreSQL inspection pool (PostgreSQL-only tests).
    pub fn pg_pool(&self) -> &PgPool {
        self.pg.as_ref().expect("a PostgreSQL test database")
    }

    /// The types of the outbox events about `booking`, oldest first.
    pub async fn outbox_types(&self, booking: Uuid) -> Vec<String> {
        let sql = "select event_type from outbox where aggregate_id = $1 order by id";
        match self.backend {
            Backend::Postgres => sqlx::query_scalar(sql)
                .bind(booking)
                .fetch_all(self.pg.as_ref().unwrap())
                .await
                .unwrap(),
            Backend::Sqlite => sqlx::query_scalar(sql)
                .bind(booking)
                .fetch_all(self.sqlite.as_ref().unwrap())
                .await
                .unwrap(),
        }
    }

    /// Raw stored `(status, hold_id)` of every seat, without lazy expiry applied.
    pub async fn stored(&self, showtime: ShowtimeId) -> BTreeMap<String, (String, Option<Uuid>)> {
        let rows: Vec<(String, String, Option<Uuid>)> = match self.backend {
            Backend::Postgres => sqlx::query_as(
                "select seat_code, status, hold_id from show_seat where showtime_id = $1",
            )
            .bind(showtime.get())
            .fetch_all(self.pg.as_ref().unwrap())
            .await
            .unwrap(),
            Backend::Sqlite => sqlx::query_as(
                "select seat_code, status, hold_id from show_seat where showtime_id = ?1",
            )
            .bind(showtime.get())
            .fetch_all(self.sqlite.as_ref().unwrap())
            .await
            .unwrap(),
        };
        rows.into_iter().map(|(c, s, h)| (c, (s, h))).collect()
    }

    /// A deliberately wrong hold (read, then write without re-checking), for the control tests:
    /// it proves the concurrency tests would catch an oversell. Returns whether it "succeeded".
    /// A hold as a store trusting a read would make it: a read of the seats, then a blind
    /// write. `read_together` is waited on between the two by every racer, so that all of them
    /// have read before any writes (the window a real request has, made certain).
    pub async fn read_then_write_hold(
        &self,
        showtime: ShowtimeId,
        seats: &[&str],
        hold: Uuid,
        customer: Uuid,
        read_together: &tokio::sync::Barrier,
    ) -> bool {
        let seats: Vec<String> = seats.iter().map(|s| s.to_string()).collect();
        let free: i64 = match self.backend {
            Backend::Postgres => sqlx::query_scalar(
                "select count(*) from show_seat where showtime_id = $1 and seat_code = any($2) and status = 'AVAILABLE'",
            )
            .bind(showtime.get())
            .bind(&seats)
            .fetch_one(self.pg.as_ref().unwrap())
            .await
            .unwrap(),
            Backend::Sqlite => sqlx::query_scalar(
                "select count(*) from show_seat where showtime_id = ?1 and seat_code in (select value from json_each(?2)) and status = 'AVAILABLE'",
            )
            .bind(showtime.get())
            .bind(serde_json::to_string(&seats).unwrap())
            .fetch_one(self.sqlite.as_ref().unwrap())
            .await
            .unwrap(),
        };
        read_together.wait().await;
        if free as usize != seats.len() {
            return false;
        }
        let far = Utc::now() + chrono::Duration::hours(1);
        match self.backend {
            Backend::Postgres => sqlx::query(
                "update show_seat set status = 'HELD', hold_id = $3, customer_id = $4, hold_expires_at = $5
                  where showtime_id = $1 and seat_code = any($2)",
            )
            .bind(showtime.get())
            .bind(&seats)
            .bind(hold)
            .bind(customer)
            .bind(far)
            .execute(self.pg.as_ref().unwrap())
            .await
            .unwrap(),
            Backend::Sqlite => {
                sqlx::query(
                    "update show_seat set status = 'HELD', hold_id = ?3, customer_id = ?4, hold_expires_at = ?5
                      where showtime_id = ?1 and seat_code in (select value from json_each(?2))",
                )
                .bind(showtime.get())
                .bind(serde_json::to_string(&seats).unwrap())
                .bind(hold)
                .bind(customer)
                .bind(far.timestamp_millis())
                .execute(self.sqlite.as_ref().unwrap())
                .await
                .unwrap();
                return true;
            }
        };
        true
    }

    pub async fn drop_database(self) {
        if let Some(pool) = self.pg {
            pool.close().await;
            let name = self.url.rsplit('/').next().unwrap().to_string();
            drop(self.store);
            if let Ok(admin) = PgPool::connect(&pg_admin_url()).await {
                let _ = sqlx::query(&format!("drop database if exists {name} with (force)"))
                    .execute(&admin)
                    .await;
            }
        } else if let Some(path) = self.url.strip_prefix("sqlite://") {
            for suffix in ["", "-wal", "-shm"] {
                let _ = std::fs::remove_file(format!("{path}{suffix}"));
            }
        }
    }
}

/// Asks `probe` every 50 ms until `done` accepts its answer or `within` has passed; the last
/// answer either way (the caller asserts on it, so a timeout reads as a plain failed assertion).
pub async fn eventually<T, Fut>(
    within: Duration,
    mut probe: impl FnMut() -> Fut,
    done: impl Fn(&T) -> bool,
) -> T
where
    Fut: std::future::Future<Output = T>,
{
    let deadline = std::time::Instant::now() + within;
    loop {
        let answer = probe().await;
        if done(&answer) || std::time::Instant::now() >= deadline {
            return answer;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A transaction a test left open on purpose.
pub enum OpenTx {
    Pg(sqlx::Transaction<'static, sqlx::Postgres>),
    Sqlite(sqlx::Transaction<'static, sqlx::Sqlite>),
}

impl OpenTx {
    pub async fn commit(self) {
        match self {
            Self::Pg(tx) => tx.commit().await.unwrap(),
            Self::Sqlite(tx) => tx.commit().await.unwrap(),
        }
    }
}

/// Most tests leave their database behind when they end (it is dropped only where a test says
/// so). The first test database a test process makes drops those more than three hours old:
/// no test runs that long, so none in use by a run going on at the same time.
async fn sweep_old_test_databases(admin: &PgPool) {
    static SWEPT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if SWEPT.swap(true, std::sync::atomic::Ordering::SeqCst) {
        return;
    }
    let cutoff = Utc::now().timestamp() - 3 * 3600;
    let names: Vec<String> = sqlx::query_scalar(
        "select datname::text from pg_database where datname like 'seats\\_test\\_%'",
    )
    .fetch_all(admin)
    .await
    .unwrap_or_default();
    for name in names {
        let created = name
            .strip_prefix("seats_test_")
            .and_then(|rest| rest.split_once('_'))
            .and_then(|(secs, _)| secs.parse::<i64>().ok());
        if created.is_some_and(|t| t < cutoff) {
            let _ = sqlx::query(&format!("drop database if exists {name} with (force)"))
                .execute(admin)
                .await;
        }
    }
}

/// Replaces the database name at the end of a PostgreSQL URL.
pub fn with_database(url: &str, name: &str) -> String {
    let (base, query) = url
        .split_once('?')
        .map_or((url, None), |(b, q)| (b, Some(q)));
    let base = base.rsplit_once('/').map_or(base, |(b, _)| b);
    match query {
        Some(q) => format!("{base}/{name}?{q}"),
        None => format!("{base}/{name}"),
    }
}

/// A fixed start for manual clocks.
pub fn t0() -> chrono::DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 29, 12, 0, 0).unwrap()
}

/// An engine over the test database, the lone-seat rule off: tests of other parts hold whatever
/// seats they need (the seat rules are tested with the rule on, in `seat_rules`).
pub fn engine(db: &TestDb, clock: Clock, ttl: Duration) -> Arc<Engine> {
    Arc::new(Engine::new(db.store.clone(), clock, ttl).with_seat_rules(NO_SEAT_RULES))
}

/// The lone-seat rule off.
pub const NO_SEAT_RULES: app::domain::seat_rules::Rules = app::domain::seat_rules::Rules {
    no_lone_seats: false,
    exempt_edges: false,
};

/// A showtime id the test knows to be valid (a row id, or one it made up).
pub fn showtime_id(id: i64) -> ShowtimeId {
    ShowtimeId::try_from(id).expect("a showtime id in range")
}

pub fn sel(codes: &[&str]) -> SeatSelection {
    SeatSelection::parse(codes).unwrap()
}

pub fn code(c: &str) -> SeatCode {
    SeatCode::parse(c).unwrap()
}

/// Checks that no seat was granted to two successful holds. `wins` are `(hold id, seats)`.
pub fn exclusive(wins: &[(Uuid, Vec<String>)]) -> Result<(), String> {
    let mut owner: BTreeMap<&str, Uuid> = BTreeMap::new();
    for (hold, seats) in wins {
        for seat in seats {
            if let Some(prev) = owner.insert(seat, *hold) {
                return Err(format!("seat {seat} granted to holds {prev} and {hold}"));
            }
        }
    }
    Ok(())
}

/// A server started on a random port over a test database, with the demo data.
pub struct TestApp {
    pub base: String,
    pub engine: Arc<Engine>,
}

impl TestApp {
    /// Without Redis and without the hold rate limit (tests of the limit turn it on).
    pub async fn spawn(db: &TestDb, hold_ttl_seconds: &str) -> Self {
        Self::spawn_with(db, hold_ttl_seconds, &[]).await
    }

    /// With more configuration, e.g. `REDIS_URL` or `HOLD_RATE_PER_MINUTE`.
    pub async fn spawn_with(db: &TestDb, hold_ttl_seconds: &str, extra: &[(&str, &str)]) -> Self {
        let data_dir = std::env::temp_dir().join(format!("seats-app-{}", Uuid::new_v4().simple()));
        let mut vars: std::collections::HashMap<&str, String> = [
            ("DATABASE_URL", db.url.clone()),
            ("DATA_DIR", data_dir.display().to_string()),
            ("HOLD_TTL_SECONDS", hold_ttl_seconds.to_string()),
            ("SWEEP_INTERVAL_SECONDS", "1".to_string()),
            ("HOLD_RATE_PER_MINUTE", "0".to_string()),
            ("HOLD_RATE_PER_ADDRESS", "0".to_string()),
            ("HOLDS_PER_CUSTOMER", "0".to_string()),
            // Tests of other parts hold whatever seats they need; `seat_rules` turns it on.
            ("LONE_SEAT_RULE", "off".to_string()),
            ("HELD_SEATS_PER_ADDRESS", "0".to_string()),
            // Tests of other parts cancel and hold the same seats again; `gate` turns it on.
            ("HOLD_COOLDOWN_SECONDS", "0".to_string()),
            ("CHECKOUT_RATE_PER_MINUTE", "0".to_string()),
            ("CHECKOUT_RATE_PER_ADDRESS", "0".to_string()),
            ("PAYMENT_WEBHOOK_SECRET", SANDBOX_SECRET.to_string()),
            ("OPERATOR_PASSWORD", OPERATOR_PASSWORD.to_string()),
            ("SESSION_SECRET", SESSION_SECRET.to_string()),
            ("TICKET_KEYS", TICKET_KEYS.to_string()),
        ]
        .into_iter()
        .collect();
        vars.extend(extra.iter().map(|(k, v)| (*k, v.to_string())));
        let config = server::config::Config::from_lookup(|k| vars.get(k).cloned()).unwrap();
        let mut options = leptos::config::LeptosOptions::builder()
            .output_name("seats")
            .site_addr("127.0.0.1:0".parse::<std::net::SocketAddr>().unwrap())
            .build();
        if let Some(root) = vars.get("LEPTOS_SITE_ROOT") {
            options.site_root = root.as_str().into();
        }
        let app = server::startup::Application::build(config, Clock::Database, options)
            .await
            .unwrap();
        let base = format!("http://{}", app.local_addr());
        let engine = app.engine.clone();
        tokio::spawn(app.serve());
        Self { base, engine }
    }

    /// A client with its own cookie jar: one customer.
    pub fn customer(&self) -> reqwest::Client {
        reqwest::Client::builder()
            .cookie_store(true)
            .build()
            .unwrap()
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }
}

/// A WebSocket client of the live seat map.
pub type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Connects a live-map viewer of `showtime` to the server at `base` (`http://host:port`).
pub async fn viewer(base: &str, showtime: i64) -> Socket {
    let url = format!(
        "{}/showtimes/{showtime}/live",
        base.replace("http://", "ws://")
    );
    tokio_tungstenite::connect_async(url)
        .await
        .expect("websocket upgrade")
        .0
}

/// The id of the first showtime (in time order) on sale that the server at `base` lists and
/// that starts more than an hour from now (sales close at the start, and payment sessions end
/// two minutes before it: a showtime about to start would cut the tests' holds short).
pub async fn first_showtime(base: &str) -> i64 {
    let list: Vec<serde_json::Value> = reqwest::get(format!("{base}/showtimes"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let later = Utc::now() + chrono::Duration::hours(1);
    list.iter()
        .find(|s| {
            s["salesOpen"] == true
                && s["startsAt"]
                    .as_str()
                    .and_then(|t| t.parse::<chrono::DateTime<Utc>>().ok())
                    .is_some_and(|t| t > later)
        })
        .expect("a showtime on sale, more than an hour ahead")["id"]
        .as_i64()
        .unwrap()
}

/// A free TCP port on 127.0.0.1.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A child process that is killed when dropped.
pub struct Running(pub std::process::Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Redis for tests: `REDIS_URL` (the test command starts a throwaway one), else the local one.
pub fn redis_url() -> String {
    std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into())
}

/// Starts the `server` binary (a real second process) and waits until `/health` answers.
/// `extra` adds or overrides environment variables.
pub async fn server_process(
    database_url: &str,
    redis_url: &str,
    hold_ttl: &str,
    extra: &[(&str, &str)],
) -> (Running, String) {
    use std::process::{Command, Stdio};
    let port = free_port();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap();
    let data = std::env::temp_dir().join(format!("seats-proc-{port}"));
    let mut command = Command::new(env!("CARGO_BIN_EXE_server"));
    command
        .current_dir(root)
        .env("DATABASE_URL", database_url)
        .env("REDIS_URL", redis_url)
        .env("LEPTOS_SITE_ADDR", format!("127.0.0.1:{port}"))
        .env("DATA_DIR", data)
        .env("HOLD_TTL_SECONDS", hold_ttl)
        .env("SWEEP_INTERVAL_SECONDS", "1")
        .env("LONE_SEAT_RULE", "off")
        .env("HOLD_RATE_PER_MINUTE", "0")
        .env("HOLD_RATE_PER_ADDRESS", "0")
        .env("HOLDS_PER_CUSTOMER", "0")
        .env("HELD_SEATS_PER_ADDRESS", "0")
        .env("PAYMENT_WEBHOOK_SECRET", SANDBOX_SECRET)
        .env("SESSION_SECRET", SESSION_SECRET)
        .env("TICKET_KEYS", TICKET_KEYS)
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null());
    for (k, v) in extra {
        command.env(k, v);
    }
    let running = Running(command.spawn().expect("start the server binary"));
    let base = format!("http://127.0.0.1:{port}");
    let healthy = eventually(
        Duration::from_secs(30),
        || async {
            reqwest::get(format!("{base}/health"))
                .await
                .is_ok_and(|r| r.status() == reqwest::StatusCode::OK)
        },
        |healthy| *healthy,
    )
    .await;
    assert!(healthy, "server on {port} did not become healthy");
    (running, base)
}

/// A Redis server of the test's own on `port`, so that it can be stopped and started again.
pub fn own_redis(port: u16) -> Running {
    let child = std::process::Command::new("redis-server")
        .args([
            "--port",
            &port.to_string(),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
        ])
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("redis-server on PATH (scripts/test.sh installs it)");
    wait_for_redis(port);
    Running(child)
}

fn wait_for_redis(port: u16) {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            std::time::Instant::now() < deadline,
            "redis-server on {port} did not start"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A 3-master Redis Cluster of the test's own on local ports (`redis-server --cluster-enabled
/// yes` three times, then `redis-cli --cluster create`); stopped when dropped.
pub struct OwnCluster {
    pub ports: Vec<u16>,
    _nodes: Vec<Running>,
    dir: std::path::PathBuf,
}

impl OwnCluster {
    pub fn start() -> Self {
        use std::process::{Command, Stdio};
        let dir = std::env::temp_dir().join(format!("seats-cluster-{}", Uuid::new_v4().simple()));
        std::fs::create_dir_all(&dir).unwrap();
        // Each node also needs its port + 10000 free for the cluster bus.
        let mut ports: Vec<u16> = Vec::new();
        while ports.len() < 3 {
            let port = 20000 + rand_port_offset();
            let free = |p: u16| std::net::TcpListener::bind(("127.0.0.1", p)).is_ok();
            if !ports.contains(&port) && free(port) && free(port + 10000) {
                ports.push(port);
            }
        }
        let nodes = ports
            .iter()
            .map(|port| {
                let child = Command::new("redis-server")
                    .args([
                        "--port",
                        &port.to_string(),
                        "--bind",
                        "127.0.0.1",
                        "--cluster-enabled",
                        "yes",
                        "--cluster-config-file",
                        &format!("nodes-{port}.conf"),
                        "--dir",
                        dir.to_str().unwrap(),
                        "--save",
                        "",
                        "--appendonly",
                        "no",
                    ])
                    .stdout(Stdio::null())
                    .spawn()
                    .expect("redis-server on PATH");
                wait_for_redis(*port);
                Running(child)
            })
            .collect();
        let addresses: Vec<String> = ports.iter().map(|p| format!("127.0.0.1:{p}")).collect();
        let created = Command::new("redis-cli")
            .args(["--cluster", "create"])
            .args(&addresses)
            .args(["--cluster-replicas", "0", "--cluster-yes"])
            .stdout(Stdio::null())
            .status()
            .expect("redis-cli on PATH");
        assert!(created.success(), "redis-cli --cluster create failed");
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        for port in &ports {
            loop {
                let info = Command::new("redis-cli")
                    .args(["-p", &port.to_string(), "cluster", "info"])
                    .output()
                    .unwrap();
                if String::from_utf8_lossy(&info.stdout).contains("cluster_state:ok") {
                    break;
                }
                assert!(
                    std::time::Instant::now() < deadline,
                    "cluster never became ok"
                );
                std::thread::sleep(Duration::from_millis(100));
            }
        }
        Self {
            ports,
            _nodes: nodes,
            dir,
        }
    }

    /// `REDIS_URL` for the cluster: every node, comma-separated.
    pub fn url(&self) -> String {
        self.ports
            .iter()
            .map(|p| format!("redis://127.0.0.1:{p}"))
            .collect::<Vec<_>>()
            .join(",")
    }
}

impl Drop for OwnCluster {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn rand_port_offset() -> u16 {
    (Uuid::new_v4().as_u128() % 9000) as u16
}

/// The password of the staff account `operator` that test servers make at start.
pub const OPERATOR_PASSWORD: &str = "the tests' operator password";

/// A client of its own (a cookie jar) signed in as staff member `name`.
pub async fn signed_in(app: &TestApp, name: &str, password: &str) -> reqwest::Client {
    let client = app.customer();
    let r = client
        .post(app.url("/api/staff_sign_in"))
        .json(&serde_json::json!({ "name": name, "password": password }))
        .send()
        .await
        .unwrap();
    let status = r.status();
    assert_eq!(status, 200, "{name} signs in: {}", r.text().await.unwrap());
    client
}

/// A client signed in as the operator.
pub async fn operator(app: &TestApp) -> reqwest::Client {
    signed_in(app, "operator", OPERATOR_PASSWORD).await
}

/// The session secret of test servers (processes that share a database share it, as in
/// production).
pub const SESSION_SECRET: &str = "a shared session secret for every test server";

/// The ticket keys of test servers.
pub const TICKET_KEYS: &str = "t1:the ticket signing key of the test servers (32+ characters)";

/// The webhook secret the test sandboxes and servers share.
pub const SANDBOX_SECRET: &str = "the tests' payment webhook secret";

/// The payment-gateway sandbox as a real process on a free port.
pub struct Sandbox {
    _process: Running,
    pub base: String,
    pub gateway: server::payments::gateway::HttpGateway,
}

pub async fn sandbox() -> Sandbox {
    let port = free_port();
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_payment-sandbox"))
        .env("SANDBOX_ADDR", format!("127.0.0.1:{port}"))
        .env("PAYMENT_WEBHOOK_SECRET", SANDBOX_SECRET)
        .env("RUST_LOG", "error")
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("start payment-sandbox");
    let process = Running(child);
    let base = format!("http://127.0.0.1:{port}");
    let up = eventually(
        Duration::from_secs(20),
        || async { reqwest::get(format!("{base}/health")).await.is_ok() },
        |up| *up,
    )
    .await;
    assert!(up, "sandbox did not start");
    Sandbox {
        _process: process,
        gateway: server::payments::gateway::HttpGateway::new(&base),
        base,
    }
}

/// The body of a GET to `url` as text (any status).
pub async fn get_text(url: impl reqwest::IntoUrl) -> String {
    reqwest::get(url).await.unwrap().text().await.unwrap()
}

/// What a page said, for an assertion's message: its `<main>` without the markup, and the
/// streamed parts after it (out-of-order chunks and their scripts), each cut to 600 characters.
pub fn page_evidence(html: &str) -> String {
    let cut = |s: &str| s.chars().take(600).collect::<String>();
    let text = |s: &str| {
        let mut out = String::new();
        let mut tag = false;
        for c in s.chars() {
            match c {
                '<' => tag = true,
                '>' => {
                    tag = false;
                    out.push(' ');
                }
                c if !tag => out.push(c),
                _ => {}
            }
        }
        out.split_whitespace().collect::<Vec<_>>().join(" ")
    };
    let Some(start) = html.find("<main") else {
        return format!("no <main> in {} bytes: {}", html.len(), cut(html));
    };
    let end = html[start..]
        .find("</main>")
        .map_or(html.len(), |e| start + e);
    format!(
        "{} bytes; main: {}; after it: {}",
        html.len(),
        cut(&text(&html[start..end])),
        cut(&html[end..])
    )
}

/// The body of a GET to `url` read as JSON (any status).
pub async fn get_json<T: serde::de::DeserializeOwned>(url: impl reqwest::IntoUrl) -> T {
    reqwest::get(url).await.unwrap().json().await.unwrap()
}

/// Calls the server function `function` (`/api/{function}`) with a JSON body as `client`: the
/// status and the JSON answer (`Null` when there is none).
pub async fn post_fn(
    client: &reqwest::Client,
    app: &TestApp,
    function: &str,
    body: serde_json::Value,
) -> (reqwest::StatusCode, serde_json::Value) {
    let r = client
        .post(app.url(&format!("/api/{function}")))
        .json(&body)
        .send()
        .await
        .unwrap();
    (
        r.status(),
        r.json().await.unwrap_or(serde_json::Value::Null),
    )
}

/// Seat `code` of a seat map or live message (its `seats` array), as JSON.
pub fn seat<'a>(message: &'a serde_json::Value, code: &str) -> &'a serde_json::Value {
    message["seats"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["code"] == code)
        .unwrap_or_else(|| panic!("{code} in {message}"))
}

/// A real SMTP server in its own process (Debian's `python3-aiosmtpd`), keeping every message it
/// receives in a maildir.
pub struct SmtpSink {
    _process: Running,
    pub port: u16,
    dir: std::path::PathBuf,
}

impl SmtpSink {
    pub async fn start() -> Self {
        Self::start_on(free_port()).await
    }

    /// On `port` (to start it again where a server already points).
    pub async fn start_on(port: u16) -> Self {
        let dir = std::env::temp_dir().join(format!("seats-smtp-{}", Uuid::new_v4().simple()));
        let python =
            std::env::var("SMTP_SINK_PYTHON").unwrap_or_else(|_| "/usr/bin/python3".into());
        let child = std::process::Command::new(python)
            .args(["-m", "aiosmtpd", "-n", "-l"])
            .arg(format!("127.0.0.1:{port}"))
            .args(["-c", "aiosmtpd.handlers.Mailbox"])
            .arg(&dir)
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("start aiosmtpd (apt install python3-aiosmtpd)");
        let process = Running(child);
        let up = eventually(
            Duration::from_secs(15),
            || async {
                tokio::net::TcpStream::connect(("127.0.0.1", port))
                    .await
                    .is_ok()
            },
            |up| *up,
        )
        .await;
        assert!(up, "the SMTP server did not start on {port}");
        Self {
            _process: process,
            port,
            dir,
        }
    }

    pub fn url(&self) -> String {
        format!("smtp://127.0.0.1:{}", self.port)
    }

    /// Every message received so far, as sent.
    pub fn messages(&self) -> Vec<Vec<u8>> {
        let Ok(entries) = std::fs::read_dir(self.dir.join("new")) else {
            return Vec::new();
        };
        // In the order they arrived (maildir names do not sort so within a second).
        let mut files: Vec<_> = entries
            .filter_map(|e| e.ok())
            .map(|e| {
                let at = e.metadata().and_then(|m| m.modified()).ok();
                (at, e.path())
            })
            .collect();
        files.sort();
        let files = files.into_iter().map(|(_, path)| path);
        files
            .into_iter()
            .filter_map(|f| std::fs::read(f).ok())
            .collect()
    }

    /// Waits until `n` messages arrived (at most `within`); all of them.
    pub async fn received(&self, n: usize, within: Duration) -> Vec<Vec<u8>> {
        eventually(within, || async { self.messages() }, |m| m.len() >= n).await
    }
}

/// A staff sign-in of `name` by `client` (its cookies: a device it signed in on before, if any)
/// from `address` (the test servers that trust 127.0.0.1 as a proxy read it): when the server
/// asks a proof of work, it is solved and the sign-in sent again. The status, the error's kind,
/// and the bits of the proofs asked on the way.
pub async fn sign_in_solving(
    app: &TestApp,
    client: &reqwest::Client,
    name: &str,
    password: &str,
    address: &str,
) -> (reqwest::StatusCode, String, Vec<u8>) {
    let mut proof = serde_json::Value::Null;
    let mut asked = Vec::new();
    loop {
        let r = client
            .post(app.url("/api/staff_sign_in"))
            .header("x-forwarded-for", address)
            .json(&serde_json::json!({ "name": name, "password": password, "proof": proof }))
            .send()
            .await
            .unwrap();
        let status = r.status();
        let body: serde_json::Value = r.json().await.unwrap_or(serde_json::Value::Null);
        let kind = body["kind"].as_str().unwrap_or_default().to_string();
        if kind != "ProofRequired" || asked.len() >= 12 {
            return (status, kind, asked);
        }
        let challenge = body["detail"]["challenge"].as_str().unwrap().to_string();
        let bits = body["detail"]["bits"].as_u64().unwrap() as u8;
        asked.push(bits);
        let nonce = app::domain::QueueProof::search(&challenge, bits, 0, u64::MAX).unwrap();
        proof = serde_json::json!({ "challenge": challenge, "nonce": nonce });
    }
}
