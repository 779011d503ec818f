//! Limits that keep anyone from taking what others need, and input that is refused whole: the
//! cool-down after a cancelled or lapsed hold, IPv6 counted by its /56, checkout rate-limited
//! and storing nothing for a hold that is not the caller's, names with control or
//! direction-changing characters, the hall import's larger body, and the conflict answer that
//! comes before the seat rules.

use crate::support::*;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::time::Duration;

const TRUST_LOCAL: (&str, &str) = ("TRUSTED_PROXIES", "127.0.0.1/32");

/// `seats` held for a new customer of `app` at client address `from`: the status and body.
async fn hold_from(
    app: &TestApp,
    showtime: i64,
    seats: &[&str],
    from: &str,
) -> (StatusCode, Value) {
    hold_with(&app.customer(), app, showtime, seats, from).await
}

async fn hold_with(
    client: &reqwest::Client,
    app: &TestApp,
    showtime: i64,
    seats: &[&str],
    from: &str,
) -> (StatusCode, Value) {
    let r = client
        .post(app.url(&format!("/showtimes/{showtime}/holds")))
        .header("x-forwarded-for", from)
        .json(&json!({ "seats": seats }))
        .send()
        .await
        .unwrap();
    let status = r.status();
    (status, r.json().await.unwrap_or(Value::Null))
}

async fn cancel(client: &reqwest::Client, app: &TestApp, hold: &Value, from: &str) {
    let r = client
        .delete(app.url(&format!("/holds/{}", hold["holdId"].as_str().unwrap())))
        .header("x-forwarded-for", from)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_cancelled_or_lapsed_hold_cannot_be_renewed_by_its_customer_or_address() {
    let db = TestDb::new(Backend::Sqlite).await;
    let vars = [TRUST_LOCAL, ("HOLD_COOLDOWN_SECONDS", "600")];
    let app = TestApp::spawn_with(&db, "600", &vars).await;
    let showtime = first_showtime(&app.base).await;
    let home = "198.51.100.20";
    let alice = app.customer();
    // Changing her mind once is fine (a seat more): the seats are held again at once.
    let (status, held) = hold_with(&alice, &app, showtime, &["C5", "C6"], home).await;
    assert_eq!(status, StatusCode::CREATED, "{held}");
    cancel(&alice, &app, &held, home).await;
    let (status, held) = hold_with(&alice, &app, showtime, &["C5", "C6", "C7"], home).await;
    assert_eq!(status, StatusCode::CREATED, "{held}");
    cancel(&alice, &app, &held, home).await;

    // Let go twice: the same seats again are refused, with when to try; so from a new cookie
    // at her address.
    let r = alice
        .post(app.url(&format!("/showtimes/{showtime}/holds")))
        .header("x-forwarded-for", home)
        .json(&json!({ "seats": ["C6", "C7"] }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CONFLICT);
    let wait: u64 = r.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((590..=600).contains(&wait), "{wait}");
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["code"], "RECENTLY_RELEASED", "{body}");
    let (status, body) = hold_from(&app, showtime, &["C5"], home).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::CONFLICT, Some("RECENTLY_RELEASED"))
    );
    // Other seats at once; the same seats for someone elsewhere at once.
    let (status, _) = hold_with(&alice, &app, showtime, &["D5", "D6"], home).await;
    assert_eq!(status, StatusCode::CREATED, "other seats");
    let (status, _) = hold_from(&app, showtime, &["C5", "C6"], "203.0.113.9").await;
    assert_eq!(status, StatusCode::CREATED, "another customer elsewhere");

    // Holds that lapse count too.
    let quick = TestApp::spawn_with(&db, "1", &vars).await;
    let bob = quick.customer();
    for _ in 0..2 {
        let (status, _) = hold_with(&bob, &quick, showtime, &["F9", "F10"], "192.0.2.50").await;
        assert_eq!(status, StatusCode::CREATED);
        tokio::time::sleep(Duration::from_millis(1500)).await;
    }
    let (status, body) = hold_with(&bob, &quick, showtime, &["F9", "F10"], "192.0.2.50").await;
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::CONFLICT, Some("RECENTLY_RELEASED"))
    );

    // Control: without the cool-down, cancelling and holding again keeps the seats for ever.
    let open =
        TestApp::spawn_with(&db, "600", &[TRUST_LOCAL, ("HOLD_COOLDOWN_SECONDS", "0")]).await;
    let carol = open.customer();
    for _ in 0..3 {
        let (status, held) = hold_with(&carol, &open, showtime, &["H1", "H2"], "192.0.2.60").await;
        assert_eq!(status, StatusCode::CREATED, "{held}");
        cancel(&carol, &open, &held, "192.0.2.60").await;
    }
    db.drop_database().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn ipv6_clients_are_counted_by_their_56_and_the_audit_log_keeps_the_address() {
    let db = TestDb::new(Backend::Sqlite).await;
    let vars = [TRUST_LOCAL, ("HELD_SEATS_PER_ADDRESS", "4")];
    let app = TestApp::spawn_with(&db, "600", &vars).await;
    let showtime = first_showtime(&app.base).await;
    let (status, _) = hold_from(&app, showtime, &["E1", "E2", "E3", "E4"], "2001:db8:1:1::1").await;
    assert_eq!(status, StatusCode::CREATED);
    // Another /64 of the same /56: the same subscriber.
    let (status, body) = hold_from(&app, showtime, &["E7", "E8"], "2001:db8:1:2::9").await;
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::CONFLICT, Some("ADDRESS_HOLD_LIMIT")),
        "{body}"
    );
    let (status, _) = hold_from(&app, showtime, &["E7", "E8"], "2001:db8:1:100::9").await;
    assert_eq!(status, StatusCode::CREATED, "another /56");
    // The audit log has the whole address.
    let staff = app.customer();
    let r = staff
        .post(app.url("/api/staff_sign_in"))
        .header("x-forwarded-for", "2001:db8:1:2::9")
        .json(&json!({ "name": "operator", "password": OPERATOR_PASSWORD }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let lines = db.store.staff_audit(10).await.unwrap();
    let sign_in = lines.iter().find(|l| l.action == "sign_in").unwrap();
    assert_eq!(sign_in.address.as_deref(), Some("2001:db8:1:2::9"));
    db.drop_database().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn checkout_is_rate_limited_and_keeps_nothing_for_a_hold_that_is_not_the_caller_s() {
    let db = TestDb::new(Backend::Sqlite).await;
    let vars = [TRUST_LOCAL, ("CHECKOUT_RATE_PER_MINUTE", "3")];
    let app = TestApp::spawn_with(&db, "600", &vars).await;
    let showtime = first_showtime(&app.base).await;
    let keys = || async {
        let pool = sqlx::SqlitePool::connect(&db.url).await.unwrap();
        let n: i64 = sqlx::query_scalar("select count(*) from idempotency_key")
            .fetch_one(&pool)
            .await
            .unwrap();
        n
    };
    // A stranger's checkouts of a hold that does not exist: refused, nothing kept, then limited.
    let stranger = app.customer();
    let nobody = app::domain::HoldId::new(showtime_id(showtime), rand::random());
    let mut statuses = Vec::new();
    for i in 0..5 {
        let r = stranger
            .post(app.url(&format!("/holds/{nobody}/checkout")))
            .header("Idempotency-Key", format!("k{i}"))
            .send()
            .await
            .unwrap();
        statuses.push(r.status().as_u16());
    }
    assert_eq!(statuses, [404, 404, 404, 429, 429]);
    // Another customer's hold: 403, nothing kept either.
    let owner = app.customer();
    let (status, held) = hold_with(&owner, &app, showtime, &["G3", "G4"], "198.51.100.3").await;
    assert_eq!(status, StatusCode::CREATED);
    let r = app
        .customer()
        .post(app.url(&format!(
            "/holds/{}/checkout",
            held["holdId"].as_str().unwrap()
        )))
        .header("Idempotency-Key", "theirs")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    assert_eq!(
        keys().await,
        0,
        "no idempotency key kept for holds that are not the caller's"
    );
    db.drop_database().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn names_with_nul_or_direction_changing_characters_are_refused_on_both_stores() {
    for backend in [Backend::Postgres, Backend::Sqlite] {
        let db = TestDb::new(backend).await;
        let app = TestApp::spawn(&db, "600").await;
        let operator = operator(&app).await;
        let plan = |name: &str, category: &str| {
            json!({ "plan": { "name": name, "categories": [{ "code": "STANDARD", "name": category, "price": 1000 }],
                              "rows": [{ "label": "A", "seats": [{ "number": 1, "category": "STANDARD" }] }] } })
        };
        for (name, category) in [
            ("Hall\u{0}X", "Standard"),
            ("Hall Y", "Std\u{202E}"),
            ("\u{200B}", "Standard"),
        ] {
            let (status, body) = operator.import_hall(plan(name, category)).await;
            assert_eq!(
                status,
                StatusCode::BAD_REQUEST,
                "{backend:?} {name:?} {category:?}: {body}"
            );
        }
        let (status, body) = operator
            .open_shift(json!({ "register": "R\u{0}1", "float": 0 }))
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        let (status, body) = operator
            .open_shift(json!({ "register": "R1", "float": 0 }))
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        let (status, body) = operator
            .check_in_ticket(json!({ "code": "x", "at": { "gate": "G\u{0}" } }))
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        let showtime = first_showtime(&app.base).await;
        let (_, hold) = operator
            .clerk_hold(json!({ "showtime_id": showtime, "best": { "count": 1 } }))
            .await;
        let sale = json!({ "sale": { "holdId": hold["holdId"], "tender": "card", "cardReference": "T\u{0}9" } });
        let (status, body) = operator.sell_at_counter(sale).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        // A NUL in a staff name or a supervisor's name is no account's: refused as such, not 503.
        let r = app
            .customer()
            .post(app.url("/api/staff_sign_in"))
            .json(&json!({ "name": "oper\u{0}ator", "password": "whatever it is" }))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::UNAUTHORIZED, "{backend:?}");
        let (status, body) = operator
            .staff_reset_pin(json!({ "member": "k\u{0}m", "pin": "1234" }))
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        // Ordinary names in any script are kept as typed.
        let (status, body) = operator.import_hall(plan("상영관 7", "커플석")).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        db.drop_database().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_hall_of_three_thousand_seats_is_imported_and_other_bodies_keep_their_limit() {
    let db = TestDb::new(Backend::Sqlite).await;
    let app = TestApp::spawn(&db, "600").await;
    let operator = operator(&app).await;
    // 100 rows of 30 seats, every seat spelt out: well over 64 KiB of JSON.
    let label = |r: usize| {
        format!(
            "{}{}",
            (b'A' + (r / 26) as u8) as char,
            (b'A' + (r % 26) as u8) as char
        )
    };
    let rows: Vec<Value> = (0..100)
        .map(|r| {
            let seats: Vec<Value> = (1..=30)
                .map(|n| json!({ "number": n, "category": "STANDARD", "wheelchair": false }))
                .collect();
            json!({ "label": label(r), "seats": seats })
        })
        .collect();
    let plan = json!({ "plan": { "name": "Arena", "categories": [{ "code": "STANDARD", "name": "Standard", "price": 1000 }], "rows": rows } });
    let text = plan.to_string();
    assert!(text.len() > 64 * 1024, "{} bytes", text.len());
    let (status, body) = operator.import_hall(plan).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["seats"], 3000, "{body}");
    // Past the plan's own limit, and a large body anywhere else: 413 with the JSON error.
    let huge = format!("{{\"plan\": \"{}\"}}", "x".repeat(1_100_000));
    let r = operator
        .post(app.url("/api/import_hall"))
        .header("content-type", "application/json")
        .body(huge)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::PAYLOAD_TOO_LARGE);
    let r = app
        .customer()
        .post(app.url("/api/hold_seats"))
        .header("content-type", "application/json")
        .body(text)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::PAYLOAD_TOO_LARGE);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["code"], "PAYLOAD_TOO_LARGE");
    db.drop_database().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_selection_with_a_taken_seat_answers_409_naming_it_before_any_seat_rule() {
    let db = TestDb::new(Backend::Sqlite).await;
    let app = TestApp::spawn_with(&db, "600", &[("LONE_SEAT_RULE", "on")]).await;
    let showtime = first_showtime(&app.base).await;
    let (status, body) = hold_from(&app, showtime, &["A1", "A2"], "127.0.0.1").await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    // A2 is taken: the answer names it (not the seat the selection would leave alone).
    let (status, body) = hold_from(&app, showtime, &["A2", "A3"], "127.0.0.1").await;
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::CONFLICT, Some("SEATS_UNAVAILABLE")),
        "{body}"
    );
    assert_eq!(body["seats"], json!(["A2"]));
    // The page's server function answers the same.
    let (status, body) = app
        .customer()
        .hold_seats(json!({ "showtime_id": showtime, "seats": ["A2", "A3"] }))
        .await;
    assert_eq!(
        (status, body["kind"].as_str()),
        (StatusCode::CONFLICT, Some("SeatsUnavailable")),
        "{body}"
    );
    // Control: a free selection that leaves a seat alone is still refused by the rule.
    let (status, body) = hold_from(&app, showtime, &["A4"], "127.0.0.1").await;
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("LONE_SEAT")),
        "{body}"
    );
    db.drop_database().await;
}
