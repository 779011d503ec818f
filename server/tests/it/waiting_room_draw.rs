//! The waiting room's opening draw (who joined before sales opened, put in a random order that
//! anyone can repeat from the published seed) on both of its homes, and over HTTP with the
//! server's own step at the opening; and the proof of work a new place costs.

use crate::support::*;
use crate::waiting_room::{fresh_showtime, join_all, rooms, step, Home};
use app::domain::QueueProof;
use reqwest::StatusCode;
use serde_json::{json, Value};
use server::clock::Clock;
use server::waiting_room::{draw, Step, WaitingRoom};
use std::time::Duration;

on_both_backends!(
    the_server_draws_at_the_opening_and_publishes_the_seed,
    a_new_place_costs_a_proof_of_work_when_the_room_asks_one,
);

mod in_process {
    #[tokio::test]
    async fn the_draw_follows_its_seed_and_later_arrivals_queue_behind() {
        super::the_draw_follows_its_seed(super::Home::Process).await
    }
}

mod in_redis {
    #[tokio::test]
    async fn the_draw_follows_its_seed_and_later_arrivals_queue_behind() {
        super::the_draw_follows_its_seed(super::Home::Redis).await
    }
    #[tokio::test]
    async fn the_scripts_draw_is_uniform_by_chi_square() {
        super::the_draw_is_uniform(super::Home::Redis).await
    }
}

/// Each place's (rank by arrival, number) after a draw, by asking the room for each.
async fn drawn_places(
    room: &WaitingRoom,
    s: app::domain::ShowtimeId,
    placed: &[(app::domain::CustomerId, String, u64)],
) -> Vec<(u64, u64)> {
    let mut places = Vec::new();
    for (c, ticket, _) in placed {
        let a = room.poll(s, Some(ticket), *c).await.unwrap();
        assert_eq!(a.step, Step::Ok);
        places.push((a.arrival.expect("in the draw"), a.number));
    }
    places
}

/// 200 join before the opening, 10 of whom leave for good before it. At the opening the 190
/// left are given the numbers they hold between them (11 to 200) in the order
/// `draw::order(seed, 190)` makes, which anyone repeats from the published seed; the epoch
/// moves (pages ask again); admissions follow the drawn order; a later arrival queues behind
/// everyone drawn; a second step with another seed draws nothing.
async fn the_draw_follows_its_seed(home: Home) {
    let clock = Clock::manual(t0());
    let room = rooms(home, 1, &clock).remove(0);
    let s = fresh_showtime();
    let leavers = join_all(&room, s, 10).await;
    clock.advance(chrono::Duration::seconds(120));
    let placed = join_all(&room, s, 190).await;
    let mut before = step(5, 600);
    before.paused = true; // sales not open: nobody is let in, nothing is drawn
    before.grace_ms = 60_000;
    assert_eq!(room.admit(s, &before).await.unwrap().given_up, 10);
    let epoch = room.counts(s).await.unwrap().epoch;
    let a = room.poll(s, Some(&placed[0].1), placed[0].0).await.unwrap();
    assert_eq!((a.arrival, a.drawn), (None, None), "nothing drawn yet");
    assert!(room
        .poll(s, Some(&leavers[0].1), leavers[0].0)
        .await
        .is_ok_and(|a| a.step == Step::Gone));

    let seed = "c0ffee00c0ffee00c0ffee00c0ffee00".to_string();
    let mut opening = step(5, 600);
    opening.draw_seed = Some(seed.clone());
    opening.grace_ms = 3_600_000;
    // Past the least time between two polls of a place (asked above).
    clock.advance(chrono::Duration::seconds(3));
    let report = room.admit(s, &opening).await.unwrap();
    let counts = room.counts(s).await.unwrap();
    let drawn = counts.drawn.clone().expect("drawn at the opening");
    assert_eq!((drawn.seed.as_str(), drawn.entrants), (seed.as_str(), 190));
    assert_eq!(counts.epoch, epoch + 1, "pages are told to ask again");

    // The draw, repeated from the seed: the k-th number goes to arrival order[k].
    let order = draw::order(&seed, 190);
    let mut places = drawn_places(&room, s, &placed).await;
    places.sort_by_key(|(_, number)| *number);
    let expected: Vec<(u64, u64)> = order
        .iter()
        .enumerate()
        .map(|(k, arrival)| (*arrival as u64 + 1, 11 + k as u64))
        .collect();
    assert_eq!(places, expected);
    assert_ne!(
        order,
        (0..190).collect::<Vec<_>>(),
        "the order of arrival is not kept"
    );
    // The first admitted are the first drawn.
    assert!(report.admitted > 0);
    for (arrival, _) in &expected[..report.admitted as usize] {
        let (c, ticket, _) = &placed[*arrival as usize - 1];
        let a = room.poll(s, Some(ticket), *c).await.unwrap();
        assert!(a.deadline_ms.is_some(), "arrival {arrival} was drawn first");
    }

    let late = join_all(&room, s, 1).await;
    assert_eq!(late[0].2, 201, "behind everyone drawn");
    let mut again = opening.clone();
    again.draw_seed = Some("another".into());
    clock.advance(chrono::Duration::seconds(3));
    room.admit(s, &again).await.unwrap();
    assert_eq!(
        room.counts(s).await.unwrap().drawn,
        Some(drawn),
        "drawn once"
    );
    let mut after = drawn_places(&room, s, &placed).await;
    after.sort_by_key(|(_, number)| *number);
    assert_eq!(after, expected, "nobody's number moved");
}

/// Pearson's chi-square over (arrival, drawn place) for 6 places in 1,200 openings run by the
/// room itself (the Redis script): 25 degrees of freedom, above 52.6 once in a thousand sets of
/// seeds for a uniform draw. The seeds are fixed (`opening-0000` …), so the figure is the same
/// on every run and a pass is not luck of the day; each opening's order is also the one
/// `draw::order` repeats from its seed. The control, a server that gave every opening the same
/// seed (one order, over and over), lands far above the limit.
async fn the_draw_is_uniform(home: Home) {
    const N: usize = 6;
    const OPENINGS: usize = 1_200;
    let clock = Clock::manual(t0());
    let room = rooms(home, 1, &clock).remove(0);
    let mut cells = [[0u32; N]; N];
    let mut repeated = [[0u32; N]; N];
    for k in 0..OPENINGS {
        let s = fresh_showtime();
        let placed = join_all(&room, s, N).await;
        let mut opening = step(1, 600);
        opening.paused = true;
        let seed = format!("opening-{k:04}");
        opening.draw_seed = Some(seed.clone());
        room.admit(s, &opening).await.unwrap();
        let mut places = drawn_places(&room, s, &placed).await;
        for (arrival, number) in &places {
            cells[*arrival as usize - 1][*number as usize - 1] += 1;
        }
        places.sort_by_key(|(_, number)| *number);
        let repeated_from_seed: Vec<u64> = draw::order(&seed, N)
            .into_iter()
            .map(|a| a as u64 + 1)
            .collect();
        assert_eq!(
            places.iter().map(|(a, _)| *a).collect::<Vec<_>>(),
            repeated_from_seed,
            "opening {k}: the script's order is the seed's"
        );
        let same = draw::order("the same seed every time", N);
        for (place, arrival) in same.into_iter().enumerate() {
            repeated[arrival][place] += 1;
        }
    }
    let (uniform, control) = (
        draw::chi_square(&cells, OPENINGS),
        draw::chi_square(&repeated, OPENINGS),
    );
    println!("{home:?}: chi-square {uniform:.1} over 25 degrees of freedom; control {control:.1}");
    assert!(uniform < 52.6, "chi-square {uniform:.1}");
    assert!(control > 1000.0, "the control's chi-square {control:.1}");
}

/// A place of `client` in the showtime's queue, and the answer's status.
async fn join(
    app: &TestApp,
    client: &reqwest::Client,
    showtime: i64,
    proof: Option<&str>,
) -> (StatusCode, Value) {
    let mut r = client.post(app.url(&format!("/showtimes/{showtime}/queue")));
    if let Some(p) = proof {
        r = r.header("Queue-Proof", p);
    }
    let r = r.send().await.unwrap();
    (r.status(), r.json().await.unwrap_or(Value::Null))
}

fn room_env(backend: Backend, redis: &str, prefix: &str) -> Vec<(String, String)> {
    let mut env = vec![("WAITING_ROOM_POLL_SECONDS".to_string(), "0.2".to_string())];
    if backend == Backend::Postgres {
        env.push(("REDIS_URL".into(), redis.into()));
        env.push(("REDIS_KEY_PREFIX".into(), prefix.into()));
    }
    env
}

/// The room as the console shows it.
async fn room_view(op: &Session, showtime: i64) -> Value {
    let (status, view) = op.waiting_room(json!({ "showtime_id": showtime })).await;
    assert_eq!(status, StatusCode::OK, "{view}");
    view
}

async fn spawn(db: &TestDb, backend: Backend) -> TestApp {
    let env = room_env(backend, &redis_url(), &crate::waiting_room::key_prefix());
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    TestApp::spawn_with(db, "600", &env).await
}

/// A showtime on sale in a few seconds with a room that draws: five who join before the
/// opening are told the draw is pending; at the opening the server's own step draws them, each
/// place then names the seed, the entrants and its rank by arrival, and the order is the one
/// `draw::order` repeats from the seed; the console shows the seed; a later arrival queues
/// behind them.
async fn the_server_draws_at_the_opening_and_publishes_the_seed(backend: Backend) {
    let db = TestDb::new(backend).await;
    let app = spawn(&db, backend).await;
    let opens = chrono::Utc::now() + chrono::Duration::seconds(5);
    let showtime = db
        .showtime_selling(
            chrono::Utc::now() + chrono::Duration::days(1),
            Some(opens),
            None,
        )
        .await
        .get();
    let op = operator(&app).await;
    let settings = json!({ "showtime_id": showtime, "on": true, "max_active": 1,
                           "admit_per_minute": 600, "shuffle": true });
    let (status, body) = op.set_waiting_room(settings).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["settings"]["shuffle"], true, "{body}");

    let clients: Vec<Session> = (0..5).map(|_| app.customer()).collect();
    let mut numbers = Vec::new();
    for c in &clients {
        let (status, place) = join(&app, c, showtime, None).await;
        assert_eq!(status, StatusCode::OK, "{place}");
        assert_eq!(place["draw"]["pending"], true, "{place}");
        numbers.push(place["number"].as_u64().unwrap());
    }
    assert!(
        chrono::Utc::now() < opens,
        "the joins took longer than the time before the opening: nothing to test"
    );
    let url = app.url(&format!("/showtimes/{showtime}/queue"));
    let ask = |c: &reqwest::Client| {
        let (c, url) = (c.clone(), url.clone());
        async move {
            tokio::time::sleep(Duration::from_millis(250)).await;
            c.get(&url)
                .send()
                .await
                .unwrap()
                .json::<Value>()
                .await
                .unwrap()
        }
    };
    let first = eventually(
        Duration::from_secs(30),
        || ask(&clients[0]),
        |p| p["draw"]["seed"].is_string(),
    )
    .await;
    let seed = first["draw"]["seed"].as_str().expect("drawn").to_string();
    assert_eq!(first["draw"]["entrants"], 5, "{first}");
    let order = draw::order(&seed, 5);
    for (i, c) in clients.iter().enumerate() {
        let place = eventually(Duration::from_secs(5), || ask(c), |p| p["number"].is_u64()).await;
        assert_eq!(place["draw"]["arrival"], i as u64 + 1, "{place}");
        let k = order.iter().position(|a| *a == i).unwrap();
        assert_eq!(
            place["number"],
            numbers[k],
            "arrival {} drawn {k}th: {place}",
            i + 1
        );
    }
    let view = room_view(&op, showtime).await;
    assert_eq!(view["draw"]["seed"], seed.as_str(), "{view}");
    let (status, late) = join(&app, &app.customer(), showtime, None).await;
    assert_eq!(status, StatusCode::OK, "{late}");
    assert!(late["number"].as_u64().unwrap() > *numbers.iter().max().unwrap());
    assert_eq!(late["draw"]["arrival"], Value::Null, "{late}");
}

/// With `proof_bits` 12, a new place needs `Queue-Proof: <challenge>:<nonce>`: without it, or
/// with a nonce that does not solve it, or with another customer's challenge, 403
/// `PROOF_REQUIRED` with a challenge and nothing joined; solved, the place; joining again
/// needs no new proof. Malformed proofs are 400; difficulty past 24 bits is refused. The
/// control: the same customer without a proof while the room asks none joins at once.
async fn a_new_place_costs_a_proof_of_work_when_the_room_asks_one(backend: Backend) {
    let db = TestDb::new(backend).await;
    let app = spawn(&db, backend).await;
    let showtime = db.showtime().await.get();
    let op = operator(&app).await;
    let set = |bits: u32| {
        json!({ "showtime_id": showtime, "on": true, "max_active": 5,
                "admit_per_minute": 600, "proof_bits": bits })
    };
    let (status, body) = op.set_waiting_room(set(25)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(
        body.to_string().contains("invalid.room.proof_bits"),
        "{body}"
    );
    let (status, body) = op.set_waiting_room(set(12)).await;
    assert_eq!(status, StatusCode::OK, "{body}");

    let (alice, bob) = (app.customer(), app.customer());
    let (status, asked) = join(&app, &alice, showtime, None).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{asked}");
    assert_eq!(
        (asked["code"].clone(), asked["bits"].clone()),
        (json!("PROOF_REQUIRED"), json!(12))
    );
    let challenge = asked["challenge"].as_str().unwrap().to_string();
    let nonce = QueueProof::search(&challenge, 12, 0, 1 << 26).expect("solved");
    let wrong = (0..)
        .find(|n| !QueueProof::solves(&challenge, *n, 12))
        .unwrap();
    let (status, body) = join(
        &app,
        &alice,
        showtime,
        Some(&format!("{challenge}:{wrong}")),
    )
    .await;
    assert_eq!(
        (status, body["code"].clone()),
        (StatusCode::FORBIDDEN, json!("PROOF_REQUIRED"))
    );
    let (status, body) = join(&app, &bob, showtime, Some(&format!("{challenge}:{nonce}"))).await;
    assert_eq!(
        (status, body["code"].clone()),
        (StatusCode::FORBIDDEN, json!("PROOF_REQUIRED")),
        "another customer's proof: {body}"
    );
    for bad in ["no-colon", "abc:-1", "abc:1.5"] {
        let (status, body) = join(&app, &alice, showtime, Some(bad)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}: {body}");
    }
    let view = room_view(&op, showtime).await;
    assert_eq!(view["waiting"], 0, "nothing joined yet: {view}");

    let (status, place) = join(
        &app,
        &alice,
        showtime,
        Some(&format!("{challenge}:{nonce}")),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{place}");
    let (status, again) = join(&app, &alice, showtime, None).await;
    assert_eq!(status, StatusCode::OK, "{again}");
    assert_eq!(again["ticket"], place["ticket"]);

    // The control: no proof asked, Bob joins without one.
    let (status, body) = op.set_waiting_room(set(0)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let joined = eventually(
        Duration::from_secs(5),
        || async {
            tokio::time::sleep(Duration::from_millis(200)).await;
            join(&app, &bob, showtime, None).await
        },
        |(status, _)| *status == StatusCode::OK,
    )
    .await;
    assert_eq!(joined.0, StatusCode::OK, "{}", joined.1);
}
