//! The outbox relay to Kafka and the consumers behind it (issue 7), against a real
//! Kafka-compatible broker (`tansu`, started by each test on a free port; `KAFKA_BROKERS` names
//! an existing cluster instead, except for the test that stops the broker) and PostgreSQL.
//! The consumers' idempotency runs on both stores.

use crate::support::*;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::message::Message;
use rdkafka::{ClientConfig, Offset, TopicPartitionList};
use serde_json::{json, Value};
use server::engine::consumers::{SALES, TICKETS};
use server::workers::relay::{KafkaSink, Relay};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

on_both_backends!(
    a_consumer_that_sees_an_event_twice_changes_nothing_the_second_time,
    the_relay_lease_has_one_holder_and_only_the_holder_marks_events_sent,
    a_failed_delivery_stops_the_batch_and_the_rest_follows_in_order,
);

/// A broker of the test's own (`tansu` in memory) on `port`; stopped when dropped.
fn own_broker(port: u16) -> Running {
    let url = format!("tcp://127.0.0.1:{port}");
    let child = std::process::Command::new(std::env::var("TANSU").unwrap_or("tansu".into()))
        .args([
            "broker",
            "--listener-url",
            &url,
            "--advertised-listener-url",
            &url,
            "--storage-engine",
            "memory://tansu/",
        ])
        .env("RUST_LOG", "warn")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("tansu on PATH (scripts/test.sh installs it)");
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "tansu on {port} did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    Running(child)
}

/// `KAFKA_BROKERS` when set, else a broker of the test's own (kept alive by the returned guard).
fn brokers() -> (String, Option<Running>) {
    match std::env::var("KAFKA_BROKERS") {
        Ok(brokers) if !brokers.trim().is_empty() => (brokers, None),
        _ => {
            let port = free_port();
            (format!("127.0.0.1:{port}"), Some(own_broker(port)))
        }
    }
}

/// A topic name no other test uses.
fn fresh_topic() -> String {
    format!("booking-events-{}", uuid::Uuid::new_v4().simple())
}

/// One message as read back from the topic.
#[derive(Debug, Clone)]
struct Received {
    key: String,
    event_id: String,
    seq: i64,
}

/// Reads `topic` from the beginning of every partition until at least `want` messages came and
/// nothing more arrived for a second, or `within` passed. Messages of one key are in their
/// partition's order.
async fn read_topic(brokers: &str, topic: &str, want: usize, within: Duration) -> Vec<Received> {
    let (brokers, topic) = (brokers.to_string(), topic.to_string());
    tokio::task::spawn_blocking(move || {
        let consumer: BaseConsumer = ClientConfig::new()
            .set("bootstrap.servers", &brokers)
            .set("group.id", format!("reader-{}", uuid::Uuid::new_v4()))
            .set("enable.auto.commit", "false")
            .create()
            .unwrap();
        let deadline = Instant::now() + within;
        let partitions = loop {
            let found = consumer
                .fetch_metadata(Some(&topic), Duration::from_secs(5))
                .ok()
                .and_then(|m| {
                    m.topics()
                        .first()
                        .map(|t| t.partitions().iter().map(|p| p.id()).collect::<Vec<_>>())
                })
                .unwrap_or_default();
            if !found.is_empty() || Instant::now() > deadline {
                break found;
            }
            std::thread::sleep(Duration::from_millis(200));
        };
        let mut list = TopicPartitionList::new();
        for p in &partitions {
            list.add_partition_offset(&topic, *p, Offset::Beginning)
                .unwrap();
        }
        consumer.assign(&list).unwrap();
        let mut out = Vec::new();
        let mut last_new = Instant::now();
        while Instant::now() < deadline {
            if out.len() >= want && last_new.elapsed() > Duration::from_secs(1) {
                break;
            }
            if let Some(Ok(m)) = consumer.poll(Duration::from_millis(100)) {
                let payload: Value = serde_json::from_slice(m.payload().unwrap()).unwrap();
                out.push(Received {
                    key: String::from_utf8(m.key().unwrap().to_vec()).unwrap(),
                    event_id: payload["eventId"].as_str().unwrap().to_string(),
                    seq: payload["seq"].as_i64().unwrap_or(-1),
                });
                last_new = Instant::now();
            }
        }
        out
    })
    .await
    .unwrap()
}

/// Writes `n` committed outbox events (`kind`), cycling over `keys` booking ids, each with a
/// fresh event id and `seq` = its position; returns the event ids in order.
async fn write_events(
    pool: &sqlx::PgPool,
    kind: &str,
    n: usize,
    keys: &[uuid::Uuid],
    extra: Value,
) -> Vec<String> {
    let mut tx = pool.begin().await.unwrap();
    let mut ids = Vec::with_capacity(n);
    for i in 0..n {
        let key = keys[i % keys.len()];
        let event_id = uuid::Uuid::new_v4().to_string();
        // Every field the event schema asks for (`extra` may set them).
        let mut payload = json!({
            "version": 1, "eventId": event_id, "type": kind, "bookingId": key, "seq": i,
            "occurredAt": "2026-11-30T03:00:00Z", "showtimeId": 1, "paymentId": "pay_test",
            "amount": 0, "reason": "a test event", "seats": [], "refundId": "ref_test",
        });
        payload
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        sqlx::query(
            "insert into outbox (aggregate_id, event_type, payload) values ($1, $2, $3::jsonb)",
        )
        .bind(key)
        .bind(kind)
        .bind(payload.to_string())
        .execute(&mut *tx)
        .await
        .unwrap();
        ids.push(event_id);
    }
    tx.commit().await.unwrap();
    ids
}

fn keys(n: usize) -> Vec<uuid::Uuid> {
    (0..n).map(|_| uuid::Uuid::new_v4()).collect()
}

/// Every event in `written` is on the topic; the first time each key's events appear they are
/// in the order they were written; at most `max_duplicates` events came more than once. Err
/// says what is wrong.
fn check_delivery(
    received: &[Received],
    written: &[String],
    max_duplicates: usize,
) -> Result<(), String> {
    let mut seen = HashSet::new();
    let mut duplicates = 0;
    let mut last_seq: HashMap<&str, i64> = HashMap::new();
    for m in received {
        if !seen.insert(m.event_id.as_str()) {
            duplicates += 1;
            continue;
        }
        let last = last_seq.entry(m.key.as_str()).or_insert(-1);
        if m.seq <= *last {
            return Err(format!(
                "key {}: event {} (seq {}) after seq {}",
                m.key, m.event_id, m.seq, last
            ));
        }
        *last = m.seq;
    }
    let missing = written
        .iter()
        .filter(|id| !seen.contains(id.as_str()))
        .count();
    if missing > 0 {
        return Err(format!(
            "{missing} of {} events never arrived",
            written.len()
        ));
    }
    if duplicates > max_duplicates {
        return Err(format!(
            "{duplicates} events arrived twice (at most {max_duplicates} expected)"
        ));
    }
    Ok(())
}

/// `seq` restarts with every `write_events`: make it each event's position in `written`, so
/// order is checked across several writes.
fn renumber(received: &mut [Received], written: &[String]) {
    let position: HashMap<&str, i64> = written
        .iter()
        .enumerate()
        .map(|(i, id)| (id.as_str(), i as i64))
        .collect();
    for m in received {
        m.seq = position[m.event_id.as_str()];
    }
}

async fn wait_until<F, Fut>(what: &str, within: Duration, check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let ok = eventually(within, check, |ok| *ok).await;
    assert!(ok, "timed out waiting for {what}");
}

/// Waits until every consumer recorded each of `events` events as applied (and no more).
async fn consumers_saw(pool: &sqlx::PgPool, events: i64, within: Duration) {
    let n = events * server::engine::consumers::CONSUMERS.len() as i64;
    wait_until("every consumer to see every event", within, || async {
        let seen: i64 = sqlx::query_scalar("select count(*) from consumed_event")
            .fetch_one(pool)
            .await
            .unwrap();
        seen == n
    })
    .await;
}

async fn unpublished(db: &TestDb) -> i64 {
    db.store.unpublished_count().await.unwrap()
}

fn pg(db: &TestDb) -> sqlx::PgPool {
    sqlx::PgPool::connect_lazy(&db.url).unwrap()
}

/// A server on a fresh PostgreSQL database publishing to a fresh topic of `brokers`.
async fn kafka_app(brokers: &str) -> (TestDb, TestApp, String, sqlx::PgPool) {
    kafka_app_with(brokers, &[]).await
}

async fn kafka_app_with(
    brokers: &str,
    extra: &[(&str, &str)],
) -> (TestDb, TestApp, String, sqlx::PgPool) {
    let topic = fresh_topic();
    let db = TestDb::new(Backend::Postgres).await;
    let mut vars = vec![("KAFKA_BROKERS", brokers), ("KAFKA_TOPIC", topic.as_str())];
    vars.extend_from_slice(extra);
    let app = TestApp::spawn_with(&db, "600", &vars).await;
    let pool = pg(&db);
    (db, app, topic, pool)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn committed_events_reach_the_topic_keyed_by_booking_and_rolled_back_ones_never_do() {
    let (brokers, _broker) = brokers();
    let (db, app, topic, pool) = kafka_app(&brokers).await;
    let keys = keys(5);
    let written = write_events(&pool, "BookingFailed", 40, &keys, json!({})).await;
    // A transaction that wrote an event and then rolled back.
    let mut tx = pool.begin().await.unwrap();
    sqlx::query(
        "insert into outbox (aggregate_id, event_type, payload) values ($1, 'BookingFailed', $2::jsonb)",
    )
    .bind(keys[0])
    .bind(json!({"version": 1, "eventId": "rolled-back", "type": "BookingFailed", "bookingId": keys[0], "seq": 1000, "occurredAt": "2026-11-30T03:00:00Z", "showtimeId": 1, "paymentId": "pay_test", "amount": 0, "reason": "rolled back"}).to_string())
    .execute(&mut *tx)
    .await
    .unwrap();
    tx.rollback().await.unwrap();

    let received = read_topic(&brokers, &topic, 40, Duration::from_secs(30)).await;
    check_delivery(&received, &written, 0).unwrap();
    assert_eq!(received.len(), 40);
    assert!(received.iter().all(|m| m.event_id != "rolled-back"));
    for m in &received {
        assert!(
            keys.iter().any(|k| k.to_string() == m.key),
            "keyed by booking id"
        );
    }
    wait_until(
        "the outbox marked published",
        Duration::from_secs(10),
        || async { unpublished(&db).await == 0 },
    )
    .await;
    // The consumers read them as their own groups and recorded each once.
    consumers_saw(&pool, 40, Duration::from_secs(30)).await;
    drop(app);
}

/// A commit in another connection (here: the test's) wakes the relay through LISTEN/NOTIFY: with
/// polling set to a minute, the events still arrive at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_commit_anywhere_wakes_the_relay_without_waiting_for_its_poll() {
    let (brokers, _broker) = brokers();
    let (db, _app, topic, pool) = kafka_app_with(&brokers, &[("RELAY_POLL_SECONDS", "60")]).await;
    // The relay's first round (at start) found nothing; now it waits.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let written = write_events(&pool, "BookingFailed", 10, &keys(2), json!({})).await;
    let started = Instant::now();
    wait_until("the relay to be woken", Duration::from_secs(20), || async {
        unpublished(&db).await == 0
    })
    .await;
    let first = started.elapsed();
    // Once the producer knows the topic, the same again.
    let more = write_events(&pool, "BookingFailed", 10, &keys(2), json!({})).await;
    let started = Instant::now();
    wait_until(
        "the relay to be woken again",
        Duration::from_secs(20),
        || async { unpublished(&db).await == 0 },
    )
    .await;
    eprintln!(
        "published {first:?} after the first commit, {:?} after the second",
        started.elapsed()
    );
    let received = read_topic(&brokers, &topic, 20, Duration::from_secs(20)).await;
    check_delivery(&received, &[written, more].concat(), 0).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_relay_killed_mid_batch_loses_nothing_and_the_consumers_absorb_the_repeats() {
    let (brokers, _broker) = brokers();
    let topic = fresh_topic();
    let db = TestDb::new(Backend::Postgres).await;
    let showtime = db.showtime().await;
    let pool = pg(&db);
    let total = 3000;
    // One confirmed booking of one seat for ₩1,000 per event.
    let written = write_events(
        &pool,
        "BookingConfirmed",
        total,
        &keys(total),
        json!({"showtimeId": showtime.get(), "seats": ["A1"], "amount": 1000}),
    )
    .await;
    let env = [
        ("KAFKA_BROKERS", brokers.as_str()),
        ("KAFKA_TOPIC", topic.as_str()),
        ("RELAY_BATCH", "25"),
        ("DEMO_DATA", "false"),
    ];
    let (first, _) = server_process(&db.url, &redis_url(), "600", &env).await;
    wait_until(
        "the first relay to publish some",
        Duration::from_secs(30),
        || async { unpublished(&db).await < total as i64 - 200 },
    )
    .await;
    drop(first); // SIGKILL, mid-stream
    let left = unpublished(&db).await;
    assert!(
        left > 0,
        "the relay was killed before it had sent everything"
    );

    let (_second, _) = server_process(&db.url, &redis_url(), "600", &env).await;
    wait_until(
        "the restarted relay to publish the rest",
        Duration::from_secs(60),
        || async { unpublished(&db).await == 0 },
    )
    .await;
    let received = read_topic(&brokers, &topic, total, Duration::from_secs(60)).await;
    check_delivery(&received, &written, usize::MAX).unwrap();
    let figures = || async {
        sqlx::query_as::<_, (i32, i32, i64)>(
            "select bookings, seats, revenue_krw from sales_daily where showtime_id = $1",
        )
        .bind(showtime.get())
        .fetch_optional(&pool)
        .await
        .unwrap()
    };
    wait_until(
        "the consumers to catch up",
        Duration::from_secs(60),
        || async {
            let tickets: i64 = sqlx::query_scalar("select count(*) from ticket")
                .fetch_one(&pool)
                .await
                .unwrap();
            figures().await.is_some_and(|f| f.0 as usize == total) && tickets as usize == total
        },
    )
    .await;
    // Each booking counted once however often its event came.
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(
        figures().await,
        Some((total as i32, total as i32, 1000 * total as i64))
    );
    eprintln!(
        "killed with {left} of {total} unpublished; {} messages on the topic for {total} events",
        received.len()
    );
}

/// Runs `relays` at once while events are written; returns what reached the topic and what was
/// written. `handover`: halfway, the relay that is sending stops (and gives its lease up).
async fn relays_at_once(
    lease_names: [&str; 2],
    handover: bool,
) -> (Vec<Received>, Vec<String>, [u64; 2]) {
    let (brokers, _broker) = brokers();
    let topic = fresh_topic();
    let db = TestDb::new(Backend::Postgres).await;
    let pool = pg(&db);
    let make = |name: &str| {
        let sink = Arc::new(KafkaSink::new(&brokers, &topic).unwrap());
        Arc::new(Relay::new(db.store.clone(), sink, 20).with_lease_name(name))
    };
    let relays = [make(lease_names[0]), make(lease_names[1])];
    server::workers::relay::ensure_topic(&brokers, &topic)
        .await
        .unwrap();
    // Each relay is woken after every write, as LISTEN/NOTIFY wakes it in a server.
    let wakes = [
        Arc::new(tokio::sync::Notify::new()),
        Arc::new(tokio::sync::Notify::new()),
    ];
    let tasks: Vec<_> = relays
        .iter()
        .zip(&wakes)
        .map(|(r, wake)| tokio::spawn(r.clone().run(wake.clone())))
        .collect();
    let keys = keys(10);
    let mut written = Vec::new();
    for round in 0..40 {
        written.extend(write_events(&pool, "BookingFailed", 50, &keys, json!({})).await);
        wakes.iter().for_each(|w| w.notify_one());
        tokio::time::sleep(Duration::from_millis(20)).await;
        if handover && round == 20 {
            let sent = |i: usize| relays[i].published.load(Ordering::Relaxed);
            wait_until("a relay to send", Duration::from_secs(30), || async {
                sent(0) + sent(1) > 0
            })
            .await;
            let active = if sent(0) > 0 { 0 } else { 1 };
            tasks[active].abort();
            relays[active].stop().await;
        }
    }
    wait_until("everything published", Duration::from_secs(60), || async {
        unpublished(&db).await == 0
    })
    .await;
    let mut received = read_topic(&brokers, &topic, written.len(), Duration::from_secs(60)).await;
    renumber(&mut received, &written);
    for task in tasks {
        task.abort();
    }
    let published = [
        relays[0].published.load(Ordering::Relaxed),
        relays[1].published.load(Ordering::Relaxed),
    ];
    (received, written, published)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_relays_at_once_lose_nothing_and_keep_each_bookings_order() {
    let (received, written, published) = relays_at_once(
        [
            server::workers::relay::LEASE_NAME,
            server::workers::relay::LEASE_NAME,
        ],
        true,
    )
    .await;
    // The sender is stopped abruptly: the batch it had sent but not yet marked (20 at most)
    // is sent again by the other.
    check_delivery(&received, &written, 20).unwrap();
    // The two relays marked everything between them, but for the one batch the stopped sender
    // may have marked in the database just before it was aborted, before it counted it.
    let marked = published[0] + published[1];
    eprintln!(
        "relays marked {published:?} of {} events; {} messages on the topic",
        written.len(),
        received.len()
    );
    assert!(
        marked + 20 >= written.len() as u64,
        "marked {marked} of {}",
        written.len()
    );
    assert!(
        published[0] > 0 && published[1] > 0,
        "the standby took over when the sender stopped: {published:?}"
    );
}

/// Control: relays that do not share the lease both send everything — the check above sees it.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn control_relays_without_the_shared_lease_send_events_twice() {
    let (received, written, _) = relays_at_once(["relay-a", "relay-b"], false).await;
    let verdict = check_delivery(&received, &written, 20);
    assert!(
        verdict.as_ref().is_err_and(|e| e.contains("twice")),
        "uncoordinated relays must be caught: {verdict:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn while_the_broker_is_down_events_wait_in_the_outbox_and_go_out_when_it_returns() {
    let port = free_port();
    let brokers = format!("127.0.0.1:{port}");
    let broker = own_broker(port);
    let (db, app, topic, pool) = kafka_app(&brokers).await;
    let keys = keys(3);
    let mut written = write_events(&pool, "BookingFailed", 5, &keys, json!({})).await;
    wait_until(
        "the first events published",
        Duration::from_secs(30),
        || async { unpublished(&db).await == 0 },
    )
    .await;

    // The broker stops answering (frozen with SIGSTOP: it keeps its topics, as a real broker
    // that comes back does; tansu's in-memory storage would lose them in a restart).
    let signal = |sig: &str| {
        let ok = std::process::Command::new("kill")
            .args([sig, &broker.0.id().to_string()])
            .status()
            .unwrap()
            .success();
        assert!(ok, "kill {sig}");
    };
    signal("-STOP");
    written.extend(write_events(&pool, "BookingFailed", 20, &keys, json!({})).await);
    tokio::time::sleep(Duration::from_secs(8)).await;
    assert_eq!(
        unpublished(&db).await,
        20,
        "nothing is marked sent while the broker is down"
    );
    let metrics = get_text(app.url("/metrics")).await;
    assert!(
        metrics.contains("\nseats_outbox_unpublished 20\n"),
        "the backlog shows: {metrics}"
    );

    signal("-CONT");
    wait_until(
        "the waiting events published",
        Duration::from_secs(60),
        || async { unpublished(&db).await == 0 },
    )
    .await;
    let mut received = read_topic(&brokers, &topic, 25, Duration::from_secs(30)).await;
    renumber(&mut received, &written);
    // A delivery that timed out while the broker was frozen may have been written after all.
    check_delivery(&received, &written, usize::MAX).unwrap();
    // Every consumer group carried on after the outage and applied every event once.
    consumers_saw(&pool, 25, Duration::from_secs(60)).await;
}

async fn a_consumer_that_sees_an_event_twice_changes_nothing_the_second_time(backend: Backend) {
    let db = TestDb::new(backend).await;
    let showtime = db.showtime().await;
    let engine = engine(
        &db,
        server::clock::Clock::Database,
        Duration::from_secs(600),
    );
    let booking = uuid::Uuid::new_v4();
    let confirmed = json!({
        "version": 1, "eventId": uuid::Uuid::new_v4(), "type": "BookingConfirmed",
        "bookingId": booking, "occurredAt": "2026-11-30T03:00:00Z",
        "showtimeId": showtime.get(), "seats": ["A1", "A2"], "amount": 24000, "paymentId": "pay_1",
    })
    .to_string();
    let refund = json!({
        "version": 1, "eventId": uuid::Uuid::new_v4(), "type": "RefundIssued",
        "bookingId": uuid::Uuid::new_v4(), "occurredAt": "2026-11-30T16:00:00Z",
        "showtimeId": showtime.get(), "amount": 12000, "paymentId": "pay_2", "refundId": "ref_2",
    })
    .to_string();
    // Sold at the box office the same day: counted apart. (The two events above carry no
    // channel, as events written before channels were kept: they count as online.)
    let counter = json!({
        "version": 1, "eventId": uuid::Uuid::new_v4(), "type": "BookingConfirmed",
        "bookingId": uuid::Uuid::new_v4(), "occurredAt": "2026-11-30T05:00:00Z",
        "showtimeId": showtime.get(), "seats": ["B1"], "amount": 11000, "paymentId": "cash_1",
        "channel": "box_office",
    })
    .to_string();
    for consumer in [TICKETS, SALES] {
        for payload in [&confirmed, &refund, &counter] {
            assert!(engine.consume(consumer, payload.as_bytes()).await.unwrap());
            assert!(!engine.consume(consumer, payload.as_bytes()).await.unwrap());
        }
    }
    let ticket = db
        .store
        .issued_ticket(app::domain::BookingId(booking))
        .await
        .unwrap()
        .expect("ticket issued");
    assert_eq!(
        ticket.0,
        engine.ticket_code(app::domain::BookingId(booking))
    );
    let sales = db.store.sales().await.unwrap();
    // 03:00 UTC is noon in Seoul (the 30th); 16:00 UTC is 01:00 on the 1st there.
    let days: Vec<_> = sales
        .iter()
        .map(|r| {
            (
                r.day.to_string(),
                r.channel.as_str(),
                r.bookings,
                r.seats,
                r.revenue.get(),
                r.refunds,
                r.refunded.get(),
            )
        })
        .collect();
    assert_eq!(
        days,
        vec![
            ("2026-12-01".to_string(), "online", 0, 0, 0, 1, 12000),
            ("2026-11-30".to_string(), "box_office", 1, 1, 11000, 0, 0),
            ("2026-11-30".to_string(), "online", 1, 2, 24000, 0, 0),
        ]
    );
    // Unreadable messages are refused, not applied.
    for bad in [
        "not json",
        r#"{"version": 2, "eventId": "x", "type": "BookingConfirmed", "bookingId": "00000000-0000-0000-0000-000000000000"}"#,
    ] {
        assert!(matches!(
            engine.consume(SALES, bad.as_bytes()).await,
            Err(server::engine::consumers::ConsumeError::Unreadable(_))
        ));
    }
}

/// Control for the order check the relay tests rely on: a key's later event arriving first for
/// the first time is caught; the same event again later is only a duplicate.
#[test]
fn control_the_delivery_check_catches_a_key_out_of_order_and_a_missing_event() {
    let m = |key: &str, id: &str, seq: i64| Received {
        key: key.into(),
        event_id: id.into(),
        seq,
    };
    let written = vec!["e0".to_string(), "e1".into(), "e2".into()];
    let in_order = [
        m("k", "e0", 0),
        m("j", "e1", 1),
        m("k", "e2", 2),
        m("k", "e0", 0),
    ];
    assert_eq!(check_delivery(&in_order, &written, 1), Ok(()));
    let swapped = [m("k", "e2", 2), m("j", "e1", 1), m("k", "e0", 0)];
    assert!(check_delivery(&swapped, &written, 0).is_err_and(|e| e.contains("after seq")));
    let missing = [m("k", "e0", 0), m("k", "e2", 2)];
    assert!(check_delivery(&missing, &written, 0).is_err_and(|e| e.contains("never arrived")));
}

/// Writes one committed outbox event of `kind` on either backend; its event id.
async fn outbox_event(db: &TestDb, kind: &str, key: uuid::Uuid, seq: i64) -> String {
    let event_id = uuid::Uuid::new_v4().to_string();
    let payload =
        json!({"version": 1, "eventId": event_id, "type": kind, "bookingId": key, "seq": seq})
            .to_string();
    match db.backend {
        Backend::Postgres => {
            sqlx::query(
                "insert into outbox (aggregate_id, event_type, payload) values ($1, $2, $3::jsonb)",
            )
            .bind(key)
            .bind(kind)
            .bind(payload)
            .execute(&pg(db))
            .await
            .unwrap();
        }
        Backend::Sqlite => {
            let pool = sqlx::SqlitePool::connect(&db.url).await.unwrap();
            sqlx::query(
                "insert into outbox (aggregate_id, event_type, payload, created_at, next_attempt_at)
                 values (?1, ?2, ?3, 0, 0)",
            )
            .bind(key)
            .bind(kind)
            .bind(payload)
            .execute(&pool)
            .await
            .unwrap();
        }
    }
    event_id
}

async fn the_relay_lease_has_one_holder_and_only_the_holder_marks_events_sent(backend: Backend) {
    let db = TestDb::new(backend).await;
    let store = db.store.clone();
    let long = Duration::from_secs(10);
    assert!(store.take_relay_lease("r", "a", long).await.unwrap());
    assert!(
        !store.take_relay_lease("r", "b", long).await.unwrap(),
        "a holds it"
    );
    assert!(
        store.take_relay_lease("r", "a", long).await.unwrap(),
        "a renews"
    );
    assert!(
        store.take_relay_lease("other", "b", long).await.unwrap(),
        "leases are per name"
    );

    let key = uuid::Uuid::new_v4();
    outbox_event(&db, "BookingConfirmed", key, 0).await;
    outbox_event(&db, "PaymentSucceeded", key, 1).await; // internal: never published
    outbox_event(&db, "RefundIssued", key, 2).await;
    let events = store.unpublished_events(10).await.unwrap();
    let kinds: Vec<_> = events.iter().map(|e| e.event_type.as_str()).collect();
    assert_eq!(kinds, ["BookingConfirmed", "RefundIssued"]);
    assert!(events[0].id < events[1].id && events.iter().all(|e| e.key.0 == key));
    let ids: Vec<_> = events.iter().map(|e| e.id).collect();
    assert_eq!(
        store.mark_published("r", "b", &ids).await.unwrap(),
        0,
        "not the holder"
    );
    assert_eq!(store.unpublished_count().await.unwrap(), 2);
    assert_eq!(store.mark_published("r", "a", &ids[..1]).await.unwrap(), 1);
    assert_eq!(
        store.mark_published("r", "a", &ids).await.unwrap(),
        1,
        "once each"
    );
    assert_eq!(store.unpublished_count().await.unwrap(), 0);

    // Given up: another takes it at once. Not renewed: it lapses and another takes it.
    store.drop_relay_lease("r", "a").await.unwrap();
    assert!(store
        .take_relay_lease("r", "b", Duration::from_millis(200))
        .await
        .unwrap());
    assert!(!store.take_relay_lease("r", "c", long).await.unwrap());
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert!(
        store.take_relay_lease("r", "c", long).await.unwrap(),
        "b's lease lapsed"
    );
    outbox_event(&db, "BookingFailed", key, 3).await;
    let late = store.unpublished_events(10).await.unwrap();
    assert_eq!(
        store.mark_published("r", "b", &[late[0].id]).await.unwrap(),
        0,
        "b lost it"
    );
}

/// A sink that records what it was given and fails at the `fail_at`-th event of a call (once).
struct Flaky {
    delivered: std::sync::Mutex<Vec<i64>>,
    fail_at: std::sync::Mutex<Option<usize>>,
}

#[async_trait::async_trait]
impl server::workers::relay::EventSink for Flaky {
    async fn deliver(&self, events: &[server::store::OutboxEvent]) -> (usize, Option<String>) {
        let stop = self.fail_at.lock().unwrap().take();
        let n = stop.unwrap_or(events.len()).min(events.len());
        self.delivered
            .lock()
            .unwrap()
            .extend(events[..n].iter().map(|e| e.id));
        (n, stop.map(|_| "broker said no".to_string()))
    }
}

async fn a_failed_delivery_stops_the_batch_and_the_rest_follows_in_order(backend: Backend) {
    use server::workers::relay::Round;
    let db = TestDb::new(backend).await;
    let key = uuid::Uuid::new_v4();
    for seq in 0..5 {
        outbox_event(&db, "BookingConfirmed", key, seq).await;
    }
    let sink = Arc::new(Flaky {
        delivered: Default::default(),
        fail_at: std::sync::Mutex::new(Some(2)),
    });
    let relay = Relay::new(db.store.clone(), sink.clone(), 10);
    assert_eq!(relay.round().await.unwrap(), Round::Failed(2));
    assert_eq!(
        db.store.unpublished_count().await.unwrap(),
        3,
        "only the delivered two are marked"
    );
    assert_eq!(relay.round().await.unwrap(), Round::Sent(3));
    assert_eq!(relay.round().await.unwrap(), Round::Sent(0));
    let delivered = sink.delivered.lock().unwrap().clone();
    assert_eq!(delivered.len(), 5);
    assert!(
        delivered.windows(2).all(|w| w[0] < w[1]),
        "in outbox order: {delivered:?}"
    );
    // A second relay stands by while the first holds the lease.
    let standby = Relay::new(db.store.clone(), sink.clone(), 10);
    assert_eq!(standby.round().await.unwrap(), Round::Standby);
}

/// The consumers' watch (`workers/relay/watch.rs`) reads, from the broker itself, what a group
/// has not read yet: a message at the group's committed offset is an event waiting. (tansu's
/// stated partition ends are not used: they are sometimes short.)
#[tokio::test]
async fn the_watch_reads_from_the_broker_what_a_group_left_unread() {
    use rdkafka::producer::{FutureProducer, FutureRecord};
    use server::workers::relay::{ensure_topic, group_waiting, Partition};
    let (brokers, _broker) = brokers();
    let topic = fresh_topic();
    ensure_topic(&brokers, &topic).await.unwrap();
    let group = format!("watch-{}", uuid::Uuid::new_v4().simple());
    let waiting = |brokers: String, topic: String, group: String| async move {
        let mut parts =
            tokio::task::spawn_blocking(move || group_waiting(&brokers, &topic, &group))
                .await
                .unwrap()
                .expect("the group's offsets read");
        parts.sort_by_key(|p| p.id);
        parts
    };
    // An empty topic: nothing waits, though the group never committed.
    let parts = waiting(brokers.clone(), topic.clone(), group.clone()).await;
    assert_eq!(parts.len(), 3, "{parts:?}");
    assert!(parts.iter().all(|p| p.end == p.committed), "{parts:?}");

    // Messages on partitions 0 and 2, none on 1: a group that read nothing has them waiting.
    let producer: FutureProducer = ClientConfig::new()
        .set("bootstrap.servers", &brokers)
        .create()
        .unwrap();
    for (partition, n) in [(0, 3), (2, 2)] {
        for i in 0..n {
            producer
                .send(
                    FutureRecord::to(&topic)
                        .partition(partition)
                        .key("k")
                        .payload(&format!("{i}")),
                    Duration::from_secs(5),
                )
                .await
                .unwrap();
        }
    }
    let parts = waiting(brokers.clone(), topic.clone(), group.clone()).await;
    let behind: Vec<(i32, bool)> = parts.iter().map(|p| (p.id, p.end > p.committed)).collect();
    assert_eq!(behind, vec![(0, true), (1, false), (2, true)], "{parts:?}");

    // The group commits partition 0 to its end and partition 2 to one short of it.
    let member: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", &brokers)
        .set("group.id", &group)
        .set("enable.auto.commit", "false")
        .create()
        .unwrap();
    let mut at = TopicPartitionList::new();
    at.add_partition_offset(&topic, 0, Offset::Offset(3))
        .unwrap();
    at.add_partition_offset(&topic, 2, Offset::Offset(1))
        .unwrap();
    member.assign(&at).unwrap();
    member
        .commit(&at, rdkafka::consumer::CommitMode::Sync)
        .unwrap();
    let parts = waiting(brokers.clone(), topic.clone(), group.clone()).await;
    assert_eq!(
        parts,
        vec![
            Partition {
                id: 0,
                committed: 3,
                end: 3
            },
            Partition {
                id: 1,
                committed: 0,
                end: 0
            },
            Partition {
                id: 2,
                committed: 1,
                end: 2
            },
        ]
    );
}
