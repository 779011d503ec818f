//! A fresh, migrated database per test on either backend, and raw reads of what is stored.

use super::*;

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
