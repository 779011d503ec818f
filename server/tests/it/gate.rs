//! Redis in front of the database: the seat gate, the per-customer rate limit and degradation,
//! against a Redis server and against a 3-master Redis Cluster, each started by the test on local
//! ports (the server is a real one on a random port; the database is PostgreSQL).

use crate::support::*;
use app::domain::SeatCode;
use rand::Rng;
use reqwest::StatusCode;
use serde_json::{json, Value};
use server::redis_link::{connect, Conn, RedisTarget};
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};
use uuid::Uuid;

#[derive(Clone, Copy, Debug)]
enum Kind {
    Node,
    Cluster,
}

/// A Redis of the test's own, and a connection to inspect it.
struct TestRedis {
    url: String,
    conn: Conn,
    _node: Option<Running>,
    _cluster: Option<OwnCluster>,
}

impl TestRedis {
    async fn start(kind: Kind) -> Self {
        let (url, node, cluster) = match kind {
            Kind::Node => {
                let port = free_port();
                let node = own_redis(port);
                (format!("redis://127.0.0.1:{port}"), Some(node), None)
            }
            Kind::Cluster => {
                let cluster = OwnCluster::start();
                (cluster.url(), None, Some(cluster))
            }
        };
        let target = RedisTarget::parse(&url, false).unwrap();
        let conn = connect(&target, Duration::from_secs(5)).await.unwrap();
        Self {
            url,
            conn,
            _node: node,
            _cluster: cluster,
        }
    }

    async fn get(&self, key: &str) -> Option<String> {
        redis::cmd("GET")
            .arg(key)
            .query_async(&mut self.conn.clone())
            .await
            .unwrap()
    }

    async fn pttl(&self, key: &str) -> i64 {
        redis::cmd("PTTL")
            .arg(key)
            .query_async(&mut self.conn.clone())
            .await
            .unwrap()
    }

    async fn set(&self, key: &str, value: &str) {
        redis::cmd("SET")
            .arg(key)
            .arg(value)
            .query_async::<()>(&mut self.conn.clone())
            .await
            .unwrap()
    }

    async fn del(&self, key: &str) {
        redis::cmd("DEL")
            .arg(key)
            .query_async::<()>(&mut self.conn.clone())
            .await
            .unwrap()
    }
}

/// Declares each `async fn name(kind: Kind)` as `node::name` and `cluster::name`.
macro_rules! on_node_and_cluster {
    ($($name:ident),* $(,)?) => {
        mod node {
            $(#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $name() { super::$name(super::Kind::Node).await }) *
        }
        mod cluster {
            $(#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $name() { super::$name(super::Kind::Cluster).await }) *
        }
    };
}

on_node_and_cluster!(
    a_held_seat_is_refused_by_the_gate_without_touching_the_database,
    a_gate_pass_that_loses_in_the_database_leaves_no_keys,
    keys_of_a_cancelled_or_expired_hold_are_gone,
    a_confirmed_booking_keeps_its_seats_filtered_until_after_the_show,
    the_sixth_attempt_in_a_minute_gets_429_with_retry_after,
    two_server_processes_share_the_rate_limit,
);

fn key(showtime: i64, seat: &str) -> String {
    format!("seat:{{{showtime}}}:{seat}")
}

async fn hold(
    client: &reqwest::Client,
    base: &str,
    id: i64,
    seats: &[&str],
) -> (StatusCode, Value) {
    let r = client
        .post(format!("{base}/showtimes/{id}/holds"))
        .json(&json!({ "seats": seats }))
        .send()
        .await
        .unwrap();
    let status = r.status();
    (status, r.json().await.unwrap_or(Value::Null))
}

async fn a_held_seat_is_refused_by_the_gate_without_touching_the_database(kind: Kind) {
    let redis = TestRedis::start(kind).await;
    let db = TestDb::new(Backend::Postgres).await;
    let app = TestApp::spawn_with(&db, "600", &[("REDIS_URL", &redis.url)]).await;
    let id = first_showtime(&app.base).await;
    let (alice, bob) = (app.customer(), app.customer());

    let (status, held) = hold(&alice, &app.base, id, &["F5"]).await;
    assert_eq!(status, StatusCode::CREATED);
    assert_eq!(
        redis.get(&key(id, "F5")).await.as_deref(),
        held["holdId"].as_str(),
        "the gate key carries the hold id"
    );
    let ttl = redis.pttl(&key(id, "F5")).await;
    assert!(
        (590_000..=600_000).contains(&ttl),
        "the key lives as long as the hold: {ttl} ms"
    );

    let metrics = app.engine.metrics();
    let statements = metrics.db_hold_statements.load(Relaxed);
    let (status, body) = hold(&bob, &app.base, id, &["F5", "F6"]).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(body["seats"], json!(["F5"]));
    assert_eq!(body["code"], "SEATS_UNAVAILABLE");
    assert_eq!(
        metrics.db_hold_statements.load(Relaxed),
        statements,
        "no hold statement reached the database"
    );
    assert_eq!(metrics.gate_rejected.load(Relaxed), 1);
    assert_eq!(
        redis.get(&key(id, "F6")).await,
        None,
        "a refused attempt writes no key"
    );

    // Proof that the refusal came from Redis alone: a key planted for a seat the database has
    // free still turns the hold away, and the seat stays untouched in the database.
    redis.set(&key(id, "G1"), "planted").await;
    let (status, _) = hold(&bob, &app.base, id, &["G1"]).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(db.stored(showtime_id(id)).await["G1"].0, "AVAILABLE");
    assert_eq!(metrics.db_hold_statements.load(Relaxed), statements);
}

async fn a_gate_pass_that_loses_in_the_database_leaves_no_keys(kind: Kind) {
    let redis = TestRedis::start(kind).await;
    let db = TestDb::new(Backend::Postgres).await;
    let app = TestApp::spawn_with(&db, "600", &[("REDIS_URL", &redis.url)]).await;
    let id = first_showtime(&app.base).await;
    let (alice, bob) = (app.customer(), app.customer());

    let (status, held) = hold(&alice, &app.base, id, &["F5"]).await;
    assert_eq!(status, StatusCode::CREATED);
    // The key is lost (as after a Redis restart): the gate lets Bob through, the database
    // refuses him, and nothing of his attempt stays in Redis.
    redis.del(&key(id, "F5")).await;
    let statements = app.engine.metrics().db_hold_statements.load(Relaxed);
    let (status, body) = hold(&bob, &app.base, id, &["F5", "F6"]).await;
    assert_eq!(status, StatusCode::CONFLICT, "the database still decides");
    assert_eq!(body["seats"], json!(["F5"]));
    assert_eq!(
        app.engine.metrics().db_hold_statements.load(Relaxed),
        statements + 1
    );
    assert_eq!(redis.get(&key(id, "F5")).await, None);
    assert_eq!(redis.get(&key(id, "F6")).await, None);
    let stored = db.stored(showtime_id(id)).await;
    assert_eq!(stored["F5"].0, "HELD");
    assert_eq!(
        stored["F5"].1.map(|h| h.to_string()).as_deref(),
        held["holdId"].as_str(),
        "Alice keeps her seat"
    );
    assert_eq!(stored["F6"].0, "AVAILABLE");

    // Compare-and-delete: a key that carries another hold's id is left alone.
    redis.set(&key(id, "F7"), "another-hold").await;
    let attempt = app::domain::HoldId::new(showtime_id(id), rand::random());
    app.engine
        .gate()
        .release(showtime_id(id), &[SeatCode::parse("F7").unwrap()], attempt)
        .await;
    assert_eq!(
        redis.get(&key(id, "F7")).await.as_deref(),
        Some("another-hold")
    );
}

async fn keys_of_a_cancelled_or_expired_hold_are_gone(kind: Kind) {
    let redis = TestRedis::start(kind).await;
    let db = TestDb::new(Backend::Postgres).await;
    let app = TestApp::spawn_with(&db, "1", &[("REDIS_URL", &redis.url)]).await;
    let id = first_showtime(&app.base).await;
    let (alice, bob) = (app.customer(), app.customer());

    let (status, held) = hold(&alice, &app.base, id, &["F5", "F6"]).await;
    assert_eq!(status, StatusCode::CREATED);
    assert!(redis.get(&key(id, "F5")).await.is_some());
    let r = alice
        .delete(app.url(&format!("/holds/{}", held["holdId"].as_str().unwrap())))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    assert_eq!(redis.get(&key(id, "F5")).await, None, "cancelled");
    assert_eq!(redis.get(&key(id, "F6")).await, None, "cancelled");

    let (status, _) = hold(&alice, &app.base, id, &["F7"]).await;
    assert_eq!(status, StatusCode::CREATED);
    assert!(redis.get(&key(id, "F7")).await.is_some());
    tokio::time::sleep(Duration::from_millis(1300)).await;
    assert_eq!(
        redis.get(&key(id, "F7")).await,
        None,
        "expired with the hold"
    );
    let (status, _) = hold(&bob, &app.base, id, &["F7"]).await;
    assert_eq!(status, StatusCode::CREATED, "the seat is Bob's to take");
}

/// Sold seats stay filtered by the gate until an hour after the show, then their keys expire
/// (they would pile up in Redis for ever otherwise).
async fn a_confirmed_booking_keeps_its_seats_filtered_until_after_the_show(kind: Kind) {
    let redis = TestRedis::start(kind).await;
    let db = TestDb::new(Backend::Postgres).await;
    let app = TestApp::spawn_with(&db, "600", &[("REDIS_URL", &redis.url)]).await;
    let id = first_showtime(&app.base).await;
    let (alice, bob) = (app.customer(), app.customer());
    let (status, held) = hold(&alice, &app.base, id, &["H3", "H4"]).await;
    assert_eq!(status, StatusCode::CREATED);
    let hold_id = app::domain::HoldId::parse(held["holdId"].as_str().unwrap()).unwrap();
    let booking = app::domain::BookingId(Uuid::new_v4());
    app.engine.confirm(hold_id, booking).await.unwrap();
    let list: Vec<serde_json::Value> = get_json(format!("{}/showtimes", app.base)).await;
    let starts_at: chrono::DateTime<chrono::Utc> = list.iter().find(|s| s["id"] == id).unwrap()
        ["startsAt"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    for seat in ["H3", "H4"] {
        assert_eq!(
            redis.get(&key(id, seat)).await,
            Some(format!("booked:{}", booking.0))
        );
        let ttl = redis.pttl(&key(id, seat)).await;
        let until =
            (starts_at + chrono::Duration::hours(1) - chrono::Utc::now()).num_milliseconds();
        assert!(
            ttl > 0 && (ttl - until).abs() < 10_000,
            "a sold seat's key lapses an hour after the show: {ttl} ms left, expected about {until}"
        );
    }
    let statements = app.engine.metrics().db_hold_statements.load(Relaxed);
    assert_eq!(
        hold(&bob, &app.base, id, &["H4"]).await.0,
        StatusCode::CONFLICT
    );
    assert_eq!(
        app.engine.metrics().db_hold_statements.load(Relaxed),
        statements
    );
}

async fn the_sixth_attempt_in_a_minute_gets_429_with_retry_after(kind: Kind) {
    let redis = TestRedis::start(kind).await;
    let db = TestDb::new(Backend::Postgres).await;
    let app = TestApp::spawn_with(
        &db,
        "600",
        &[("REDIS_URL", &redis.url), ("HOLD_RATE_PER_MINUTE", "5")],
    )
    .await;
    let id = first_showtime(&app.base).await;
    let (alice, bob) = (app.customer(), app.customer());
    for seat in ["A1", "A2", "A3", "A4", "A5"] {
        assert_eq!(
            hold(&alice, &app.base, id, &[seat]).await.0,
            StatusCode::CREATED
        );
    }
    let r = alice
        .post(app.url(&format!("/showtimes/{id}/holds")))
        .json(&json!({ "seats": ["A6"] }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::TOO_MANY_REQUESTS);
    let retry_after: u64 = r.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=12).contains(&retry_after), "Retry-After {retry_after}");
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["code"], "RATE_LIMITED");
    assert_eq!(body["retryAfter"], json!(retry_after));
    assert_eq!(db.stored(showtime_id(id)).await["A6"].0, "AVAILABLE");
    assert_eq!(app.engine.metrics().rate_limited.load(Relaxed), 1);
    // The limit is per customer, and it is kept in Redis.
    assert_eq!(
        hold(&bob, &app.base, id, &["A6"]).await.0,
        StatusCode::CREATED
    );
    assert_eq!(
        app.engine.gate().link().unwrap().bypassed(),
        0,
        "Redis answered every call"
    );
}

async fn two_server_processes_share_the_rate_limit(kind: Kind) {
    let redis = TestRedis::start(kind).await;
    let db = TestDb::new(Backend::Postgres).await;
    let limit = [("HOLD_RATE_PER_MINUTE", "5")];
    let (_a, a) = server_process(&db.url, &redis.url, "600", &limit).await;
    let (_b, b) = server_process(&db.url, &redis.url, "600", &limit).await;
    let id = first_showtime(&a).await;
    // One customer (the session cookie is valid on both: they share SESSION_SECRET).
    let alice = reqwest::Client::builder()
        .cookie_store(true)
        .build()
        .unwrap();
    for (base, seat) in [(&a, "B1"), (&b, "B2"), (&a, "B3"), (&b, "B4"), (&a, "B5")] {
        assert_eq!(hold(&alice, base, id, &[seat]).await.0, StatusCode::CREATED);
    }
    assert_eq!(
        hold(&alice, &b, id, &["B6"]).await.0,
        StatusCode::TOO_MANY_REQUESTS,
        "B counts A's attempts too"
    );
    assert_eq!(
        hold(&alice, &a, id, &["B6"]).await.0,
        StatusCode::TOO_MANY_REQUESTS
    );
}

/// A server over a fresh PostgreSQL database whose Redis is the test's own (so that it can be
/// stopped): the Redis process, its port, its URL, the database and the server.
struct OwnRedisApp {
    redis: Running,
    port: u16,
    url: String,
    db: TestDb,
    app: TestApp,
}

/// A connection to look into the Redis at `url`.
async fn inspector(url: &str) -> Conn {
    connect(
        &RedisTarget::parse(url, false).unwrap(),
        Duration::from_secs(5),
    )
    .await
    .unwrap()
}

async fn own_redis_app(extra: &[(&str, &str)]) -> OwnRedisApp {
    let port = free_port();
    let redis = own_redis(port);
    let url = format!("redis://127.0.0.1:{port}");
    let db = TestDb::new(Backend::Postgres).await;
    let mut vars = vec![("REDIS_URL", url.as_str())];
    vars.extend_from_slice(extra);
    let app = TestApp::spawn_with(&db, "600", &vars).await;
    OwnRedisApp {
        redis,
        port,
        url,
        db,
        app,
    }
}

/// Redis goes away in the middle of a crowd holding seats, and comes back: every answer is a 201
/// or a 409, no seat goes to two holds, holds keep being granted while Redis is down, and the
/// gate filters again once it is back.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn redis_stopped_during_concurrent_holds_no_double_sale_and_the_gate_resumes() {
    let OwnRedisApp {
        redis,
        port,
        db,
        app,
        ..
    } = own_redis_app(&[("REDIS_TIMEOUT_MS", "100")]).await;
    let mut redis = Some(redis);
    let id = first_showtime(&app.base).await;
    let metrics = app.engine.metrics();

    // Three phases, each fought over its own rows of the 10 × 12 hall by 40 customers.
    let phase = |rows: &'static [char], seconds: f64| {
        let clients: Vec<Session> = (0..40).map(|_| app.customer()).collect();
        let base = app.base.clone();
        async move {
            let deadline = Instant::now() + Duration::from_secs_f64(seconds);
            let tasks = clients.into_iter().map(|client| {
                let base = base.clone();
                tokio::spawn(async move {
                    let mut results = Vec::new();
                    while Instant::now() < deadline {
                        let (row, n) = {
                            let mut rng = rand::rng();
                            (
                                rows[rng.random_range(0..rows.len())],
                                rng.random_range(1..12),
                            )
                        };
                        let seats = [format!("{row}{n}"), format!("{row}{}", n + 1)];
                        let r = client
                            .post(format!("{base}/showtimes/{id}/holds"))
                            .json(&json!({ "seats": seats }))
                            .send()
                            .await
                            .unwrap();
                        let status = r.status();
                        let body: Value = r.json().await.unwrap_or(Value::Null);
                        let hold = body["holdId"]
                            .as_str()
                            .and_then(|h| Uuid::parse_str(h).ok());
                        results.push((status, hold, seats.to_vec()));
                    }
                    results
                })
            });
            let mut all = Vec::new();
            for task in tasks {
                all.extend(task.await.unwrap());
            }
            all
        }
    };

    let up = phase(&['A', 'B', 'C'], 1.5).await;
    let bypassed_before = metrics.gate_bypassed.load(Relaxed);
    drop(redis.take()); // Redis goes away
    let down = phase(&['D', 'E', 'F'], 2.0).await;
    let bypassed_while_down = metrics.gate_bypassed.load(Relaxed) - bypassed_before;
    redis = Some(own_redis(port)); // and comes back
    tokio::time::sleep(Duration::from_millis(1200)).await; // past the breaker's pause
    let (passed, rejected) = (
        metrics.gate_passed.load(Relaxed),
        metrics.gate_rejected.load(Relaxed),
    );
    let back = phase(&['G', 'H', 'I', 'J'], 1.5).await;

    let granted = |results: &[(StatusCode, Option<Uuid>, Vec<String>)]| {
        results
            .iter()
            .filter(|(s, _, _)| *s == StatusCode::CREATED)
            .count()
    };
    let mut wins = Vec::new();
    for (status, hold, seats) in up.iter().chain(&down).chain(&back) {
        assert!(
            *status == StatusCode::CREATED || *status == StatusCode::CONFLICT,
            "every answer is 201 or 409, not {status}"
        );
        if *status == StatusCode::CREATED {
            wins.push((hold.expect("a granted hold has an id"), seats.clone()));
        }
    }
    exclusive(&wins).expect("no seat granted twice");
    // The database agrees with the winners, seat by seat.
    let stored = db.stored(showtime_id(id)).await;
    for (hold, seats) in &wins {
        for seat in seats {
            assert_eq!(stored[seat].1, Some(*hold), "seat {seat}");
        }
    }
    let held = stored.values().filter(|(s, _)| s == "HELD").count();
    assert_eq!(held, wins.iter().map(|(_, s)| s.len()).sum::<usize>());

    assert!(granted(&up) > 0 && granted(&down) > 0 && granted(&back) > 0);
    assert!(
        bypassed_while_down > 0,
        "holds went straight to the database while Redis was down"
    );
    assert!(
        metrics.gate_passed.load(Relaxed) > passed
            && metrics.gate_rejected.load(Relaxed) > rejected,
        "the gate works again after Redis restarted"
    );
    drop(redis);
}

/// Control for the test above: if the database did not decide (a read, then a blind write, as a
/// store trusting the gate would do), a lost gate key lets two customers both "win" a seat, and
/// the same `exclusive` check catches it.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn control_a_gate_with_lost_keys_in_front_of_a_blind_write_double_sells() {
    let OwnRedisApp {
        redis: _redis,
        url,
        db,
        app,
        ..
    } = own_redis_app(&[]).await;
    let showtime = showtime_id(first_showtime(&app.base).await);
    let gate = app.engine.gate();
    let seat = [SeatCode::parse("F5").unwrap()];
    let redis = TestRedis {
        url: url.clone(),
        conn: connect(&RedisTarget::Node(url), Duration::from_secs(5))
            .await
            .unwrap(),
        _node: None,
        _cluster: None,
    };

    let first = app::domain::HoldId::new(showtime, rand::random());
    let second = app::domain::HoldId::new(showtime, rand::random());
    assert_eq!(
        gate.enter(showtime, &seat, first, Duration::from_secs(600))
            .await,
        server::gate::GateVerdict::Passed
    );
    redis.del(&key(showtime.get(), "F5")).await; // the key is lost
    assert_eq!(
        gate.enter(showtime, &seat, second, Duration::from_secs(600))
            .await,
        server::gate::GateVerdict::Passed
    );
    let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
    let read_together = tokio::sync::Barrier::new(2);
    let (won_a, won_b) = tokio::join!(
        db.read_then_write_hold(showtime, &["F5"], a, Uuid::new_v4(), &read_together),
        db.read_then_write_hold(showtime, &["F5"], b, Uuid::new_v4(), &read_together),
    );
    assert!(won_a && won_b, "both blind writes 'succeed'");
    let wins = vec![(a, vec!["F5".to_string()]), (b, vec!["F5".to_string()])];
    assert!(
        exclusive(&wins).is_err(),
        "the check catches the double sale"
    );
}

/// A Redis that stops answering (the process frozen with SIGSTOP: its socket stays open) costs a
/// hold at most the timeout once, then the breaker sends holds straight to the database; when
/// Redis answers again (SIGCONT) the gate is used again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_redis_is_bypassed_after_its_timeout_and_used_again_when_it_answers() {
    let OwnRedisApp {
        redis,
        db: _db,
        app,
        ..
    } = own_redis_app(&[("REDIS_TIMEOUT_MS", "150")]).await;
    let pid = redis.0.id().to_string();
    let id = first_showtime(&app.base).await;
    let customer = app.customer();
    let metrics = app.engine.metrics();
    assert_eq!(
        hold(&customer, &app.base, id, &["J1"]).await.0,
        StatusCode::CREATED
    );
    assert_eq!(metrics.gate_passed.load(Relaxed), 1);

    let signal = |sig: &str| {
        let ok = std::process::Command::new("kill")
            .args([sig, &pid])
            .status()
            .unwrap()
            .success();
        assert!(ok, "kill {sig}");
    };
    signal("-STOP");
    let started = Instant::now();
    assert_eq!(
        hold(&customer, &app.base, id, &["J2"]).await.0,
        StatusCode::CREATED
    );
    let first = started.elapsed();
    let started = Instant::now();
    assert_eq!(
        hold(&customer, &app.base, id, &["J3"]).await.0,
        StatusCode::CREATED
    );
    let second = started.elapsed();
    assert!(
        first < Duration::from_millis(1000),
        "the first hold waited only about the timeout: {first:?}"
    );
    assert!(
        second < Duration::from_millis(100),
        "the next one did not wait for Redis at all: {second:?}"
    );
    assert_eq!(metrics.gate_bypassed.load(Relaxed), 2);
    assert!(app.engine.gate().link().unwrap().is_degraded());
    // The database still decides while the gate is away.
    let other = app.customer();
    assert_eq!(
        hold(&other, &app.base, id, &["J2"]).await.0,
        StatusCode::CONFLICT
    );

    signal("-CONT");
    tokio::time::sleep(Duration::from_millis(1100)).await; // past the breaker's pause
    let passed = metrics.gate_passed.load(Relaxed);
    assert_eq!(
        hold(&customer, &app.base, id, &["J4"]).await.0,
        StatusCode::CREATED
    );
    assert_eq!(
        metrics.gate_passed.load(Relaxed),
        passed + 1,
        "the gate is back"
    );
    assert!(!app.engine.gate().link().unwrap().is_degraded());
    drop(redis);
}

/// With Redis down the rate limit does not vanish: this process keeps counting.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_redis_down_the_rate_limit_is_kept_in_the_process() {
    let OwnRedisApp {
        redis,
        db: _db,
        app,
        ..
    } = own_redis_app(&[("REDIS_TIMEOUT_MS", "100"), ("HOLD_RATE_PER_MINUTE", "5")]).await;
    let id = first_showtime(&app.base).await;
    drop(redis);
    let alice = app.customer();
    for seat in ["D1", "D2", "D3", "D4", "D5"] {
        assert_eq!(
            hold(&alice, &app.base, id, &[seat]).await.0,
            StatusCode::CREATED
        );
    }
    let (status, body) = hold(&alice, &app.base, id, &["D6"]).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(body["code"], "RATE_LIMITED");
    assert!(app.engine.gate().link().unwrap().bypassed() > 0);
}

/// Sends a signal to a process (`-STOP`, `-CONT`).
fn signal(pid: u32, sig: &str) {
    let ok = std::process::Command::new("kill")
        .args([sig, &pid.to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill {sig}");
}

/// Waits until `key` is gone from Redis (at most `within`); whether it went.
async fn gone(redis: &Conn, key: &str, within: Duration) -> bool {
    let value = eventually(
        within,
        || async {
            redis::cmd("GET")
                .arg(key)
                .query_async::<Option<String>>(&mut redis.clone())
                .await
                .unwrap()
        },
        Option::is_none,
    )
    .await;
    value.is_none()
}

/// The gate's call times out but Redis carries it out later (it was only slow): the keys it
/// set for a hold the database then refused are released once Redis answers again — free
/// seats are not turned away for the rest of a hold's time.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_set_by_a_gate_call_that_timed_out_are_released_when_the_hold_is_refused() {
    let OwnRedisApp {
        redis,
        url,
        db: _db,
        app,
        ..
    } = own_redis_app(&[("REDIS_TIMEOUT_MS", "150")]).await;
    let inspect = inspector(&url).await;
    let pid = redis.0.id();
    let id = first_showtime(&app.base).await;
    let (alice, bob, carol) = (app.customer(), app.customer(), app.customer());
    // F5 is Alice's in the database, but its gate key was lost.
    assert_eq!(
        hold(&alice, &app.base, id, &["F5"]).await.0,
        StatusCode::CREATED
    );
    redis::cmd("DEL")
        .arg(key(id, "F5"))
        .query_async::<()>(&mut inspect.clone())
        .await
        .unwrap();
    // Redis is slow: Bob's gate call times out, the database refuses F5.
    signal(pid, "-STOP");
    assert_eq!(
        hold(&bob, &app.base, id, &["F5", "F6"]).await.0,
        StatusCode::CONFLICT
    );
    signal(pid, "-CONT");
    // Redis ran Bob's gate script after all (F5 and F6 carry his hold); the release that
    // follows the refusal reaches Redis once it answers, and F6 is free again.
    assert!(
        gone(&inspect, &key(id, "F6"), Duration::from_secs(5)).await,
        "F6 still carries the refused hold: {:?}",
        redis::cmd("GET")
            .arg(key(id, "F6"))
            .query_async::<Option<String>>(&mut inspect.clone())
            .await
    );
    assert_eq!(
        hold(&carol, &app.base, id, &["F6"]).await.0,
        StatusCode::CREATED
    );
    assert_eq!(app.engine.gate().pending_releases(), 0);
    drop(redis);
}

/// A cancel whose release cannot reach Redis: the release is kept and made when Redis answers
/// again, so the cancelled seats are not refused by the gate for the rest of the hold's time.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_release_that_failed_after_a_cancel_is_made_when_redis_is_back() {
    let OwnRedisApp {
        redis,
        url,
        db: _db,
        app,
        ..
    } = own_redis_app(&[("REDIS_TIMEOUT_MS", "150")]).await;
    let inspect = inspector(&url).await;
    let pid = redis.0.id();
    let id = first_showtime(&app.base).await;
    let (alice, bob, dave) = (app.customer(), app.customer(), app.customer());
    let (status, held) = hold(&alice, &app.base, id, &["G1"]).await;
    assert_eq!(status, StatusCode::CREATED);
    signal(pid, "-STOP");
    // Dave's gate call times out: the breaker opens, and calls skip Redis for a second — so
    // the cancel's release below is never sent.
    assert_eq!(
        hold(&dave, &app.base, id, &["H1"]).await.0,
        StatusCode::CREATED
    );
    let r = alice
        .delete(format!(
            "{}/holds/{}",
            app.base,
            held["holdId"].as_str().unwrap()
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    assert_eq!(app.engine.gate().pending_releases(), 1);
    signal(pid, "-CONT");
    assert!(gone(&inspect, &key(id, "G1"), Duration::from_secs(5)).await);
    let passed = app.engine.metrics().gate_passed.load(Relaxed);
    assert_eq!(
        hold(&bob, &app.base, id, &["G1"]).await.0,
        StatusCode::CREATED
    );
    assert_eq!(
        app.engine.metrics().gate_passed.load(Relaxed),
        passed + 1,
        "through the gate, not around it"
    );
    drop(redis);
}

/// Two deployments share one Redis, each with its own REDIS_KEY_PREFIX: neither sees the
/// other's live events nor is refused by the other's gate keys. The control: a third deployment
/// with the first one's prefix is refused by the first one's key for the same seat.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn deployments_sharing_a_redis_keep_apart_by_their_key_prefix() {
    let port = free_port();
    let _redis = own_redis(port);
    let url = format!("redis://127.0.0.1:{port}");
    let app_on = |prefix: &'static str| {
        let url = url.clone();
        async move {
            let db = TestDb::new(Backend::Postgres).await;
            let app = TestApp::spawn_with(
                &db,
                "600",
                &[("REDIS_URL", &url), ("REDIS_KEY_PREFIX", prefix)],
            )
            .await;
            (db, app)
        }
    };
    let (_a_db, a) = app_on("cinema-a:").await;
    let (_b_db, b) = app_on("cinema-b:").await;
    // Both have the same demo programme, so the same showtime ids.
    let id = first_showtime(&a.base).await;
    assert_eq!(first_showtime(&b.base).await, id);
    let mut b_viewer = viewer(&b.base, id).await;
    // The snapshot first.
    let _ = tokio::time::timeout(
        Duration::from_secs(2),
        futures_util::StreamExt::next(&mut b_viewer),
    )
    .await;
    assert_eq!(
        hold(&a.customer(), &a.base, id, &["F5"]).await.0,
        StatusCode::CREATED
    );
    let heard = tokio::time::timeout(Duration::from_secs(1), async {
        loop {
            match futures_util::StreamExt::next(&mut b_viewer).await {
                Some(Ok(tokio_tungstenite::tungstenite::Message::Text(t)))
                    if !t.contains("\"ping\"") =>
                {
                    return t.to_string()
                }
                Some(Ok(_)) => {}
                _ => return String::new(),
            }
        }
    })
    .await;
    assert!(heard.is_err(), "B's viewer heard A's hold: {heard:?}");
    assert_eq!(
        hold(&b.customer(), &b.base, id, &["F5"]).await.0,
        StatusCode::CREATED,
        "A's gate key does not refuse B's customer"
    );
    // The control: the same prefix as A collides with A's key.
    let (_c_db, c) = app_on("cinema-a:").await;
    assert_eq!(
        hold(&c.customer(), &c.base, id, &["F5"]).await.0,
        StatusCode::CONFLICT
    );
}

/// A hold attempt abandoned between the gate and the database's answer (its request dropped
/// while the statement waits for a row lock) releases the keys it set: the seats are not
/// refused by the gate for the rest of a hold's time.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_abandoned_hold_attempt_releases_its_gate_keys() {
    let OwnRedisApp {
        redis: _redis,
        url,
        db,
        app,
        ..
    } = own_redis_app(&[]).await;
    let inspect = inspector(&url).await;
    let id = first_showtime(&app.base).await;
    // Another transaction sits on F7's row: the hold statement will wait for it.
    let mut blocker = db.pg_pool().begin().await.unwrap();
    sqlx::query("select 1 from show_seat where showtime_id = $1 and seat_code = 'F7' for update")
        .bind(id)
        .execute(&mut *blocker)
        .await
        .unwrap();
    let engine = app.engine.clone();
    let attempt = tokio::spawn(async move {
        use app::engine::prelude::*;
        let customer = app::domain::CustomerId(Uuid::new_v4());
        let seats = app::domain::SeatSelection::parse(&["F7", "F8"]).unwrap();
        engine
            .hold_seats(showtime_id(id), &seats, Holder::customer(customer, None))
            .await
    });
    db.until_a_statement_waits_for_a_lock().await;
    assert!(
        redis::cmd("GET")
            .arg(key(id, "F8"))
            .query_async::<Option<String>>(&mut inspect.clone())
            .await
            .unwrap()
            .is_some(),
        "the gate let the attempt through"
    );
    attempt.abort(); // the request is gone
    assert!(
        gone(&inspect, &key(id, "F8"), Duration::from_secs(3)).await,
        "the abandoned attempt's key is released"
    );
    blocker.rollback().await.unwrap();
}
