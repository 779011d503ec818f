//! The waiting room keeps its promise: an admission ends whatever the room's switch says, lives
//! at most the time to hold and one hold, a proof of work makes one place, a ticket is only its
//! customer's; the automatic switch counts distinct customers the limits let through and never
//! overrides an operator; a room call that fails while Redis is away is made again. On both of
//! the room's homes (in the process, in Redis) with a clock the test moves, and over HTTP.

use crate::support::*;
use crate::waiting_room::{
    admitted, customer, fresh_showtime, hold, join_all, key_prefix, rooms, set_room, step, Home,
};
use app::domain::HoldId;
use reqwest::StatusCode;
use serde_json::{json, Value};
use server::clock::Clock;
use server::waiting_room::{Reserve, Step};
use std::time::Duration;

macro_rules! on_both_homes {
    ($($name:ident),* $(,)?) => {
        mod in_process {
            $(#[tokio::test]
            async fn $name() { super::$name(super::Home::Process).await }) *
        }
        mod in_redis {
            $(#[tokio::test]
            async fn $name() { super::$name(super::Home::Redis).await }) *
        }
    };
}

on_both_homes!(
    a_room_turned_off_and_on_again_revives_no_admission,
    an_admission_lives_at_most_the_time_to_hold_and_one_hold,
    a_proof_of_work_makes_one_place,
    a_ticket_is_only_its_customers,
);

/// A shopper admitted and holding; the room is turned off; meanwhile her hold ends (paid) and
/// ten minutes pass. Turned on again, the room must not find her inside: the next person is
/// admitted at the first step. The control steps the room after the same gap without the
/// switch (an outage: deadlines move on by the gap), and keeps her inside — the test would
/// catch the pause read as an outage.
async fn a_room_turned_off_and_on_again_revives_no_admission(home: Home) {
    let verdict = |switched: bool| async move {
        let clock = Clock::manual(t0());
        let room = rooms(home, 1, &clock).pop().unwrap();
        let s = fresh_showtime();
        let placed = join_all(&room, s, 2).await;
        let one = step(1, 1000);
        assert_eq!(room.admit(s, &one).await.unwrap().admitted, 1);
        let (c, t, _) = &placed[0];
        assert!(matches!(
            room.reserve(s, Some(t), *c, 1).await.unwrap(),
            Reserve::Reserved(_)
        ));
        let hold = HoldId::new(s, rand::random());
        let until = clock.now().unwrap() + chrono::Duration::seconds(600);
        room.bind(s, t, hold, until.timestamp_millis())
            .await
            .unwrap();
        if switched {
            room.switched_off(s).await;
        }
        // While off: a minute on, the hold is paid; nine more minutes.
        clock.advance(chrono::Duration::seconds(60));
        room.hold_ended(s, hold, Duration::ZERO).await.unwrap();
        clock.advance(chrono::Duration::seconds(540));
        let report = room.admit(s, &one).await.unwrap();
        let counts = room.counts(s).await.unwrap();
        (report.admitted, counts.inside, counts.served)
    };
    assert_eq!(
        verdict(true).await,
        (1, 1, 2),
        "her admission ended while the room was off: the next one is in"
    );
    let (admitted, inside, _) = verdict(false).await;
    assert_eq!(
        (admitted, inside),
        (0, 1),
        "the control: after an outage, the admission is still there"
    );
}

/// However often a shopper holds and cancels again, her admission ends by the time to hold
/// (2 minutes) plus one hold (10 minutes) after it began. The control: a hold bound in the
/// first minutes lives to its end.
async fn an_admission_lives_at_most_the_time_to_hold_and_one_hold(home: Home) {
    let clock = Clock::manual(t0());
    let room = rooms(home, 1, &clock).pop().unwrap();
    let s = fresh_showtime();
    let (c, t, _) = join_all(&room, s, 1).await.pop().unwrap();
    let rules = step(5, 1000); // admission 120 s, stay 720 s
    room.admit(s, &rules).await.unwrap();
    let admitted_at = clock.now().unwrap();
    // Time passes as on a server: a step every second.
    let pass = |secs: i64| {
        let (room, clock, rules) = (&room, &clock, rules.clone());
        async move {
            for _ in 0..secs {
                clock.advance(chrono::Duration::seconds(1));
                room.admit(s, &rules).await.unwrap();
            }
        }
    };
    // A one-seat hold, cancelled after 140 s, held again (10 s later), over and over: the
    // seventh, 846 s after the admission, is refused (the old way, each hold moved the end on:
    // eight holds, 80 minutes inside).
    let mut refused_at = None;
    for round in 0..8 {
        match room.reserve(s, Some(&t), c, 1).await.unwrap() {
            Reserve::Reserved(_) => {}
            Reserve::NotAdmitted => {
                refused_at = Some(round);
                break;
            }
            other => panic!("round {round}: {other:?}"),
        }
        let hold = HoldId::new(s, rand::random());
        let until = clock.now().unwrap() + chrono::Duration::seconds(600);
        room.bind(s, &t, hold, until.timestamp_millis())
            .await
            .unwrap();
        pass(140).await;
        room.hold_ended(s, hold, Duration::from_secs(10))
            .await
            .unwrap();
        pass(1).await;
    }
    let inside_for = clock.now().unwrap() - admitted_at;
    assert_eq!(
        refused_at,
        Some(6),
        "re-holds stopped {} s after the admission",
        inside_for.num_seconds()
    );
    assert_eq!(room.counts(s).await.unwrap().inside, 0);

    // The control: one hold bound at once lives its ten minutes (within the cap).
    let (c, t, _) = join_all(&room, s, 1).await.pop().unwrap();
    room.admit(s, &rules).await.unwrap();
    room.reserve(s, Some(&t), c, 1).await.unwrap();
    let hold = HoldId::new(s, rand::random());
    let until = clock.now().unwrap() + chrono::Duration::seconds(600);
    room.bind(s, &t, hold, until.timestamp_millis())
        .await
        .unwrap();
    pass(599).await;
    assert_eq!(
        room.counts(s).await.unwrap().inside,
        1,
        "the hold still lives"
    );
}

/// A challenge solved once makes one place: the same proof, shown again for a new place, is
/// refused; a new challenge's is not.
async fn a_proof_of_work_makes_one_place(home: Home) {
    let clock = Clock::manual(t0());
    let room = rooms(home, 1, &clock).pop().unwrap();
    let s = fresh_showtime();
    let proven = || Some("7.0.00aa00aa00aa00aa.proof".to_string());
    let first = room.join(s, customer(), "", false, proven()).await.unwrap();
    assert_eq!(first.step, Step::Ok);
    let again = room.join(s, customer(), "", false, proven()).await.unwrap();
    assert_eq!(again.step, Step::ProofNeeded, "a used proof proves nothing");
    let fresh = Some("7.0.11bb11bb11bb11bb.proof".to_string());
    let other = room.join(s, customer(), "", false, fresh).await.unwrap();
    assert_eq!(other.step, Step::Ok);
}

/// Asking with someone else's ticket tells nothing of her place and leaves her pacing alone.
async fn a_ticket_is_only_its_customers(home: Home) {
    let clock = Clock::manual(t0());
    let room = rooms(home, 1, &clock).pop().unwrap();
    let s = fresh_showtime();
    let (her, ticket, _) = join_all(&room, s, 1).await.pop().unwrap();
    let stranger = room.poll(s, Some(&ticket), customer()).await.unwrap();
    assert_eq!(stranger.step, Step::Gone);
    assert_eq!(stranger.number, 0, "nothing of her place");
    let hers = room.poll(s, Some(&ticket), her).await.unwrap();
    assert_eq!(
        hers.step,
        Step::Ok,
        "her own poll is not paced by the stranger's"
    );
}

/// Redis missed a bind; the hold then ended (paid), and the bind, tried again once Redis was
/// back, comes after: it binds nothing, so the admission ends as if it had been bound in time.
/// The control: a bind in its place keeps the admission for the hold's length.
#[tokio::test]
async fn a_bind_that_comes_after_its_hold_ended_binds_nothing() {
    let clock = Clock::manual(t0());
    let room = rooms(Home::Redis, 1, &clock).pop().unwrap();
    let s = fresh_showtime();
    let placed = join_all(&room, s, 2).await;
    let rules = step(2, 1000);
    assert_eq!(room.admit(s, &rules).await.unwrap().admitted, 2);
    let until = (clock.now().unwrap() + chrono::Duration::seconds(600)).timestamp_millis();
    let (late, in_time) = (
        HoldId::new(s, rand::random()),
        HoldId::new(s, rand::random()),
    );
    for ((c, t, _), hold) in placed.iter().zip([late, in_time]) {
        room.reserve(s, Some(t), *c, 1).await.unwrap();
        if hold == in_time {
            room.bind(s, t, hold, until).await.unwrap();
        }
    }
    room.hold_ended(s, late, Duration::ZERO).await.unwrap();
    room.bind(s, &placed[0].1, late, until).await.unwrap();
    // Past the time to hold (120 s), the late one's admission is over; the other's is not.
    for _ in 0..121 {
        clock.advance(chrono::Duration::seconds(1));
        room.admit(s, &rules).await.unwrap();
    }
    let (first, second) = (&placed[0], &placed[1]);
    assert_eq!(
        room.reserve(s, Some(&first.1), first.0, 1).await.unwrap(),
        Reserve::NotAdmitted,
        "the late bind revived nothing"
    );
    assert!(
        matches!(
            room.reserve(s, Some(&second.1), second.0, 1).await.unwrap(),
            Reserve::Reserved(_)
        ),
        "the control: bound in time, it lives with its hold"
    );
}

on_both_backends!(
    the_automatic_switch_counts_customers_the_limits_let_through,
    a_hold_cancelled_while_the_room_is_off_ends_its_admission,
);

/// The same through the server, as an operator and two customers would: Bob admitted (one inside
/// at a time) holds a seat; the operator turns the room off; Bob cancels his hold; the operator
/// turns the room on again. Carol, who was waiting, is let in, and Bob's old admission holds
/// nothing. (Before the fix the cancel was not passed to a room that was off, and the pause was
/// read as an outage: Bob was inside again and Carol waited for his admission's end.)
async fn a_hold_cancelled_while_the_room_is_off_ends_its_admission(backend: Backend) {
    let db = TestDb::new(backend).await;
    let (redis, prefix) = (redis_url(), key_prefix());
    let vars: &[(&str, &str)] = match backend {
        Backend::Postgres => &[
            ("REDIS_URL", &redis),
            ("REDIS_KEY_PREFIX", &prefix),
            ("WAITING_ROOM_POLL_SECONDS", "0.2"),
        ],
        Backend::Sqlite => &[("WAITING_ROOM_POLL_SECONDS", "0.2")],
    };
    let app = TestApp::spawn_with(&db, "600", vars).await;
    let op = operator(&app).await;
    let showtime = on_sale(&app).await[0];
    set_room(&op, showtime, true, 1).await;
    let (bob, carol) = (app.customer(), app.customer());
    let join = |c: &reqwest::Client| {
        c.post(app.url(&format!("/showtimes/{showtime}/queue")))
            .send()
    };
    assert!(join(&bob).await.unwrap().status().is_success());
    let token = admitted(&app, &bob, showtime).await;
    assert!(join(&carol).await.unwrap().status().is_success());
    let (status, body) = hold(&app, &bob, showtime, &["A1"], Some(&token)).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");

    set_room(&op, showtime, false, 1).await;
    let r = bob
        .delete(app.url(&format!("/holds/{}", body["holdId"].as_str().unwrap())))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    set_room(&op, showtime, true, 1).await;

    let carols = admitted(&app, &carol, showtime).await;
    let (status, body) = hold(&app, &carol, showtime, &["B1"], Some(&carols)).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (status, body) = hold(&app, &bob, showtime, &["A2"], Some(&token)).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::FORBIDDEN, Some("QUEUE_REQUIRED")),
        "Bob's admission ended with his hold: {body}"
    );
}

/// `WAITING_ROOM_AUTO_HOLDS_PER_SECOND=3`: twelve cookie-less attempts from one address, all but
/// two refused by the address's rate limit, and one customer trying from twelve addresses at
/// once, turn nothing on; an operator's change stands against a crowd in the same minute; four
/// customers the limits let through turn the room on (the control), and the audit log says so.
async fn the_automatic_switch_counts_customers_the_limits_let_through(backend: Backend) {
    let db = TestDb::new(backend).await;
    let vars = [
        ("WAITING_ROOM_AUTO_HOLDS_PER_SECOND", "3"),
        ("HOLD_RATE_PER_ADDRESS", "2"),
        ("HOLD_RATE_PER_MINUTE", "100"),
        ("TRUSTED_PROXIES", "127.0.0.1/32"),
    ];
    let app = TestApp::spawn_with(&db, "600", &vars).await;
    let op = operator(&app).await;
    let on_sale = on_sale(&app).await;
    let (scripted, operated) = (on_sale[0], on_sale[1]);
    let room_on = |showtime: i64| {
        let op = &op;
        async move {
            let (_, view) = op.waiting_room(json!({ "showtime_id": showtime })).await;
            view["settings"]["on"] == true
        }
    };
    let attempt = |client: reqwest::Client, showtime: i64, seat: String, address: String| {
        let app = &app;
        async move {
            client
                .post(app.url(&format!("/showtimes/{showtime}/holds")))
                .header("x-forwarded-for", address)
                .json(&json!({ "seats": [seat] }))
                .send()
                .await
                .unwrap()
                .status()
        }
    };

    // A script without cookies, from one address: the address's limit refuses all but two.
    let script = (0..12).map(|i| {
        attempt(
            reqwest::Client::new(),
            scripted,
            format!("A{}", i + 1),
            "198.51.100.9".into(),
        )
    });
    let statuses = futures_util::future::join_all(script).await;
    let limited = statuses
        .iter()
        .filter(|s| **s == StatusCode::TOO_MANY_REQUESTS)
        .count();
    assert!(limited >= 10, "{statuses:?}");
    // One customer (her session made first) from twelve addresses at once.
    let one = app.customer();
    one.get(app.url("/bookings")).send().await.unwrap();
    let many = (0..12).map(|i| {
        attempt(
            reqwest::Client::clone(&one),
            scripted,
            format!("B{}", i + 1),
            format!("203.0.113.{}", i + 1),
        )
    });
    futures_util::future::join_all(many).await;
    assert!(!room_on(scripted).await, "neither turned the room on");

    // An operator's change of the other showtime's room (off, a message) stands.
    let (status, body) = op
        .set_waiting_room(
            json!({ "showtime_id": operated, "on": false, "max_active": 7, "admit_per_minute": 60,
                "message": "Tickets at ten" }),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let crowd = (0..8).map(|i| {
        attempt(
            reqwest::Client::clone(&app.customer()),
            operated,
            format!("C{}", i + 1),
            format!("192.0.2.{}", i + 1),
        )
    });
    futures_util::future::join_all(crowd).await;
    assert!(!room_on(operated).await, "the operator's change stands");

    // The control: four customers the limits let through, in one second, turn it on.
    let crowd = (0..4).map(|i| {
        attempt(
            reqwest::Client::clone(&app.customer()),
            scripted,
            format!("D{}", i + 1),
            format!("192.0.2.{}", 50 + i),
        )
    });
    let mut on = false;
    for _ in 0..5 {
        futures_util::future::join_all(crowd.clone()).await;
        if room_on(scripted).await {
            on = true;
            break;
        }
    }
    assert!(on, "four customers in a second turn the room on");
    let (_, audit) = op.audit_log(json!({})).await;
    let lines = audit.as_array().cloned().unwrap_or_default();
    assert!(
        lines.iter().any(|l| l["action"] == "waiting_room_auto_on"),
        "the switch is in the audit log: {audit}"
    );
}

async fn on_sale(app: &TestApp) -> Vec<i64> {
    let all: Vec<Value> = get_json(app.url("/showtimes")).await;
    all.iter()
        .filter(|s| s["salesOpen"] == true)
        .filter_map(|s| s["id"].as_i64())
        .collect()
}

/// Redis away (paused) while an admitted shopper's hold is paid: the room call that ends her
/// admission fails, and is made again when Redis is back, so the next person is let in at once,
/// not when the hold would have expired (ten minutes).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_admission_ends_with_its_hold_even_when_redis_was_away_at_the_time() {
    let db = TestDb::new(Backend::Postgres).await;
    let port = free_port();
    let _redis = own_redis(port);
    let url = format!("redis://127.0.0.1:{port}");
    let prefix = key_prefix();
    let app = TestApp::spawn_with(
        &db,
        "600",
        &[
            ("REDIS_URL", &url),
            ("REDIS_KEY_PREFIX", &prefix),
            ("REDIS_TIMEOUT_MS", "200"),
            ("WAITING_ROOM_POLL_SECONDS", "0.2"),
            ("WAITING_ROOM_REHOLD_SECONDS", "1"),
        ],
    )
    .await;
    let showtime = first_showtime(&app.base).await;
    let op = operator(&app).await;
    set_room(&op, showtime, true, 1).await;
    let queue = app.url(&format!("/showtimes/{showtime}/queue"));
    let (first, second) = (app.customer(), app.customer());
    for c in [&first, &second] {
        let r = c.post(&queue).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::OK);
    }
    let admitted = |c: Session| {
        let queue = queue.clone();
        async move {
            eventually(
                Duration::from_secs(10),
                || async {
                    let place: Value = c
                        .get(&queue)
                        .send()
                        .await
                        .unwrap()
                        .json()
                        .await
                        .unwrap_or(Value::Null);
                    place
                },
                |p| p["state"] == "admitted",
            )
            .await
        }
    };
    let place = admitted(first.clone()).await;
    let token = place["admission"]["token"]
        .as_str()
        .expect("admitted")
        .to_string();
    let (status, held) = hold(&app, &first, showtime, &["A1"], Some(&token)).await;
    assert_eq!(status, StatusCode::CREATED, "{held}");

    // Act: Redis pauses every client for two seconds while the hold is cancelled.
    let mut admin = redis::Client::open(url.as_str())
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap();
    let _: () = redis::cmd("CLIENT")
        .arg("PAUSE")
        .arg(2000)
        .arg("ALL")
        .query_async(&mut admin)
        .await
        .unwrap();
    let r = first
        .delete(app.url(&format!("/holds/{}", held["holdId"].as_str().unwrap())))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{}", r.status());

    // Assert: once Redis is back, the second shopper is admitted (the hold's ten minutes are
    // not waited for).
    let place = admitted(second).await;
    assert_eq!(place["state"], "admitted", "{place}");
}
