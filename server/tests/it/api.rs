//! HTTP tests: the server on a random port over a fresh database (PostgreSQL and SQLite), real
//! HTTP requests, every status code of the REST API.

use crate::support::*;
use reqwest::StatusCode;
use serde_json::{json, Value};

on_both_backends!(
    health_is_200_when_the_database_answers,
    showtimes_are_listed_in_camel_case,
    the_seat_map_has_every_seat_with_layout_and_status,
    unknown_or_malformed_showtimes_are_404_and_400,
    a_hold_is_201_and_a_competing_hold_is_409_naming_the_seats_with_nothing_held,
    bad_hold_requests_are_400_with_a_json_error_and_change_nothing,
    an_oversized_body_is_413_and_changes_nothing,
    cancel_is_204_for_the_owner_403_for_others_404_for_unknown_400_for_garbage,
    the_session_cookie_is_signed_and_http_only_and_a_forged_one_is_not_trusted,
    an_expired_hold_frees_its_seats_for_others,
    the_pages_are_rendered_on_the_server,
    pages_speak_the_language_the_browser_asks_for_unless_the_customer_chose,
    the_seat_map_revalidates_with_its_etag_and_follows_changes_at_once,
    without_redis_the_rate_limit_is_kept_in_process_and_the_sixth_attempt_is_429,
    a_cookieless_script_is_stopped_while_a_customer_behind_another_address_is_not,
    one_customer_has_one_live_hold_per_showtime_even_when_sending_many_at_once,
    a_showtime_that_has_started_is_listed_closed_and_sells_nothing,
);

/// Sales close at the start: a showtime that started a minute ago is listed (it is today's)
/// as closed, its seat map and page say so, and a hold is refused with nothing held.
async fn a_showtime_that_has_started_is_listed_closed_and_sells_nothing(backend: Backend) {
    let db = TestDb::new(backend).await;
    let app = TestApp::spawn(&db, "600").await;
    let started = db
        .showtime_at(chrono::Utc::now() - chrono::Duration::minutes(1))
        .await;
    let list: Vec<Value> = get_json(app.url("/showtimes")).await;
    let listed = list
        .iter()
        .find(|s| s["id"] == started.get())
        .expect("today's showtime is listed");
    assert_eq!(listed["salesOpen"], false);
    // It says when it ends: its start and its running time (two hours unless set).
    let at = |field: &str| {
        chrono::DateTime::parse_from_rfc3339(listed[field].as_str().unwrap()).unwrap()
    };
    assert_eq!(
        at("endsAt") - at("startsAt"),
        chrono::Duration::minutes(120)
    );
    let open = grand_showtime(&app).await;
    assert_eq!(
        list.iter().find(|s| s["id"] == open).unwrap()["salesOpen"],
        true
    );
    let map: Value = get_json(app.url(&format!("/showtimes/{}/seats", started.get()))).await;
    assert_eq!(map["salesOpen"], false);
    let (status, body) = hold(
        &app.customer(),
        &app,
        started.get(),
        json!({"seats": ["A1"]}),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(body["code"], "SALES_CLOSED");
    assert_eq!(db.stored(started).await["A1"].0, "AVAILABLE");
    let page = get_text(app.url(&format!("/showtimes/{}", started.get()))).await;
    assert!(page.contains("data-test=\"sales-closed\""));
    assert!(
        !page.contains("data-test=\"hold-button\""),
        "no hold button"
    );
    let page = get_text(app.url(&format!("/showtimes/{open}"))).await;
    assert!(!page.contains("data-test=\"sales-closed\""));
    // The console counts it as begun (no seats of it to take off sale; still cancelled if the
    // show breaks down), one of this morning as ended (no "Cancel showtime"), and the one still
    // to come as neither.
    let ended = db
        .showtime_at(chrono::Utc::now() - chrono::Duration::hours(6))
        .await;
    let operator = operator(&app).await;
    let (_, counts) = operator.showtime_figures(json!({})).await;
    let flags = |id: i64| {
        counts
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["id"] == id)
            .map(|s| (s["started"].clone(), s["ended"].clone()))
    };
    assert_eq!(
        flags(started.get()),
        Some((json!(true), json!(false))),
        "{counts}"
    );
    assert_eq!(flags(ended.get()), Some((json!(true), json!(true))));
    assert_eq!(flags(open), Some((json!(false), json!(false))));
    let console = operator
        .get(app.url("/admin/halls"))
        .header("accept", "text/html")
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let row = |id: app::domain::ShowtimeId| {
        let marker = format!(
            "data-test=\"showtime-count\" data-showtime=\"{}\"",
            id.get()
        );
        let rest = console.split(&marker).nth(1).expect("the showtime's row");
        rest[..rest.find("</tr>").unwrap()].to_string()
    };
    let (over, running) = (row(ended), row(started));
    assert!(over.contains("data-test=\"showtime-ended\""), "{over}");
    assert!(!over.contains("cancel-showtime"), "{over}");
    assert!(running.contains("cancel-showtime"), "{running}");
    // The seats-off-sale form offers neither.
    let form = console
        .split("data-test=\"block-showtime\"")
        .nth(1)
        .unwrap();
    let form = &form[..form.find("</select>").unwrap()];
    for id in [started, ended] {
        assert!(
            !form.contains(&format!("<option value=\"{}\"", id.get())),
            "{form}"
        );
    }
    assert!(
        form.contains(&format!("<option value=\"{open}\"")),
        "{form}"
    );
}

/// Holds `seats` for `client` on `app` with `X-Forwarded-For: xff`; the status and the code.
async fn hold_from(
    client: &reqwest::Client,
    app: &TestApp,
    showtime: i64,
    seats: &[String],
    xff: &str,
) -> (StatusCode, String) {
    let r = client
        .post(app.url(&format!("/showtimes/{showtime}/holds")))
        .header("x-forwarded-for", xff)
        .json(&json!({ "seats": seats }))
        .send()
        .await
        .unwrap();
    let status = r.status();
    let body: Value = r.json().await.unwrap_or(Value::Null);
    (
        status,
        body["code"].as_str().unwrap_or_default().to_string(),
    )
}

/// Eight seats of row `row`.
fn row_of_eight(row: char) -> Vec<String> {
    (1..=8).map(|n| format!("{row}{n}")).collect()
}

/// A script that sends no cookie is a new customer with every request; the per-customer
/// limits do not see it, the per-address ones do: its address may hold 40 seats of a showtime
/// and try 10 times a minute. A customer behind another address is not affected. Addresses
/// come from X-Forwarded-For only because the peer is a configured trusted proxy; without one,
/// an invented header changes nothing.
async fn a_cookieless_script_is_stopped_while_a_customer_behind_another_address_is_not(
    backend: Backend,
) {
    let db = TestDb::new(backend).await;
    let limits = [
        ("HOLD_RATE_PER_ADDRESS", "10"),
        ("HELD_SEATS_PER_ADDRESS", "40"),
        ("HOLDS_PER_CUSTOMER", "1"),
    ];
    let mut vars = limits.to_vec();
    vars.push(("TRUSTED_PROXIES", "127.0.0.1/32"));
    let app = TestApp::spawn_with(&db, "600", &vars).await;
    let id = grand_showtime(&app).await;
    let script = "203.0.113.7";
    let mut outcomes = Vec::new();
    for row in "ABCDEFGHIJKL".chars() {
        // A client without a cookie jar: every request a new customer.
        let (status, code) = hold_from(
            &reqwest::Client::new(),
            &app,
            id,
            &row_of_eight(row),
            script,
        )
        .await;
        outcomes.push((status, code));
    }
    let held = outcomes
        .iter()
        .filter(|(s, _)| *s == StatusCode::CREATED)
        .count();
    assert_eq!(held, 5, "40 seats, then no more: {outcomes:?}");
    assert!(outcomes
        .iter()
        .any(|(s, c)| *s == StatusCode::CONFLICT && c == "ADDRESS_HOLD_LIMIT"));
    assert_eq!(
        outcomes.last().unwrap(),
        &(StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED".to_string()),
        "the 11th attempt in a minute: {outcomes:?}"
    );
    let stored = db.stored(showtime_id(id)).await;
    let seats_held = stored.values().filter(|(s, _)| s == "HELD").count();
    assert_eq!(seats_held, 40);
    // Someone behind another address holds as usual.
    let (status, _) = hold_from(&app.customer(), &app, id, &["M1".into()], "198.51.100.2").await;
    assert_eq!(status, StatusCode::CREATED);

    // Without a trusted proxy the header is the client's own invention: inventing a new one
    // per request does not escape the cap of the address it really comes from.
    let direct = TestApp::spawn_with(&db, "600", &limits).await;
    let mut outcomes = Vec::new();
    for (i, row) in "FGHIJK".chars().enumerate() {
        let xff = format!("192.0.2.{i}");
        let client = reqwest::Client::new();
        outcomes.push(hold_from(&client, &direct, id, &row_of_eight(row), &xff).await);
    }
    let created = outcomes
        .iter()
        .filter(|(s, _)| *s == StatusCode::CREATED)
        .count();
    assert_eq!(created, 5, "{outcomes:?}");
    assert_eq!(
        outcomes.last().unwrap(),
        &(StatusCode::CONFLICT, "ADDRESS_HOLD_LIMIT".to_string())
    );
}

/// One customer (one cookie) holds at most one live hold in a showtime, however the holds are
/// sent: one after another or many at once. A cancelled hold frees the turn. The control: with
/// no cap, the same burst makes several holds — so the burst does reach the database at once.
async fn one_customer_has_one_live_hold_per_showtime_even_when_sending_many_at_once(
    backend: Backend,
) {
    let db = TestDb::new(backend).await;
    let capped = TestApp::spawn_with(&db, "600", &[("HOLDS_PER_CUSTOMER", "1")]).await;
    let id = first_showtime(&capped.base).await;
    let burst = |app: &TestApp, client: Session, rows: &'static str| {
        let url = app.url(&format!("/showtimes/{id}/holds"));
        let page = app.url("/");
        async move {
            // The customer's cookie first (a page sets it), then the burst.
            client.get(page).send().await.unwrap();
            let sends = rows.chars().map(|row| {
                client
                    .post(url.clone())
                    .json(&json!({ "seats": row_of_eight(row) }))
                    .send()
            });
            futures_util::future::join_all(sends)
                .await
                .into_iter()
                .map(|r| r.unwrap().status())
                .filter(|s| *s == StatusCode::CREATED)
                .count()
        }
    };
    let alice = capped.customer();
    assert_eq!(burst(&capped, alice.clone(), "ABCDE").await, 1, "one hold");
    let (status, body) = hold(&alice, &capped, id, json!({"seats": ["F1"]})).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(body["code"], "HOLD_LIMIT");
    // Cancelling frees the turn.
    let holds: Vec<String> = db
        .stored(showtime_id(id))
        .await
        .values()
        .filter(|(s, _)| s == "HELD")
        .map(|(_, h)| h.unwrap().to_string())
        .collect();
    let r = alice
        .delete(capped.url(&format!("/holds/{}", holds[0])))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    let (status, _) = hold(&alice, &capped, id, json!({"seats": ["F1"]})).await;
    assert_eq!(status, StatusCode::CREATED);

    // The control: the same burst with no cap makes several holds.
    let open = TestApp::spawn_with(&db, "600", &[("HOLDS_PER_CUSTOMER", "0")]).await;
    let made = burst(&open, open.customer(), "GHIJ").await;
    assert!(made > 1, "uncapped, the burst made {made} holds");
}

async fn setup(backend: Backend) -> (TestDb, TestApp, i64) {
    let db = TestDb::new(backend).await;
    let app = TestApp::spawn(&db, "600").await;
    let id = grand_showtime(&app).await;
    (db, app, id)
}

/// The second demo hall's first showtime on sale (more than an hour ahead): 300 seats, rows A–O.
async fn grand_showtime(app: &TestApp) -> i64 {
    let list: Vec<Value> = get_json(app.url("/showtimes")).await;
    let later = chrono::Utc::now() + chrono::Duration::hours(1);
    list.iter()
        .find(|s| {
            s["seatsTotal"] == 300
                && s["salesOpen"] == true
                && s["startsAt"]
                    .as_str()
                    .unwrap()
                    .parse::<chrono::DateTime<chrono::Utc>>()
                    .unwrap()
                    > later
        })
        .expect("a 300-seat demo showtime on sale")["id"]
        .as_i64()
        .unwrap()
}

async fn statuses(app: &TestApp, showtime: i64) -> Vec<(String, String)> {
    let map: Value = get_json(app.url(&format!("/showtimes/{showtime}/seats"))).await;
    map["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["code"].as_str().unwrap().to_string(),
                s["status"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

async fn hold(
    client: &reqwest::Client,
    app: &TestApp,
    showtime: i64,
    body: Value,
) -> (StatusCode, Value) {
    let r = client
        .post(app.url(&format!("/showtimes/{showtime}/holds")))
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = r.status();
    (status, r.json().await.unwrap_or(Value::Null))
}

async fn health_is_200_when_the_database_answers(backend: Backend) {
    let db = TestDb::new(backend).await;
    let app = TestApp::spawn(&db, "600").await;
    let r = reqwest::get(app.url("/health")).await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["status"], "ok");
    assert_eq!(
        body["database"],
        if backend == Backend::Postgres {
            "postgres"
        } else {
            "sqlite"
        }
    );
}

async fn showtimes_are_listed_in_camel_case(backend: Backend) {
    let (_db, app, _) = setup(backend).await;
    let r = reqwest::get(app.url("/showtimes")).await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let list: Value = r.json().await.unwrap();
    let list = list.as_array().unwrap();
    assert_eq!(list.len(), 24, "two halls × three showtimes × four days");
    for s in list {
        for field in [
            "id",
            "movieTitle",
            "hallId",
            "hallName",
            "startsAt",
            "seatsTotal",
            "seatsAvailable",
        ] {
            assert!(!s[field].is_null(), "{field} missing in {s}");
        }
    }
    assert!(list.iter().any(|s| s["seatsTotal"] == 120));
}

async fn the_seat_map_has_every_seat_with_layout_and_status(backend: Backend) {
    let (_db, app, id) = setup(backend).await;
    let r = reqwest::get(app.url(&format!("/showtimes/{id}/seats")))
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let map: Value = r.json().await.unwrap();
    assert_eq!(map["showtimeId"], id);
    let seats = map["seats"].as_array().unwrap();
    assert_eq!(seats.len(), 300);
    let f5 = seats.iter().find(|s| s["code"] == "F5").unwrap();
    assert_eq!(f5["status"], "AVAILABLE");
    assert_eq!(f5["row"], "F");
    assert_eq!(f5["number"], 5);
    for field in ["x", "y", "category", "price", "accessible", "version"] {
        assert!(!f5[field].is_null(), "{field} missing");
    }
    assert_eq!(seats.iter().filter(|s| s["accessible"] == true).count(), 4);
    let prices: Vec<i64> = map["categories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["price"].as_i64().unwrap())
        .collect();
    assert_eq!(prices, [12_000, 15_000]);
}

async fn unknown_or_malformed_showtimes_are_404_and_400(backend: Backend) {
    let (_db, app, _) = setup(backend).await;
    let client = app.customer();
    let r = client
        .get(app.url("/showtimes/999999/seats"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["code"], "SHOWTIME_NOT_FOUND");
    assert!(body["error"].as_str().unwrap().contains("999999"));
    let r = client
        .get(app.url("/showtimes/abc/seats"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    assert!(r.json::<Value>().await.unwrap()["error"]
        .as_str()
        .unwrap()
        .contains("abc"));
    let (status, body) = hold(&client, &app, 999_999, json!({"seats": ["F5"]})).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::NOT_FOUND, Some("SHOWTIME_NOT_FOUND"))
    );
}

async fn a_hold_is_201_and_a_competing_hold_is_409_naming_the_seats_with_nothing_held(
    backend: Backend,
) {
    let (_db, app, id) = setup(backend).await;
    let (alice, bob) = (app.customer(), app.customer());
    let r = alice
        .post(app.url(&format!("/showtimes/{id}/holds")))
        .json(&json!({"seats": ["F5", "F6"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let location = r.headers()["location"].to_str().unwrap().to_string();
    let body: Value = r.json().await.unwrap();
    let hold_id = body["holdId"].as_str().unwrap();
    assert_eq!(location, format!("/holds/{hold_id}"));
    let expires =
        chrono::DateTime::parse_from_rfc3339(body["expiresAt"].as_str().unwrap()).unwrap();
    let left = expires
        .signed_duration_since(chrono::Utc::now())
        .num_seconds();
    assert!(
        (590..=600).contains(&left),
        "expires in about 10 minutes, not {left}s"
    );

    let (status, body) = hold(&bob, &app, id, json!({"seats": ["F6", "F7"]})).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(body["seats"], json!(["F6"]));
    assert_eq!(body["code"], "SEATS_UNAVAILABLE");
    let map = statuses(&app, id).await;
    let status_of = |c: &str| map.iter().find(|(code, _)| code == c).unwrap().1.clone();
    assert_eq!(
        status_of("F7"),
        "AVAILABLE",
        "the loser's other seat was not held"
    );
    assert_eq!(status_of("F5"), "HELD");
    assert_eq!(status_of("F6"), "HELD");
}

async fn bad_hold_requests_are_400_with_a_json_error_and_change_nothing(backend: Backend) {
    let (_db, app, id) = setup(backend).await;
    let client = app.customer();
    let before = statuses(&app, id).await;
    let nine: Vec<String> = (1..=9).map(|n| format!("A{n}")).collect();
    let cases: Vec<(&str, reqwest::RequestBuilder, &str)> = vec![
        (
            "malformed JSON",
            client
                .post(app.url(&format!("/showtimes/{id}/holds")))
                .header("content-type", "application/json")
                .body("{\"seats\": [\"F5\""),
            "invalid JSON",
        ),
        (
            "no body",
            client.post(app.url(&format!("/showtimes/{id}/holds"))),
            "JSON body",
        ),
        (
            "seats missing",
            client
                .post(app.url(&format!("/showtimes/{id}/holds")))
                .json(&json!({"seat": ["F5"]})),
            "seat",
        ),
        (
            "seats not a list",
            client
                .post(app.url(&format!("/showtimes/{id}/holds")))
                .json(&json!({"seats": "F5"})),
            "invalid JSON",
        ),
        (
            "empty list",
            client
                .post(app.url(&format!("/showtimes/{id}/holds")))
                .json(&json!({"seats": []})),
            "at least one",
        ),
        (
            "nine seats",
            client
                .post(app.url(&format!("/showtimes/{id}/holds")))
                .json(&json!({"seats": nine})),
            "at most 8",
        ),
        (
            "duplicate",
            client
                .post(app.url(&format!("/showtimes/{id}/holds")))
                .json(&json!({"seats": ["F5", "F5"]})),
            "more than once",
        ),
        (
            "invalid code",
            client
                .post(app.url(&format!("/showtimes/{id}/holds")))
                .json(&json!({"seats": ["F5", "5F"]})),
            "5F",
        ),
        (
            "not in showtime",
            client
                .post(app.url(&format!("/showtimes/{id}/holds")))
                .json(&json!({"seats": ["F5", "Z99"]})),
            "Z99",
        ),
        (
            "bad showtime id",
            client
                .post(app.url("/showtimes/x1/holds"))
                .json(&json!({"seats": ["F5"]})),
            "x1",
        ),
        // The page's server function reads the same parsed types, and says what was wrong.
        (
            "server function, invalid code",
            client
                .post(app.url("/api/hold_seats"))
                .json(&json!({"showtime_id": id, "seats": ["F5", "5F"]})),
            "5F",
        ),
        (
            "server function, duplicate",
            client
                .post(app.url("/api/hold_seats"))
                .json(&json!({"showtime_id": id, "seats": ["F5", "f5"]})),
            "more than once",
        ),
        (
            "server function, showtime out of range",
            client
                .post(app.url("/api/hold_seats"))
                .json(&json!({"showtime_id": 0, "seats": ["F5"]})),
            "showtime id",
        ),
    ];
    for (what, request, mentions) in cases {
        let r = request.send().await.unwrap();
        assert_eq!(r.status(), StatusCode::BAD_REQUEST, "{what}");
        let body: Value = r
            .json()
            .await
            .unwrap_or_else(|e| panic!("{what}: body is not JSON: {e}"));
        let error = body["error"]
            .as_str()
            .unwrap_or_else(|| panic!("{what}: no error field in {body}"));
        assert!(
            error.contains(mentions),
            "{what}: {error:?} should mention {mentions:?}"
        );
    }
    // The machine-readable code: a seat list that breaks a rule is INVALID_REQUEST, JSON of the
    // wrong shape BAD_REQUEST.
    for (seats, code) in [
        (json!(["F5", "5F"]), "INVALID_REQUEST"),
        (json!(["F5", "F5"]), "INVALID_REQUEST"),
        (json!("F5"), "BAD_REQUEST"),
    ] {
        let (status, body) = hold(&client, &app, id, json!({ "seats": seats })).await;
        assert_eq!(
            (status, body["code"].as_str()),
            (StatusCode::BAD_REQUEST, Some(code)),
            "{seats}"
        );
    }
    assert_eq!(statuses(&app, id).await, before, "no seat changed");
}

async fn an_oversized_body_is_413_and_changes_nothing(backend: Backend) {
    let (_db, app, id) = setup(backend).await;
    let before = statuses(&app, id).await;
    let huge = json!({"seats": ["F5"], "padding": "x".repeat(64 * 1024)});
    let (status, body) = hold(&app.customer(), &app, id, huge).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert!(body["error"].as_str().unwrap().contains("too large"));
    assert_eq!(statuses(&app, id).await, before);
}

async fn cancel_is_204_for_the_owner_403_for_others_404_for_unknown_400_for_garbage(
    backend: Backend,
) {
    let (_db, app, id) = setup(backend).await;
    let (alice, bob) = (app.customer(), app.customer());
    let (status, body) = hold(&alice, &app, id, json!({"seats": ["G1", "G2"]})).await;
    assert_eq!(status, StatusCode::CREATED);
    let url = app.url(&format!("/holds/{}", body["holdId"].as_str().unwrap()));

    let r = bob.delete(&url).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    assert_eq!(r.json::<Value>().await.unwrap()["code"], "NOT_YOUR_HOLD");
    assert!(
        statuses(&app, id)
            .await
            .contains(&("G1".into(), "HELD".into())),
        "a refused cancel changes nothing"
    );

    let unknown = app::domain::HoldId::new(showtime_id(id), [7; 16]);
    let r = alice
        .delete(app.url(&format!("/holds/{unknown}")))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    let r = alice
        .delete(app.url("/holds/5f0c6f0e-1c7a-4f43-9a55-0d3cbb6d2b11"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        r.status(),
        StatusCode::NOT_FOUND,
        "a UUID that is not a hold id"
    );
    // The page's server function answers the same ids the same way.
    for (hold_id, status) in [
        (
            "5f0c6f0e-1c7a-4f43-9a55-0d3cbb6d2b11",
            StatusCode::NOT_FOUND,
        ),
        ("not-a-hold", StatusCode::BAD_REQUEST),
    ] {
        let r = alice
            .post(app.url("/api/cancel_hold"))
            .json(&json!({ "hold_id": hold_id }))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), status, "cancel_hold {hold_id}");
    }
    let r = alice
        .delete(app.url("/holds/not-a-hold"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    assert!(r.json::<Value>().await.unwrap()["error"]
        .as_str()
        .unwrap()
        .contains("not-a-hold"));

    let r = alice.delete(&url).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    let map = statuses(&app, id).await;
    assert!(
        map.contains(&("G1".into(), "AVAILABLE".into()))
            && map.contains(&("G2".into(), "AVAILABLE".into()))
    );
    assert_eq!(
        alice.delete(&url).send().await.unwrap().status(),
        StatusCode::NOT_FOUND
    );
}

async fn the_session_cookie_is_signed_and_http_only_and_a_forged_one_is_not_trusted(
    backend: Backend,
) {
    let (_db, app, id) = setup(backend).await;
    let plain = reqwest::Client::new();
    // Public, cacheable reads issue no session: a CDN would not cache them otherwise.
    for path in [
        "/showtimes".to_string(),
        format!("/showtimes/{id}/seats"),
        "/health".to_string(),
    ] {
        let r = plain.get(app.url(&path)).send().await.unwrap();
        assert!(
            r.headers().get("set-cookie").is_none(),
            "{path} set a cookie"
        );
    }
    // The first page (or any request that acts) does.
    let r = plain.get(app.url("/")).send().await.unwrap();
    let cookie = r.headers()["set-cookie"].to_str().unwrap().to_string();
    assert!(
        cookie.starts_with("seats_session=")
            && cookie.contains("HttpOnly")
            && cookie.contains("SameSite=Lax")
    );
    let value = cookie.split(';').next().unwrap().to_string();
    // Same cookie → same customer: no new cookie, and the hold can be cancelled with it.
    let r = plain
        .post(app.url(&format!("/showtimes/{id}/holds")))
        .header("cookie", &value)
        .json(&json!({"seats": ["H1"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    assert!(r.headers().get("set-cookie").is_none());
    let hold_id = r.json::<Value>().await.unwrap()["holdId"]
        .as_str()
        .unwrap()
        .to_string();
    // A cookie naming a made-up customer id with a stolen signature is a stranger.
    let forged = format!(
        "seats_session={}.{}",
        uuid::Uuid::new_v4(),
        value.split_once('.').unwrap().1
    );
    let r = plain
        .delete(app.url(&format!("/holds/{hold_id}")))
        .header("cookie", forged)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    assert!(
        r.headers().get("set-cookie").is_some(),
        "the forger gets a fresh identity"
    );
    let r = plain
        .delete(app.url(&format!("/holds/{hold_id}")))
        .header("cookie", &value)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
}

async fn an_expired_hold_frees_its_seats_for_others(backend: Backend) {
    let db = TestDb::new(backend).await;
    let app = TestApp::spawn(&db, "1").await;
    let id = first_showtime(&app.base).await;
    let (alice, bob) = (app.customer(), app.customer());
    assert_eq!(
        hold(&alice, &app, id, json!({"seats": ["A1"]})).await.0,
        StatusCode::CREATED
    );
    assert_eq!(
        hold(&bob, &app, id, json!({"seats": ["A1"]})).await.0,
        StatusCode::CONFLICT
    );
    tokio::time::sleep(std::time::Duration::from_millis(1300)).await;
    assert!(statuses(&app, id)
        .await
        .contains(&("A1".into(), "AVAILABLE".into())));
    assert_eq!(
        hold(&bob, &app, id, json!({"seats": ["A1"]})).await.0,
        StatusCode::CREATED
    );
}

async fn the_pages_are_rendered_on_the_server(backend: Backend) {
    let (_db, app, id) = setup(backend).await;
    let r = reqwest::get(app.url("/")).await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let html = r.text().await.unwrap();
    assert!(
        html.contains("Sea of Stars"),
        "the showtime list is in the server's HTML: {}",
        page_evidence(&html)
    );
    assert!(html.contains(&format!("href=\"/showtimes/{id}\"")));
    let html = get_text(app.url(&format!("/showtimes/{id}"))).await;
    assert!(
        html.contains("data-test=\"seat-F5\""),
        "the seat map is in the server's HTML: {}",
        page_evidence(&html)
    );
    assert!(html.contains("Row F, seat 5"), "{}", page_evidence(&html));
    let r = reqwest::get(app.url("/no/such/page")).await.unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    // Each page links its own bundle: the customer's pages never the staff's, and back.
    for (path, mine, others) in [
        (
            "/",
            "/pkg/seats.js",
            ["/pkg/seats-staff.", "/pkg/seats-bookings."],
        ),
        (
            "/my-bookings",
            "/pkg/seats-bookings.js",
            ["/pkg/seats-staff.", "/pkg/seats.wasm"],
        ),
        (
            "/staff/sign-in",
            "/pkg/seats-staff.js",
            ["/pkg/seats.wasm", "/pkg/seats-bookings."],
        ),
    ] {
        let html = get_text(app.url(path)).await;
        assert!(html.contains(mine), "{path} links {mine}");
        for other in others {
            assert!(!html.contains(other), "{path} links nothing of {other}");
        }
    }
}

/// The site's files answer 200 however many pages that end in an error render at the same time.
/// (Leptos's own file handler gave a file the status a page rendering on the same worker thread
/// had set: here about 200 of the 800 came back 404 with it, and a browser that got its
/// WebAssembly that way never hydrated the page.)
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_sites_files_answer_200_while_error_pages_render_beside_them() {
    let db = TestDb::new(Backend::Sqlite).await;
    let site = std::env::temp_dir().join(format!("seats-site-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(site.join("pkg")).unwrap();
    let bundle = "x".repeat(20_000);
    std::fs::write(site.join("pkg/seats.0123456789abcdef.js"), &bundle).unwrap();
    let root = site.display().to_string();
    let app = TestApp::spawn_with(&db, "600", &[("LEPTOS_SITE_ROOT", &root)]).await;
    let client = reqwest::Client::new();
    let (file, missing) = (
        app.url("/pkg/seats.0123456789abcdef.js"),
        app.url("/showtimes/999999"),
    );
    let mut wrong = Vec::new();
    for _ in 0..100 {
        let pages = (0..4).map(|_| client.get(&missing).header("accept", "text/html").send());
        let files = (0..8).map(|_| client.get(&file).send());
        let (pages, files) = tokio::join!(
            futures_util::future::join_all(pages),
            futures_util::future::join_all(files)
        );
        for page in pages {
            // 404 when "no such showtime" came before the page's head left, else 200.
            let status = page.unwrap().status();
            assert!(
                matches!(status, StatusCode::OK | StatusCode::NOT_FOUND),
                "{status}"
            );
        }
        for answer in files {
            let answer = answer.unwrap();
            let status = answer.status();
            let body = answer.text().await.unwrap();
            if status != StatusCode::OK || body != bundle {
                wrong.push(format!("{status}: {}", &body[..body.len().min(80)]));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&site);
    assert!(
        wrong.is_empty(),
        "{} of 800 answers for a site file were wrong: {:?}",
        wrong.len(),
        &wrong[..wrong.len().min(3)]
    );
}

/// Every page is in the router of the bundle its path names (the shell links that bundle and
/// that bundle hydrates it), so a page put in the wrong one is caught here, not by a page that
/// never comes to life. The control: a path of each kind is told apart.
/// (In a runtime, as the server makes its route list: the staff pages' header asks who is signed
/// in as it is made.)
#[tokio::test]
async fn every_page_is_in_the_bundle_its_path_belongs_to() {
    use app::Bundle;
    for (bundle, routes) in [
        (
            Bundle::Customer,
            leptos_axum::generate_route_list(app::CustomerApp),
        ),
        (
            Bundle::Bookings,
            leptos_axum::generate_route_list(app::BookingsApp),
        ),
        (
            Bundle::Staff,
            leptos_axum::generate_route_list(app::StaffApp),
        ),
    ] {
        assert!(!routes.is_empty());
        for route in routes {
            assert_eq!(Bundle::of_path(route.path()), bundle, "{}", route.path());
        }
    }
    assert_eq!(Bundle::of_path("/administrator"), Bundle::Customer);
    assert_eq!(Bundle::of_path("/admin/halls"), Bundle::Staff);
    assert_eq!(Bundle::of_path("/my-bookings-old"), Bundle::Customer);
    assert_eq!(Bundle::of_path("/my-bookings/x"), Bundle::Bookings);
}

async fn pages_speak_the_language_the_browser_asks_for_unless_the_customer_chose(backend: Backend) {
    let (_db, app, id) = setup(backend).await;
    let client = reqwest::Client::new();
    let page = |accept: &'static str, cookie: Option<&'static str>| {
        let mut r = client
            .get(app.url(&format!("/showtimes/{id}")))
            .header("accept-language", accept);
        if let Some(c) = cookie {
            r = r.header("cookie", c);
        }
        async move { r.send().await.unwrap().text().await.unwrap() }
    };
    let ko = page("ko-KR,ko;q=0.9,en;q=0.8", None).await;
    assert!(ko.contains("<html lang=\"ko\""), "{}", page_evidence(&ko));
    assert!(
        ko.contains("F열 5번, 일반석, 12,000원, 선택 가능"),
        "accessible names in Korean: F5 is {:?}; {}",
        ko.find("data-test=\"seat-F5\"")
            .map(|at| ko[at..].chars().take(300).collect::<String>()),
        page_evidence(&ko)
    );
    let en = page("en-GB,en;q=0.9", None).await;
    assert!(en.contains("<html lang=\"en\""), "{}", page_evidence(&en));
    assert!(
        en.contains("Row F, seat 5, standard, 12,000 won, available"),
        "{}",
        page_evidence(&en)
    );
    let chosen = page("ko-KR", Some("lang=en")).await;
    assert!(
        chosen.contains("<html lang=\"en\""),
        "the customer's choice beats the browser's"
    );
}

async fn the_seat_map_revalidates_with_its_etag_and_follows_changes_at_once(backend: Backend) {
    let (_db, app, id) = setup(backend).await;
    let url = app.url(&format!("/showtimes/{id}/seats"));
    let client = app.customer();
    let first = client.get(&url).send().await.unwrap();
    assert_eq!(first.status(), StatusCode::OK);
    assert_eq!(first.headers()["cache-control"], "public, max-age=1");
    let etag = first.headers()["etag"].to_str().unwrap().to_string();
    assert!(
        etag.starts_with('"') && etag.len() > 10,
        "a strong ETag: {etag}"
    );

    let again = client
        .get(&url)
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
    assert_eq!(again.headers()["etag"].to_str().unwrap(), etag);
    assert!(again.bytes().await.unwrap().is_empty());

    // A hold reaches the snapshot through the events, not by waiting for a refresh.
    let (status, _) = hold(&client, &app, id, json!({"seats": ["K7"]})).await;
    assert_eq!(status, StatusCode::CREATED);
    let after = client
        .get(&url)
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(
        after.status(),
        StatusCode::OK,
        "the old tag no longer matches"
    );
    assert_ne!(after.headers()["etag"].to_str().unwrap(), etag);
    let map: Value = after.json().await.unwrap();
    let k7 = map["seats"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["code"] == "K7")
        .unwrap();
    assert_eq!(k7["status"], "HELD");
}

/// The embedded default (no Redis): the hold rate limit still holds, per customer, in this
/// process; the hold server function answers the same 429 as the REST API.
async fn without_redis_the_rate_limit_is_kept_in_process_and_the_sixth_attempt_is_429(
    backend: Backend,
) {
    let db = TestDb::new(backend).await;
    let app = TestApp::spawn_with(&db, "600", &[("HOLD_RATE_PER_MINUTE", "5")]).await;
    let id = first_showtime(&app.base).await;
    let (alice, bob) = (app.customer(), app.customer());
    let attempt = |client: &reqwest::Client, seat: &str| {
        client
            .post(app.url(&format!("/showtimes/{id}/holds")))
            .json(&json!({ "seats": [seat] }))
            .send()
    };
    // Refused attempts count too: two of the five are conflicts.
    for seat in ["C1", "C2", "C3", "C1", "C2"] {
        let status = attempt(&alice, seat).await.unwrap().status();
        assert!(status == StatusCode::CREATED || status == StatusCode::CONFLICT);
    }
    let r = attempt(&alice, "C4").await.unwrap();
    assert_eq!(r.status(), StatusCode::TOO_MANY_REQUESTS);
    let retry_after: u64 = r.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=12).contains(&retry_after));
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["code"], "RATE_LIMITED");
    assert!(body["error"].as_str().unwrap().contains("try again"));
    assert_eq!(db.stored(showtime_id(id)).await["C4"].0, "AVAILABLE");

    // The page's server function is limited alike (same customer, same count).
    let r = alice
        .post(app.url("/api/hold_seats"))
        .json(&json!({ "showtime_id": id, "seats": ["C5"] }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::TOO_MANY_REQUESTS);
    assert!(r.headers().contains_key("retry-after"));
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["kind"], "RateLimited");

    assert_eq!(
        attempt(&bob, "C4").await.unwrap().status(),
        StatusCode::CREATED,
        "another customer is not limited by Alice's attempts"
    );
}

/// HTTP hygiene: what every request and answer goes through, whatever the store (run on the
/// embedded one).
mod hygiene {
    use super::*;
    use std::time::Duration;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpStream;

    async fn app_with(vars: &[(&str, &str)]) -> (TestDb, TestApp) {
        let db = TestDb::new(Backend::Sqlite).await;
        let app = TestApp::spawn_with(&db, "600", vars).await;
        (db, app)
    }

    fn addr(app: &TestApp) -> String {
        app.base.trim_start_matches("http://").to_string()
    }

    /// Sends `request` on a new connection; everything the server sends back until it closes
    /// the connection (or `wait` passes).
    async fn raw(app: &TestApp, request: &[u8], wait: Duration) -> String {
        let mut stream = TcpStream::connect(addr(app)).await.unwrap();
        stream.write_all(request).await.unwrap();
        let mut answer = Vec::new();
        let _ = tokio::time::timeout(wait, stream.read_to_end(&mut answer)).await;
        String::from_utf8_lossy(&answer).into_owned()
    }

    /// Whether the server closes `stream` within `within` (reads to its end).
    async fn closed_within(stream: &mut TcpStream, within: Duration) -> bool {
        let mut sink = Vec::new();
        matches!(
            tokio::time::timeout(within, stream.read_to_end(&mut sink)).await,
            Ok(Ok(_)) | Ok(Err(_))
        )
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn idle_slow_and_excess_connections_are_closed_not_kept() {
        let (_db, app) = app_with(&[
            ("HTTP_HEADER_TIMEOUT_SECONDS", "1"),
            ("HTTP_BODY_TIMEOUT_SECONDS", "1"),
        ])
        .await;
        // A connection that never sends a request is closed after the header timeout.
        let mut idle = TcpStream::connect(addr(&app)).await.unwrap();
        assert!(
            closed_within(&mut idle, Duration::from_secs(4)).await,
            "idle socket kept"
        );
        // So is a keep-alive connection once it has been idle that long after a request.
        let mut kept = TcpStream::connect(addr(&app)).await.unwrap();
        kept.write_all(b"GET /health HTTP/1.1\r\nhost: x\r\n\r\n")
            .await
            .unwrap();
        let mut first = [0u8; 12];
        kept.read_exact(&mut first).await.unwrap();
        assert_eq!(&first, b"HTTP/1.1 200");
        assert!(
            closed_within(&mut kept, Duration::from_secs(4)).await,
            "keep-alive kept"
        );
        // A body that stops arriving is given up on with an error, not waited for.
        let answer = raw(
            &app,
            b"POST /showtimes/1/holds HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{\"seats\":",
            Duration::from_secs(5),
        )
        .await;
        assert!(
            answer.starts_with("HTTP/1.1 408") || answer.starts_with("HTTP/1.1 400"),
            "{answer}"
        );

        // Connections over the cap are answered 503 (JSON) and closed; the server stays up.
        let (_db, capped) = app_with(&[("MAX_CONNECTIONS", "20")]).await;
        let mut held = Vec::new();
        for _ in 0..20 {
            held.push(TcpStream::connect(addr(&capped)).await.unwrap());
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
        let answer = raw(
            &capped,
            b"GET /health HTTP/1.1\r\nhost: x\r\n\r\n",
            Duration::from_secs(3),
        )
        .await;
        assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
        assert!(
            answer.contains("\"code\":\"TOO_MANY_CONNECTIONS\""),
            "{answer}"
        );
        drop(held);
        tokio::time::sleep(Duration::from_millis(300)).await;
        let r = reqwest::get(capped.url("/health")).await.unwrap();
        assert_eq!(r.status(), StatusCode::OK, "the server answers again");
        let metrics = get_text(capped.url("/metrics")).await;
        assert!(
            metrics.contains("seats_connections_refused_total 1"),
            "{metrics}"
        );

        // The same per client address.
        let (_db, per_address) = app_with(&[("MAX_CONNECTIONS_PER_ADDRESS", "5")]).await;
        let mut held = Vec::new();
        for _ in 0..5 {
            held.push(TcpStream::connect(addr(&per_address)).await.unwrap());
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
        let answer = raw(
            &per_address,
            b"GET /health HTTP/1.1\r\nhost: x\r\n\r\n",
            Duration::from_secs(3),
        )
        .await;
        assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn errors_are_json_with_the_right_status_never_a_500() {
        let (_db, app) = app_with(&[]).await;
        let client = reqwest::Client::new();
        let json_error = |status: StatusCode, body: &str, want: StatusCode, what: &str| {
            assert_eq!(status, want, "{what}: {body}");
            let body: Value =
                serde_json::from_str(body).unwrap_or_else(|_| panic!("{what}: not JSON: {body}"));
            assert!(
                body["error"].is_string() && body["code"].is_string(),
                "{what}: {body}"
            );
        };
        // Unknown API paths, a wrong method.
        for path in [
            "/api/no_such_function",
            "/holds/x/y",
            "/showtimes/1/nope",
            "/bookings/a/b",
        ] {
            let r = client.get(app.url(path)).send().await.unwrap();
            let status = r.status();
            json_error(
                status,
                &r.text().await.unwrap(),
                StatusCode::NOT_FOUND,
                path,
            );
        }
        let r = client.put(app.url("/showtimes")).send().await.unwrap();
        let status = r.status();
        json_error(
            status,
            &r.text().await.unwrap(),
            StatusCode::METHOD_NOT_ALLOWED,
            "PUT",
        );
        // Too long a URI, too many headers.
        let long = format!("/showtimes?{}", "x".repeat(10_000));
        let r = client.get(app.url(&long)).send().await.unwrap();
        let status = r.status();
        json_error(
            status,
            &r.text().await.unwrap(),
            StatusCode::URI_TOO_LONG,
            "long URI",
        );
        let mut request = client.get(app.url("/showtimes"));
        for i in 0..40 {
            request = request.header(format!("x-padding-{i}"), "y".repeat(1000));
        }
        let r = request.send().await.unwrap();
        let status = r.status();
        json_error(
            status,
            &r.text().await.unwrap(),
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            "big headers",
        );
        // A body over the global limit, to a server function.
        let r = client
            .post(app.url("/api/hold_seats"))
            .header("content-type", "application/json")
            .body(vec![b' '; 100 * 1024])
            .send()
            .await
            .unwrap();
        let status = r.status();
        // Its body read to its end (within 1 MiB) before the answer: the connection stays open
        // for the next request, and the answer says so.
        assert_eq!(
            r.headers().get("connection").map(|v| v.as_bytes()),
            Some(&b"keep-alive"[..])
        );
        json_error(
            status,
            &r.text().await.unwrap(),
            StatusCode::PAYLOAD_TOO_LARGE,
            "100 KiB",
        );
        // A page with a trailing slash is redirected; `GET *` is refused.
        let r = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap()
            .get(app.url("/showtimes/3/"))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::PERMANENT_REDIRECT);
        assert_eq!(r.headers()["location"], "/showtimes/3");
        let answer = raw(
            &app,
            b"GET * HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n",
            Duration::from_secs(3),
        )
        .await;
        assert!(answer.starts_with("HTTP/1.1 4"), "{answer}");

        // Every server function, fed malformed arguments: a 4xx with a JSON error, never 5xx.
        let functions = [
            "hold_seats",
            "cancel_hold",
            "checkout_hold",
            "get_seat_map",
            "get_booking",
            "get_ticket",
            "my_bookings",
            "lookup_booking",
            "cancel_booking",
            "list_showtimes",
            "current_hold",
        ];
        let bodies = [
            "",
            "{",
            "null",
            "[]",
            "42",
            "\"text\"",
            "{\"showtime_id\":\"x\"}",
            "{\"showtime_id\":1e400}",
            "{\"showtime_id\":-1,\"seats\":\"A1\"}",
            "{\"showtime_id\":9007199254740993,\"seats\":[1,2]}",
            "{\"hold_id\":{}}",
            "{\"booking_id\":\"not-a-uuid\"}",
            "{\"seats\":[\"\\u0000\"]}",
            "\u{feff}{}",
            "{\"a\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}",
        ];
        let mut answered = 0;
        for function in functions {
            for body in bodies {
                let r = client
                    .post(app.url(&format!("/api/{function}")))
                    .header("content-type", "application/json")
                    .body(body)
                    .send()
                    .await
                    .unwrap();
                let status = r.status();
                let text = r.text().await.unwrap();
                assert!(
                    !status.is_server_error(),
                    "/api/{function} {body:?}: {status} {text}"
                );
                if status.is_client_error() {
                    let v: Value = serde_json::from_str(&text)
                        .unwrap_or_else(|_| panic!("/api/{function} {body:?}: {text}"));
                    assert!(v["error"].is_string() || v["kind"].is_string(), "{text}");
                }
                assert!(
                    !text.contains("ServerFnError"),
                    "an internal type name: {text}"
                );
                answered += 1;
            }
        }
        assert_eq!(answered, functions.len() * bodies.len());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn requests_that_change_something_must_come_from_this_site() {
        let (db, app) = app_with(&[("ALLOWED_ORIGINS", "https://kiosk.example.com")]).await;
        let id = first_showtime(&app.base).await;
        let customer = app.customer();
        let hold = |origin: Option<&str>, fetch_site: Option<&str>, content_type: &str| {
            let mut request = customer
                .post(app.url("/api/hold_seats"))
                .header("content-type", content_type)
                .body(json!({ "showtime_id": id, "seats": ["J1"] }).to_string());
            if let Some(origin) = origin {
                request = request.header("origin", origin);
            }
            if let Some(site) = fetch_site {
                request = request.header("sec-fetch-site", site);
            }
            async move {
                let r = request.send().await.unwrap();
                let status = r.status();
                (status, r.json::<Value>().await.unwrap_or(Value::Null))
            }
        };
        let (status, body) = hold(Some("https://evil.example"), None, "application/json").await;
        assert_eq!(status, StatusCode::FORBIDDEN);
        assert_eq!(body["code"], "CROSS_SITE_REQUEST");
        let (status, _) = hold(None, Some("cross-site"), "application/json").await;
        assert_eq!(status, StatusCode::FORBIDDEN);
        // A "simple" request a foreign page could send without asking: refused for its type.
        let (status, body) = hold(None, None, "text/plain").await;
        assert_eq!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
        assert_eq!(body["code"], "UNSUPPORTED_MEDIA_TYPE");
        assert_eq!(
            db.stored(showtime_id(id)).await["J1"].0,
            "AVAILABLE",
            "nothing held by the refused requests"
        );
        // From this site, or an allowed origin, it works.
        let (status, _) = hold(Some(&app.base), Some("same-origin"), "application/json").await;
        assert_eq!(status, StatusCode::OK);
        let r = customer
            .delete(app.url("/holds/00000000-0000-0000-0000-000000000000"))
            .header("origin", "https://evil.example")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::FORBIDDEN, "a cancel from elsewhere");
        let other = app.customer();
        let r = other
            .post(app.url(&format!("/showtimes/{id}/holds")))
            .header("origin", "https://kiosk.example.com")
            .json(&json!({ "seats": ["J2"] }))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::CREATED, "an allowed origin");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn a_page_whose_data_never_comes_ends_at_the_request_deadline() {
        let db = TestDb::new(Backend::Postgres).await;
        let app = TestApp::spawn_with(&db, "600", &[("HTTP_REQUEST_TIMEOUT_SECONDS", "2")]).await;
        let cut = || async {
            let metrics = get_text(app.url("/metrics")).await;
            metrics
                .lines()
                .find_map(|l| l.strip_prefix("seats_pages_cut_total "))
                .map(|n| n.parse::<u64>().unwrap())
                .expect("the counter")
        };
        // Control: with its data there, the page finishes (on a loaded machine a first render
        // may pass the short deadline: asked again until it does not) and nothing is cut.
        let listed = |html: &String| html.contains("data-test=\"showtime-list\"");
        let html = eventually(Duration::from_secs(20), || get_text(app.url("/")), listed).await;
        assert!(listed(&html), "{html}");
        let before = cut().await;
        // The showtimes locked away: the page's list waits for ever.
        let mut lock = db.pg_pool().begin().await.unwrap();
        sqlx::query("lock table showtime in access exclusive mode")
            .execute(&mut *lock)
            .await
            .unwrap();
        let started = std::time::Instant::now();
        let r = reqwest::get(app.url("/")).await.unwrap();
        assert_eq!(r.status(), StatusCode::OK, "the page starts at once");
        let html = r
            .text()
            .await
            .expect("an answer ended properly, not cut off");
        let took = started.elapsed();
        assert!(
            (Duration::from_millis(1500)..Duration::from_secs(10)).contains(&took),
            "ended after {took:?}"
        );
        assert!(!html.contains("data-test=\"showtime-list\""), "{html}");
        assert!(html.contains("<h1>"), "what was ready was sent: {html}");
        assert_eq!(cut().await, before + 1);
        lock.rollback().await.unwrap();
        db.drop_database().await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn answers_carry_security_headers_and_pages_a_policy_their_scripts_satisfy() {
        let (_db, app) = app_with(&[]).await;
        let r = reqwest::get(app.url("/")).await.unwrap();
        let headers = r.headers().clone();
        let html = r.text().await.unwrap();
        let csp = headers["content-security-policy"]
            .to_str()
            .unwrap()
            .to_string();
        let nonce = csp
            .split("'nonce-")
            .nth(1)
            .and_then(|rest| rest.split('\'').next())
            .unwrap_or_else(|| panic!("no nonce in {csp}"));
        assert!(
            html.contains(&format!("nonce=\"{nonce}\"")),
            "the page's scripts carry the policy's nonce"
        );
        assert!(
            !html.contains("<script>"),
            "an inline script without a nonce"
        );
        assert!(csp.contains("frame-ancestors 'none'") && csp.contains("'wasm-unsafe-eval'"));
        assert_eq!(headers["x-content-type-options"], "nosniff");
        assert_eq!(headers["x-frame-options"], "DENY");
        assert!(headers.contains_key("referrer-policy"));
        let again = reqwest::get(app.url("/")).await.unwrap();
        assert!(
            !again.headers()["content-security-policy"]
                .to_str()
                .unwrap()
                .contains(nonce),
            "a new nonce for every page"
        );
        let r = reqwest::get(app.url("/showtimes")).await.unwrap();
        assert_eq!(
            r.headers()["content-security-policy"],
            "default-src 'none'; frame-ancestors 'none'"
        );
        // /metrics: no cookie, and (by default) for loopback and private networks.
        let r = reqwest::get(app.url("/metrics")).await.unwrap();
        assert_eq!(r.status(), StatusCode::OK);
        assert!(r.headers().get("set-cookie").is_none());
        let (_db, private) = app_with(&[("METRICS_ALLOW", "10.0.0.0/8")]).await;
        let r = reqwest::get(private.url("/metrics")).await.unwrap();
        assert_eq!(r.status(), StatusCode::FORBIDDEN);
        // Behind https, the session cookie is Secure.
        let (_db, secure) = app_with(&[("PUBLIC_URL", "https://tickets.example.com")]).await;
        let r = reqwest::get(secure.url("/")).await.unwrap();
        let cookie = r.headers()["set-cookie"].to_str().unwrap();
        assert!(cookie.contains("; Secure"), "{cookie}");
        let r = reqwest::get(app.url("/")).await.unwrap();
        assert!(!r.headers()["set-cookie"]
            .to_str()
            .unwrap()
            .contains("Secure"));
    }
}
