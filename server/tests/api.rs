//! HTTP tests: the server on a random port over a fresh database (PostgreSQL and SQLite), real
//! HTTP requests, every status code of the REST API.

#[macro_use]
mod support;

use reqwest::StatusCode;
use serde_json::{json, Value};
use support::*;

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
    operator_pages_and_reports_need_the_operator_password,
);

async fn setup(backend: Backend) -> (TestDb, TestApp, i64) {
    let db = TestDb::new(backend).await;
    let app = TestApp::spawn(&db, "600").await;
    let list: Value = app
        .customer()
        .get(app.url("/showtimes"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    // The second demo hall's first showtime: 300 seats, rows A–O.
    let id = list
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["seatsTotal"] == 300)
        .expect("a 300-seat demo showtime")["id"]
        .as_i64()
        .unwrap();
    (db, app, id)
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

    let unknown = app::domain::HoldId::new(app::domain::ShowtimeId(id), [7; 16]);
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
    let list: Value = get_json(app.url("/showtimes")).await;
    let id = list[0]["id"].as_i64().unwrap();
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
        "the showtime list is in the server's HTML"
    );
    assert!(html.contains(&format!("href=\"/showtimes/{id}\"")));
    let html = get_text(app.url(&format!("/showtimes/{id}"))).await;
    assert!(
        html.contains("data-test=\"seat-F5\""),
        "the seat map is in the server's HTML"
    );
    assert!(html.contains("Row F, seat 5"));
    let r = reqwest::get(app.url("/no/such/page")).await.unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
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
    assert!(ko.contains("<html lang=\"ko\""));
    assert!(
        ko.contains("F열 5번, 일반석, 12,000원, 선택 가능"),
        "accessible names in Korean"
    );
    let en = page("en-GB,en;q=0.9", None).await;
    assert!(en.contains("<html lang=\"en\""));
    assert!(en.contains("Row F, seat 5, standard, 12,000 won, available"));
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
    assert_eq!(
        db.stored(app::domain::ShowtimeId(id)).await["C4"].0,
        "AVAILABLE"
    );

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

async fn operator_pages_and_reports_need_the_operator_password(backend: Backend) {
    let (db, app, _) = setup(backend).await;
    let client = reqwest::Client::new();
    for path in ["/reports/sales", "/operator/sales"] {
        for password in [None, Some("wrong password")] {
            let mut request = client.get(app.url(path));
            if let Some(password) = password {
                request = request.basic_auth("operator", Some(password));
            }
            let r = request.send().await.unwrap();
            assert_eq!(r.status(), StatusCode::UNAUTHORIZED, "{path} {password:?}");
            assert!(r.headers()["www-authenticate"]
                .to_str()
                .unwrap()
                .starts_with("Basic "));
            let body: Value = r.json().await.unwrap();
            assert_eq!(body["code"], "OPERATOR_CREDENTIALS_REQUIRED");
        }
    }
    let r = client
        .post(app.url("/api/sales_figures"))
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(
        r.status(),
        StatusCode::UNAUTHORIZED,
        "the page's server function too"
    );

    let report = client
        .get(app.url("/reports/sales"))
        .basic_auth("operator", Some(OPERATOR_PASSWORD))
        .send()
        .await
        .unwrap();
    assert_eq!(report.status(), StatusCode::OK);
    assert_eq!(report.json::<Value>().await.unwrap(), json!([]));
    let page = client
        .get(app.url("/operator/sales"))
        .basic_auth("operator", Some(OPERATOR_PASSWORD))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    assert!(page
        .text()
        .await
        .unwrap()
        .contains("data-test=\"sales-page\""));

    // PostgreSQL without OPERATOR_PASSWORD: operator pages are off, and say how to turn them on.
    if backend == Backend::Postgres {
        let off = TestApp::spawn_with(&db, "600", &[("OPERATOR_PASSWORD", "")]).await;
        let r = client.get(off.url("/reports/sales")).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::FORBIDDEN);
        let body: Value = r.json().await.unwrap();
        assert!(body["error"]
            .as_str()
            .unwrap()
            .contains("OPERATOR_PASSWORD"));
    }
}
