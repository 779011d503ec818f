//! The waiting room: its state on both of its homes (in the process, and in Redis shared by
//! several instances) with a clock the test moves, and the room in front of holds over HTTP on
//! both stores.

use crate::support::*;
use app::domain::{CustomerId, HoldId, ShowtimeId};
use reqwest::StatusCode;
use serde_json::{json, Value};
use server::clock::Clock;
use server::redis_link::{RedisLink, RedisTarget};
use server::waiting_room::{AdmitStep, Reserve, RoomPolicy, Step, WaitingRoom};
use std::sync::Arc;
use std::time::Duration;

on_both_backends!(
    holds_need_an_admission_while_the_room_is_on_and_staff_never_queue,
    ten_thousand_joins_at_once_get_ten_thousand_places,
    a_crowd_of_hold_attempts_turns_the_room_on_by_itself,
);

/// With `WAITING_ROOM_AUTO_HOLDS_PER_SECOND=3`, the fourth customer hold attempt within one
/// second turns the showtime's room on: later attempts without an admission answer 403. The
/// control: a showtime held as often, but never more than 3 times in a second, stays open.
async fn a_crowd_of_hold_attempts_turns_the_room_on_by_itself(backend: Backend) {
    let db = TestDb::new(backend).await;
    let app = TestApp::spawn_with(&db, "600", &[("WAITING_ROOM_AUTO_HOLDS_PER_SECOND", "3")]).await;
    let showtimes: Value = get_json(app.url("/showtimes")).await;
    let ids: Vec<i64> = showtimes
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["salesOpen"] == true)
        .map(|s| s["id"].as_i64().unwrap())
        .collect();
    let (calm, crowded) = (ids[0], ids[1]);
    // Control: three holds a second at most (each second waited out on the clock of the test
    // itself, which the server's is: the same machine).
    for round in 0..3 {
        let second = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis();
        tokio::time::sleep(Duration::from_millis((1000 - second % 1000) as u64 + 20)).await;
        for i in 0..3 {
            let seat = format!("{}{}", ["A", "B", "C"][round], i + 1);
            let (status, body) = hold(&app, &app.customer(), calm, &[&seat], None).await;
            assert_eq!(status, StatusCode::CREATED, "{body}");
        }
    }
    // A crowd: eight at once, again, until the room is on.
    let mut refused = None;
    for batch in 0..5 {
        let attempts = (0..8).map(|i| {
            let seat = format!("{}{}", ["D", "E", "F", "G", "H"][batch], i + 1);
            let client = app.customer();
            let app = &app;
            async move { hold(app, &client, crowded, &[&seat], None).await }
        });
        let answers = futures_util::future::join_all(attempts).await;
        if let Some((_, body)) = answers
            .into_iter()
            .find(|(s, _)| *s == StatusCode::FORBIDDEN)
        {
            refused = Some(body);
            break;
        }
    }
    let refused = refused.expect("the crowd turned the room on");
    assert_eq!(refused["code"], "QUEUE_REQUIRED", "{refused}");
    let op = operator(&app).await;
    let (_, view) = op.waiting_room(json!({ "showtime_id": crowded })).await;
    assert_eq!(view["settings"]["on"], true, "{view}");
    let (_, view) = op.waiting_room(json!({ "showtime_id": calm })).await;
    assert_eq!(
        view["settings"]["on"], false,
        "the control stays open: {view}"
    );
}

#[derive(Clone, Copy, Debug)]
pub(crate) enum Home {
    Process,
    Redis,
}

mod in_process {
    use super::*;
    #[tokio::test]
    async fn admissions_never_pass_the_limits_over_a_simulated_hour() {
        super::admissions_never_pass_the_limits(Home::Process, 1).await
    }
    #[tokio::test]
    async fn every_way_a_hold_ends_frees_its_slot() {
        super::every_way_a_hold_ends_frees_its_slot(Home::Process).await
    }
    #[tokio::test]
    async fn shoppers_who_leave_do_not_stall_the_queue() {
        super::shoppers_who_leave_do_not_stall_the_queue(Home::Process).await
    }
    #[tokio::test]
    async fn one_admission_holds_eight_seats_in_all() {
        super::one_admission_holds_eight_seats_in_all(Home::Process).await
    }
    #[tokio::test]
    async fn a_room_nobody_stepped_for_a_while_keeps_its_places() {
        super::a_room_nobody_stepped_for_a_while_keeps_its_places(Home::Process).await
    }
}

mod in_redis {
    use super::*;
    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn admissions_never_pass_the_limits_over_a_simulated_hour_with_three_instances() {
        super::admissions_never_pass_the_limits(Home::Redis, 3).await
    }
    #[tokio::test]
    async fn every_way_a_hold_ends_frees_its_slot() {
        super::every_way_a_hold_ends_frees_its_slot(Home::Redis).await
    }
    #[tokio::test]
    async fn shoppers_who_leave_do_not_stall_the_queue() {
        super::shoppers_who_leave_do_not_stall_the_queue(Home::Redis).await
    }
    #[tokio::test]
    async fn one_admission_holds_eight_seats_in_all() {
        super::one_admission_holds_eight_seats_in_all(Home::Redis).await
    }
    #[tokio::test]
    async fn a_room_nobody_stepped_for_a_while_keeps_its_places() {
        super::a_room_nobody_stepped_for_a_while_keeps_its_places(Home::Redis).await
    }
}

/// A showtime id no other test uses (the Redis keys are per showtime).
pub(crate) fn fresh_showtime() -> ShowtimeId {
    showtime_id(1_000_000 + (uuid::Uuid::new_v4().as_u128() % 1_000_000_000) as i64)
}

/// Keys of this test's own in a shared Redis (fresh databases reuse showtime ids).
pub(crate) fn key_prefix() -> String {
    format!("t{}:", uuid::Uuid::new_v4().simple())
}

pub(crate) fn customer() -> CustomerId {
    CustomerId(uuid::Uuid::new_v4())
}

pub(crate) fn policy() -> RoomPolicy {
    RoomPolicy {
        room_cap: 1_000_000,
        per_address: 1_000_000,
        ..RoomPolicy::default()
    }
}

/// `n` rooms on `home` sharing its state (Redis) — or each its own (in the process) — on one
/// manual clock.
pub(crate) fn rooms(home: Home, n: usize, clock: &Clock) -> Vec<WaitingRoom> {
    (0..n)
        .map(|_| {
            let link = match home {
                Home::Process => None,
                Home::Redis => Some(Arc::new(RedisLink::new(
                    RedisTarget::parse(&redis_url(), false).unwrap(),
                    Duration::from_secs(2),
                ))),
            };
            WaitingRoom::new(link, policy(), b"the tests' admission key", clock.clone())
        })
        .collect()
}

pub(crate) fn step(max_active: u32, per_minute: u32) -> AdmitStep {
    AdmitStep {
        max_active,
        per_minute,
        paused: false,
        // Nobody here leaves unless a test says so.
        grace_ms: 3_600_000,
        admission_ms: 120_000,
        // The time to hold and a ten-minute hold.
        stay_ms: 720_000,
        most_given_up: 500,
        draw_seed: None,
    }
}

/// Joins `n` customers; their (customer, ticket, number).
pub(crate) async fn join_all(
    room: &WaitingRoom,
    s: ShowtimeId,
    n: usize,
) -> Vec<(CustomerId, String, u64)> {
    let mut placed = Vec::with_capacity(n);
    for _ in 0..n {
        let c = customer();
        let a = room.join(s, c, "", false, None).await.unwrap();
        assert_eq!(a.step, Step::Ok);
        placed.push((c, a.ticket, a.number));
    }
    placed
}

/// Over a simulated hour, with customers arriving, holding for a while and finishing, and
/// every instance stepping the room each second: at no moment are more than `max_active`
/// inside, and no 60-second window admits more than `admit_per_minute`. The control runs the
/// same with instances that do not share their state, and must be caught overshooting.
async fn admissions_never_pass_the_limits(home: Home, instances: usize) {
    let verdict = |shared: bool| async move {
        let clock = Clock::manual(t0());
        let rooms = match shared {
            true => rooms(home, instances, &clock),
            false => rooms(Home::Process, 3, &clock),
        };
        let s = fresh_showtime();
        let (max_active, per_minute) = (20, 30);
        let mut admissions: Vec<i64> = Vec::new(); // seconds of each admission
        let mut inside_most = 0;
        let mut rng_state = 7u64;
        let mut next = || {
            rng_state = rng_state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            rng_state >> 33
        };
        for second in 0..3600i64 {
            // Arrivals: a few a second, each instance taking some.
            for i in 0..(next() % 3) as usize {
                let room = &rooms[i % rooms.len()];
                room.join(s, customer(), "", false, None).await.unwrap();
            }
            // Shoppers take 50 s, then 20 s, in turns of ten minutes: now one limit binds, now
            // the other.
            let mut rules = step(max_active, per_minute);
            rules.admission_ms = if (second / 600) % 2 == 0 {
                50_000
            } else {
                20_000
            };
            for room in &rooms {
                let report = room.admit(s, &rules).await.unwrap();
                admissions.extend(std::iter::repeat_n(second, report.admitted as usize));
            }
            // Every instance's view of who is inside (shared state: the same).
            let mut inside = 0;
            for room in &rooms {
                inside += room.counts(s).await.unwrap().inside;
                if shared {
                    break;
                }
            }
            inside_most = inside_most.max(inside);
            clock.advance(chrono::Duration::seconds(1));
        }
        let worst_minute = (0..3600)
            .map(|from| {
                admissions
                    .iter()
                    .filter(|t| (from..from + 60).contains(*t))
                    .count()
            })
            .max()
            .unwrap_or(0);
        (admissions.len(), inside_most, worst_minute)
    };
    let (admitted, inside_most, worst_minute) = verdict(true).await;
    println!("{home:?} ×{instances}: {admitted} admitted in an hour, at most {inside_most} inside, at most {worst_minute} in a minute");
    assert!(inside_most <= 20, "{inside_most} inside at once");
    assert!(
        worst_minute <= 30,
        "{worst_minute} admitted within one minute"
    );
    assert!(
        admitted >= 1400,
        "admissions ran at the limits ({admitted})"
    );
    // Control: three instances each with its own state overshoot, and the check says so.
    let (_, inside_most, worst_minute) = verdict(false).await;
    assert!(
        inside_most > 20 && worst_minute > 30,
        "the control must overshoot ({inside_most} inside, {worst_minute} a minute)"
    );
}

/// With one shopper inside at a time: an admission unused until its deadline, a hold that is
/// cancelled, one that expires and one that is paid each let the next person in at the next
/// step after it ends.
async fn every_way_a_hold_ends_frees_its_slot(home: Home) {
    let clock = Clock::manual(t0());
    let room = rooms(home, 1, &clock).pop().unwrap();
    let s = fresh_showtime();
    let waiting = join_all(&room, s, 5).await;
    let one = step(1, 1000);
    assert_eq!(room.admit(s, &one).await.unwrap().admitted, 1);
    assert_eq!(room.counts(s).await.unwrap().served, 1);

    // 1. Unused: the first lets the admission lapse (120 s).
    let pass = |secs: i64| {
        let (room, clock, one) = (&room, &clock, one.clone());
        async move {
            let mut sum = server::waiting_room::AdmitReport::default();
            for _ in 0..secs {
                clock.advance(chrono::Duration::seconds(1));
                let r = room.admit(s, &one).await.unwrap();
                sum.admitted += r.admitted;
                sum.expired += r.expired;
            }
            sum
        }
    };
    assert_eq!(pass(119).await.admitted, 0, "still inside");
    let r = pass(1).await;
    assert_eq!((r.expired, r.admitted), (1, 1), "lapsed, next admitted");

    // 2. Cancelled: the second holds, then cancels; the slot frees after the re-hold time.
    let (c2, t2, _) = &waiting[1];
    let hold = HoldId::new(s, rand::random());
    assert!(matches!(
        room.reserve(s, Some(t2), *c2, 2).await.unwrap(),
        Reserve::Reserved(_)
    ));
    let hold_until = (t0() + chrono::Duration::seconds(120 + 600)).timestamp_millis();
    room.bind(s, t2, hold, hold_until).await.unwrap();
    assert_eq!(
        pass(300).await.admitted,
        0,
        "holding: still inside past the admission's 120 s"
    );
    room.hold_ended(s, hold, Duration::from_secs(5))
        .await
        .unwrap();
    assert_eq!(
        room.admit(s, &one).await.unwrap().admitted,
        0,
        "time for a new hold"
    );
    assert_eq!(pass(5).await.admitted, 1, "cancelled: next admitted");

    // 3. Expired: the third's hold runs out.
    let (c3, t3, _) = &waiting[2];
    let hold = HoldId::new(s, rand::random());
    assert!(matches!(
        room.reserve(s, Some(t3), *c3, 1).await.unwrap(),
        Reserve::Reserved(_)
    ));
    let now = clock.now().unwrap();
    room.bind(
        s,
        t3,
        hold,
        (now + chrono::Duration::seconds(600)).timestamp_millis(),
    )
    .await
    .unwrap();
    assert_eq!(pass(599).await.admitted, 0);
    assert_eq!(pass(1).await.admitted, 1, "expired: next admitted");

    // 4. Paid (or a failed checkout, whose hold is over too): ends at once.
    let (c4, t4, _) = &waiting[3];
    let hold = HoldId::new(s, rand::random());
    assert!(matches!(
        room.reserve(s, Some(t4), *c4, 1).await.unwrap(),
        Reserve::Reserved(_)
    ));
    let now = clock.now().unwrap();
    room.bind(
        s,
        t4,
        hold,
        (now + chrono::Duration::seconds(600)).timestamp_millis(),
    )
    .await
    .unwrap();
    room.hold_ended(s, hold, Duration::ZERO).await.unwrap();
    assert_eq!(
        room.admit(s, &one).await.unwrap().admitted,
        1,
        "paid: next admitted"
    );
    let (c5, t5, _) = &waiting[4];
    assert!(
        matches!(
            room.reserve(s, Some(t5), *c5, 1).await.unwrap(),
            Reserve::Reserved(_)
        ),
        "the fifth is in"
    );
    assert_eq!(
        room.reserve(s, Some(t4), *c4, 1).await.unwrap(),
        Reserve::NotAdmitted,
        "the paid one's admission is over"
    );
}

/// 100 waiters close their pages; the next one still there is admitted within a step of the
/// grace period, not after 100 admission deadlines.
async fn shoppers_who_leave_do_not_stall_the_queue(home: Home) {
    let clock = Clock::manual(t0());
    let room = rooms(home, 1, &clock).pop().unwrap();
    let s = fresh_showtime();
    let gone = join_all(&room, s, 100).await;
    let stays = join_all(&room, s, 1).await.pop().unwrap();
    let few = AdmitStep {
        grace_ms: 60_000,
        ..step(10, 1000)
    };
    // The first ten are admitted and never hold: their admissions lapse after 120 s. The other
    // 90 are given up after the 60 s grace period instead of costing an admission each.
    for second in 0..=121 {
        // The page that stays is connected: its place is seen every few seconds.
        if second % 5 == 0 {
            room.poll(s, Some(&stays.1), stays.0).await.unwrap();
        }
        room.admit(s, &few).await.unwrap();
        clock.advance(chrono::Duration::seconds(1));
    }
    let r = room.admit(s, &few).await.unwrap();
    let counts = room.counts(s).await.unwrap();
    assert!(
        counts.served >= stays.2,
        "the one who stayed is served ({counts:?}, {r:?})"
    );
    assert!(
        matches!(
            room.reserve(s, Some(&stays.1), stays.0, 1).await.unwrap(),
            Reserve::Reserved(_)
        ),
        "and admitted"
    );
    assert_eq!(counts.abandoned, 90, "{counts:?}");
    assert_eq!(
        room.poll(s, Some(&gone[50].1), gone[50].0)
            .await
            .unwrap()
            .step,
        Step::Gone,
        "a place left for longer than the grace period is gone"
    );
}

/// Redis (or every server) away for longer than the grace period: when the steps resume,
/// nobody is given up at once (their pages could not show they were there) and the admitted
/// shopper's time did not run out meanwhile; a grace period later, those still away are.
async fn a_room_nobody_stepped_for_a_while_keeps_its_places(home: Home) {
    let clock = Clock::manual(t0());
    let room = rooms(home, 1, &clock).pop().unwrap();
    let s = fresh_showtime();
    let placed = join_all(&room, s, 4).await;
    let rules = AdmitStep {
        grace_ms: 60_000,
        ..step(1, 1000)
    };
    assert_eq!(room.admit(s, &rules).await.unwrap().admitted, 1);
    clock.advance(chrono::Duration::seconds(100)); // no step for 100 s
    let r = room.admit(s, &rules).await.unwrap();
    assert_eq!((r.expired, r.given_up), (0, 0), "{r:?}");
    let (c, t, _) = &placed[0];
    assert!(
        matches!(
            room.reserve(s, Some(t), *c, 1).await.unwrap(),
            Reserve::Reserved(_)
        ),
        "the admission is still live"
    );
    // The second's page is back (seen every 20 s); the others stay away past the grace period.
    for second in 0..61 {
        if second % 20 == 0 {
            room.poll(s, Some(&placed[1].1), placed[1].0).await.unwrap();
        }
        clock.advance(chrono::Duration::seconds(1));
        room.admit(s, &rules).await.unwrap();
    }
    let counts = room.counts(s).await.unwrap();
    assert_eq!(counts.abandoned, 2, "{counts:?}");
}

async fn one_admission_holds_eight_seats_in_all(home: Home) {
    let clock = Clock::manual(t0());
    let room = rooms(home, 1, &clock).pop().unwrap();
    let s = fresh_showtime();
    let (c, t, _) = join_all(&room, s, 1).await.pop().unwrap();
    assert_eq!(
        room.reserve(s, Some(&t), c, 1).await.unwrap(),
        Reserve::NotAdmitted,
        "waiting, not admitted"
    );
    room.admit(s, &step(5, 100)).await.unwrap();
    assert_eq!(
        room.reserve(s, Some(&t), customer(), 1).await.unwrap(),
        Reserve::NotAdmitted,
        "another customer's place"
    );
    assert!(matches!(
        room.reserve(s, Some(&t), c, 4).await.unwrap(),
        Reserve::Reserved(_)
    ));
    assert!(
        matches!(
            room.reserve(s, None, c, 3).await.unwrap(),
            Reserve::Reserved(_)
        ),
        "by session"
    );
    assert_eq!(
        room.reserve(s, Some(&t), c, 2).await.unwrap(),
        Reserve::TooManySeats(7)
    );
    room.unreserve(s, &t, 3).await.unwrap(); // a hold that failed gives its seats back
    assert!(matches!(
        room.reserve(s, Some(&t), c, 4).await.unwrap(),
        Reserve::Reserved(_)
    ));
    assert_eq!(
        room.reserve(s, Some(&t), c, 1).await.unwrap(),
        Reserve::TooManySeats(8)
    );
}

/// At a steady admission rate, the estimate a waiter is shown (once there is history) is
/// within 20% of the wait that follows for at least 90% of the waiters.
#[tokio::test]
async fn the_wait_estimate_is_within_a_fifth_of_the_real_wait() {
    let clock = Clock::manual(t0());
    let room = rooms(Home::Process, 1, &clock).pop().unwrap();
    let s = fresh_showtime();
    let placed = join_all(&room, s, 600).await;
    let steady = step(1_000_000, 20);
    let mut estimate: Vec<Option<(i64, f64)>> = vec![None; placed.len()];
    let mut admitted_at: Vec<Option<i64>> = vec![None; placed.len()];
    for second in 0..2400i64 {
        room.admit(s, &steady).await.unwrap();
        let counts = room.counts(s).await.unwrap();
        for (i, (_, _, number)) in placed.iter().enumerate() {
            if admitted_at[i].is_none() && counts.served >= *number {
                admitted_at[i] = Some(second);
            }
            // The first estimate each waiter is shown, after the first 90 s.
            if estimate[i].is_none() && admitted_at[i].is_none() && second >= 90 {
                let position = number - counts.served;
                if let Some(m) = app::domain::wait_minutes(position, counts.per_minute()) {
                    estimate[i] = Some((second, m * 60.0));
                }
            }
        }
        // Pages stay connected.
        if second % 10 == 0 {
            for (c, t, _) in &placed {
                let _ = room.poll(s, Some(t), *c).await;
            }
        }
        clock.advance(chrono::Duration::seconds(1));
    }
    let judged: Vec<f64> = estimate
        .iter()
        .zip(&admitted_at)
        .filter_map(|(e, a)| Some((e.as_ref()?, (*a)?)))
        .filter(|((at, _), admitted)| admitted - at >= 60)
        .map(|((at, est), admitted)| (est - (admitted - at) as f64).abs() / (admitted - at) as f64)
        .collect();
    let close = judged.iter().filter(|e| **e <= 0.2).count();
    let share = close as f64 / judged.len() as f64;
    println!(
        "wait estimate within 20% for {close} of {} waiters ({:.1}%)",
        judged.len(),
        share * 100.0
    );
    assert!(judged.len() >= 400, "{} judged", judged.len());
    assert!(share >= 0.9, "{share}");
}

pub(crate) async fn set_room(op: &Session, showtime: i64, on: bool, max_active: u32) {
    let (status, body) = op.set_waiting_room(json!({ "showtime_id": showtime, "on": on, "max_active": max_active, "admit_per_minute": 600 }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

pub(crate) async fn hold(
    app: &TestApp,
    client: &reqwest::Client,
    showtime: i64,
    seats: &[&str],
    token: Option<&str>,
) -> (StatusCode, Value) {
    let mut r = client
        .post(app.url(&format!("/showtimes/{showtime}/holds")))
        .json(&json!({ "seats": seats }));
    if let Some(t) = token {
        r = r.header("Admission-Token", t);
    }
    let r = r.send().await.unwrap();
    (r.status(), r.json().await.unwrap_or(Value::Null))
}

/// Polls the queue (at the interval it names) until the place is admitted: the admission token.
pub(crate) async fn admitted(app: &TestApp, client: &reqwest::Client, showtime: i64) -> String {
    let url = app.url(&format!("/showtimes/{showtime}/queue"));
    let place = eventually(
        Duration::from_secs(20),
        || async {
            tokio::time::sleep(Duration::from_millis(300)).await;
            let r = client.get(&url).send().await.unwrap();
            r.json::<Value>().await.unwrap()
        },
        |p| p["state"] == "admitted",
    )
    .await;
    assert_eq!(place["state"], "admitted", "{place}");
    place["admission"]["token"].as_str().unwrap().to_string()
}

async fn holds_need_an_admission_while_the_room_is_on_and_staff_never_queue(backend: Backend) {
    let db = TestDb::new(backend).await;
    let (redis, prefix) = (redis_url(), key_prefix());
    let extra: &[(&str, &str)] = match backend {
        Backend::Postgres => &[
            ("REDIS_URL", &redis),
            ("REDIS_KEY_PREFIX", &prefix),
            ("WAITING_ROOM_POLL_SECONDS", "0.2"),
        ],
        Backend::Sqlite => &[("WAITING_ROOM_POLL_SECONDS", "0.2")],
    };
    let app = TestApp::spawn_with(&db, "600", extra).await;
    let showtimes: Value = get_json(app.url("/showtimes")).await;
    let ids: Vec<i64> = showtimes
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["salesOpen"] == true)
        .map(|s| s["id"].as_i64().unwrap())
        .collect();
    let (showtime, other) = (ids[0], ids[1]);
    let op = operator(&app).await;
    let alice = app.customer();

    // Off: a hold needs nothing.
    let (status, body) = hold(&app, &alice, showtime, &["A1"], None).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (status, body) = alice.join_queue(json!({ "showtime_id": showtime })).await;
    assert_eq!(
        (status, body["kind"].as_str()),
        (StatusCode::CONFLICT, Some("NoWaitingRoom")),
        "{body}"
    );

    set_room(&op, showtime, true, 1).await;
    set_room(&op, other, true, 5).await;
    let list: Value = get_json(app.url("/showtimes")).await;
    let listed = list
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == showtime)
        .unwrap();
    assert_eq!(listed["waitingRoom"], true, "the programme says so");

    // On: without an admission, 403 naming the room; nothing held.
    let bob = app.customer();
    let (status, body) = hold(&app, &bob, showtime, &["B1"], None).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(body["code"], "QUEUE_REQUIRED");
    assert_eq!(body["queue"], format!("/showtimes/{showtime}/queue"));
    let (status, body) = bob
        .hold_seats(json!({ "showtime_id": showtime, "seats": ["B1"] }))
        .await;
    assert_eq!(
        (status, body["kind"].as_str()),
        (StatusCode::FORBIDDEN, Some("QueueRequired")),
        "{body}"
    );
    let (status, body) = hold(&app, &bob, showtime, &["B1"], Some("garbage")).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::FORBIDDEN, Some("QUEUE_REQUIRED")),
        "{body}"
    );

    // Bob joins (again: the same place) and is admitted (one inside at most).
    let join = |c: Session| {
        let url = app.url(&format!("/showtimes/{showtime}/queue"));
        async move {
            c.post(url)
                .send()
                .await
                .unwrap()
                .json::<Value>()
                .await
                .unwrap()
        }
    };
    let first = join(bob.clone()).await;
    let again = join(bob.clone()).await;
    assert_eq!(first["ticket"], again["ticket"], "{first} {again}");
    assert_eq!(first["number"], again["number"]);
    let carol = app.customer();
    let carols = join(carol.clone()).await;
    assert!(
        carols["number"].as_u64() > first["number"].as_u64(),
        "{carols}"
    );
    let token = admitted(&app, &bob, showtime).await;

    // Another showtime's room does not take this admission; nor does another customer.
    let (status, body) = hold(&app, &bob, other, &["B1"], Some(&token)).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::FORBIDDEN, Some("QUEUE_REQUIRED")),
        "{body}"
    );
    let (status, body) = hold(&app, &carol, showtime, &["B1"], Some(&token)).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::FORBIDDEN, Some("QUEUE_REQUIRED")),
        "{body}"
    );

    // With it: held. The server function takes the session's admission.
    let (status, body) = hold(&app, &bob, showtime, &["B1", "B2", "B3"], Some(&token)).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let r = bob
        .delete(app.url(&format!("/holds/{}", body["holdId"].as_str().unwrap())))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    let (status, body) = bob
        .hold_seats(json!({ "showtime_id": showtime, "seats": ["C1", "C2", "C3", "C4"] }))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = bob.cancel_hold(json!({ "hold_id": body["holdId"] })).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    // 7 seats held in all: 2 more are one too many.
    let (status, body) = hold(&app, &bob, showtime, &["D1", "D2"], Some(&token)).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::CONFLICT, Some("ADMISSION_SEAT_LIMIT")),
        "{body}"
    );

    // The cancels freed the slot (after the few seconds for a new hold): Carol is admitted.
    let carol_token = admitted(&app, &carol, showtime).await;
    let (status, body) = hold(&app, &carol, showtime, &["E1"], Some(&carol_token)).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (status, body) = hold(&app, &bob, showtime, &["D1"], Some(&token)).await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "Bob's admission ended: {body}"
    );

    // Staff never queue: a clerk at the counter holds without an admission.
    let clerk =
        crate::box_office::member(&app, "kim", server::staff::StaffRole::Clerk, "1111").await;
    let (status, body) = clerk
        .open_shift(json!({ "register": "R1", "float": 0 }))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = clerk
        .clerk_hold(json!({ "showtime_id": showtime, "best": { "count": 2 } }))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");

    // The operator sees the room's figures; off again, holds need nothing.
    let (status, view) = op.waiting_room(json!({ "showtime_id": showtime })).await;
    assert_eq!(status, StatusCode::OK, "{view}");
    assert!(view["admitted"].as_u64().unwrap() >= 2, "{view}");
    assert_eq!(view["inside"], 1, "{view}");
    let (status, body) = carol.waiting_room(json!({ "showtime_id": showtime })).await;
    assert_eq!(
        status,
        StatusCode::UNAUTHORIZED,
        "customers see no figures: {body}"
    );
    set_room(&op, showtime, false, 1).await;
    let dave = app.customer();
    let (status, body) = eventually(
        Duration::from_secs(5),
        || hold(&app, &dave, showtime, &["F1"], None),
        |(s, _)| *s == StatusCode::CREATED,
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
}

/// 10,000 people join at once (200 connections at a time): 10,000 different places numbered
/// 1 to 10,000, no 5xx; joining again keeps the place.
async fn ten_thousand_joins_at_once_get_ten_thousand_places(backend: Backend) {
    let db = TestDb::new(backend).await;
    let (redis, prefix) = (redis_url(), key_prefix());
    let mut extra = vec![
        ("WAITING_ROOM_PLACES_PER_ADDRESS", "100000"),
        ("MAX_CONNECTIONS_PER_ADDRESS", "1000"),
    ];
    if backend == Backend::Postgres {
        extra.push(("REDIS_URL", &redis));
        extra.push(("REDIS_KEY_PREFIX", &prefix));
    }
    let app = TestApp::spawn_with(&db, "600", &extra).await;
    let showtime = first_showtime(&app.base).await;
    let op = operator(&app).await;
    set_room(&op, showtime, true, 1).await;
    // Paused: nobody is admitted while they join, so every place is still waiting.
    let (status, body) = op.set_waiting_room(json!({ "showtime_id": showtime, "on": true, "max_active": 1, "admit_per_minute": 1, "paused": true }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let url = app.url(&format!("/showtimes/{showtime}/queue"));
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(200)
        .build()
        .unwrap();
    use futures_util::StreamExt;
    let answers: Vec<(StatusCode, Value)> = futures_util::stream::iter(0..10_000)
        .map(|_| {
            let (client, url) = (client.clone(), url.clone());
            async move {
                let r = client.post(url).send().await.unwrap();
                (r.status(), r.json::<Value>().await.unwrap_or(Value::Null))
            }
        })
        .buffer_unordered(200)
        .collect()
        .await;
    let failed: Vec<_> = answers
        .iter()
        .filter(|(s, _)| *s != StatusCode::OK)
        .take(3)
        .collect();
    assert!(failed.is_empty(), "{failed:?}");
    let mut numbers: Vec<u64> = answers
        .iter()
        .map(|(_, p)| p["number"].as_u64().unwrap())
        .collect();
    let tickets: std::collections::HashSet<&str> = answers
        .iter()
        .map(|(_, p)| p["ticket"].as_str().unwrap())
        .collect();
    numbers.sort_unstable();
    numbers.dedup();
    assert_eq!((numbers.len(), tickets.len()), (10_000, 10_000));
    assert_eq!((numbers[0], numbers[9_999]), (1, 10_000));
    assert!(answers
        .iter()
        .all(|(_, p)| p["ahead"].as_u64() == p["number"].as_u64().map(|n| n - 1)));
    // Joining again (the same session) keeps the place.
    let me = app.customer();
    let first: Value = me.post(&url).send().await.unwrap().json().await.unwrap();
    let again: Value = me.post(&url).send().await.unwrap().json().await.unwrap();
    assert_eq!(
        (first["number"].as_u64(), &first["ticket"]),
        (Some(10_001), &again["ticket"])
    );
    assert_eq!(again["number"], 10_001);
    // Polling faster than named is refused, and the place stays.
    let r = me.get(&url).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let r = me.get(&url).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::TOO_MANY_REQUESTS);
    assert!(r.headers().contains_key("retry-after"));
    let r = me
        .get(&url)
        .header("Queue-Ticket", first["ticket"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(
        r.status(),
        StatusCode::TOO_MANY_REQUESTS,
        "by ticket, the same place"
    );
}

/// Redis frozen while a room is on: holds of its showtime answer 503 with `Retry-After` and
/// hold nothing; thawed, the queue goes on in its order.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn with_redis_unreachable_holds_fail_closed_and_the_queue_goes_on_after() {
    let db = TestDb::new(Backend::Postgres).await;
    let port = free_port();
    let redis = own_redis(port);
    let url = format!("redis://127.0.0.1:{port}");
    let app = TestApp::spawn_with(
        &db,
        "600",
        &[
            ("REDIS_URL", &url),
            ("REDIS_TIMEOUT_MS", "200"),
            ("WAITING_ROOM_POLL_SECONDS", "0.2"),
        ],
    )
    .await;
    let showtime = first_showtime(&app.base).await;
    let op = operator(&app).await;
    set_room(&op, showtime, true, 1).await;
    let (ann, ben) = (app.customer(), app.customer());
    let queue = app.url(&format!("/showtimes/{showtime}/queue"));
    let a: Value = ann.post(&queue).send().await.unwrap().json().await.unwrap();
    let b: Value = ben.post(&queue).send().await.unwrap().json().await.unwrap();
    assert!(b["number"].as_u64() > a["number"].as_u64());
    let token = admitted(&app, &ann, showtime).await;

    let pid = redis.0.id().to_string();
    let signal = |sig: &str| {
        assert!(std::process::Command::new("kill")
            .args([sig, &pid])
            .status()
            .unwrap()
            .success());
    };
    signal("-STOP");
    let (status, body) = hold(&app, &ann, showtime, &["A1"], Some(&token)).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::SERVICE_UNAVAILABLE, Some("QUEUE_UNAVAILABLE")),
        "{body}"
    );
    assert_eq!(body["retryAfter"], 5);
    assert!(
        db.hold_ids(showtime_id(showtime)).await.is_empty(),
        "nothing held"
    );
    signal("-CONT");
    // Back: Ann's admission is still hers, and Ben is next.
    let (status, body) = eventually(
        Duration::from_secs(10),
        || hold(&app, &ann, showtime, &["A1"], Some(&token)),
        |(s, _)| *s == StatusCode::CREATED,
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let r = ann
        .delete(app.url(&format!("/holds/{}", body["holdId"].as_str().unwrap())))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    admitted(&app, &ben, showtime).await;
}
