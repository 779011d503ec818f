//! The live seat map over a real WebSocket, against the server on a random port (PostgreSQL and
//! SQLite): snapshot first, then committed changes within a second; nothing for a refused hold.

#[macro_use]
mod support;

use futures_util::StreamExt;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::time::{Duration, Instant};
use support::*;
use tokio_tungstenite::tungstenite::Message;

on_both_backends!(
    a_viewer_gets_a_snapshot_then_holds_and_releases_within_a_second,
    a_refused_hold_announces_nothing,
    holds_that_expire_are_announced_by_the_sweeper,
    an_unknown_showtime_is_refused_before_the_upgrade,
    a_viewer_connecting_after_a_change_is_not_given_an_older_shared_snapshot,
);

/// The next message that is not a ping, or `None` if none arrives within `wait`.
async fn next(socket: &mut Socket, wait: Duration) -> Option<Value> {
    let deadline = Instant::now() + wait;
    loop {
        let left = deadline.checked_duration_since(Instant::now())?;
        match tokio::time::timeout(left, socket.next()).await.ok()?? {
            Ok(Message::Text(text)) => {
                let v: Value = serde_json::from_str(&text).unwrap();
                if v["type"] != "ping" {
                    return Some(v);
                }
            }
            Ok(_) => {}
            Err(e) => panic!("websocket error {e}"),
        }
    }
}

fn seat<'a>(message: &'a Value, code: &str) -> &'a Value {
    message["seats"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["code"] == code)
        .unwrap_or_else(|| panic!("{code} in {message}"))
}

async fn a_viewer_gets_a_snapshot_then_holds_and_releases_within_a_second(backend: Backend) {
    let db = TestDb::new(backend).await;
    let app = TestApp::spawn(&db, "600").await;
    let id = first_showtime(&app.base).await;
    let mut socket = viewer(&app.base, id).await;
    let snapshot = next(&mut socket, Duration::from_secs(2))
        .await
        .expect("snapshot");
    assert_eq!(snapshot["type"], "snapshot");
    assert_eq!(snapshot["seats"].as_array().unwrap().len(), 120);
    let v0 = seat(&snapshot, "F5")["version"].as_i64().unwrap();

    let alice = app.customer();
    let r = alice
        .post(app.url(&format!("/showtimes/{id}/holds")))
        .json(&json!({"seats": ["F5", "F6"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let hold: Value = r.json().await.unwrap();
    let held = next(&mut socket, Duration::from_secs(1))
        .await
        .expect("SeatsHeld within 1 s");
    assert_eq!(held["type"], "seatsHeld");
    assert_eq!(held["showtimeId"], id);
    assert_eq!(seat(&held, "F5")["status"], "HELD");
    assert_eq!(seat(&held, "F5")["version"].as_i64().unwrap(), v0 + 1);

    let r = alice
        .delete(app.url(&format!("/holds/{}", hold["holdId"].as_str().unwrap())))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    let released = next(&mut socket, Duration::from_secs(1))
        .await
        .expect("SeatsReleased within 1 s");
    assert_eq!(released["type"], "seatsReleased");
    assert_eq!(seat(&released, "F6")["status"], "AVAILABLE");
    assert_eq!(seat(&released, "F5")["version"].as_i64().unwrap(), v0 + 2);
}

async fn a_refused_hold_announces_nothing(backend: Backend) {
    let db = TestDb::new(backend).await;
    let app = TestApp::spawn(&db, "600").await;
    let id = first_showtime(&app.base).await;
    let mut socket = viewer(&app.base, id).await;
    next(&mut socket, Duration::from_secs(2))
        .await
        .expect("snapshot");
    let url = app.url(&format!("/showtimes/{id}/holds"));
    let r = app
        .customer()
        .post(&url)
        .json(&json!({"seats": ["A1"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    assert_eq!(
        next(&mut socket, Duration::from_secs(1)).await.unwrap()["type"],
        "seatsHeld"
    );
    // Rolled back (A1 is taken, so A2 is not held either): no event may claim otherwise.
    let r = app
        .customer()
        .post(&url)
        .json(&json!({"seats": ["A1", "A2"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CONFLICT);
    assert_eq!(next(&mut socket, Duration::from_millis(700)).await, None);
}

async fn holds_that_expire_are_announced_by_the_sweeper(backend: Backend) {
    let db = TestDb::new(backend).await;
    let app = TestApp::spawn(&db, "1").await; // 1 s holds, 1 s sweeps
    let id = first_showtime(&app.base).await;
    let mut socket = viewer(&app.base, id).await;
    next(&mut socket, Duration::from_secs(2))
        .await
        .expect("snapshot");
    let r = app
        .customer()
        .post(app.url(&format!("/showtimes/{id}/holds")))
        .json(&json!({"seats": ["B3"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    assert_eq!(
        next(&mut socket, Duration::from_secs(1)).await.unwrap()["type"],
        "seatsHeld"
    );
    let released = next(&mut socket, Duration::from_secs(4))
        .await
        .expect("SeatsReleased after expiry");
    assert_eq!(released["type"], "seatsReleased");
    assert_eq!(seat(&released, "B3")["status"], "AVAILABLE");
}

async fn an_unknown_showtime_is_refused_before_the_upgrade(backend: Backend) {
    let db = TestDb::new(backend).await;
    let app = TestApp::spawn(&db, "600").await;
    let r = reqwest::get(app.url("/showtimes/999999/live"))
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    assert_eq!(
        r.json::<Value>().await.unwrap()["code"],
        "SHOWTIME_NOT_FOUND"
    );
    let url = format!(
        "{}/showtimes/999999/live",
        app.base.replace("http://", "ws://")
    );
    match tokio_tungstenite::connect_async(url).await {
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
            assert_eq!(response.status(), 404)
        }
        other => panic!("expected a refused handshake, got {:?}", other.map(|_| ())),
    }
    // A known showtime without an upgrade: a JSON 400 that says what to do.
    let id = first_showtime(&app.base).await;
    let r = reqwest::get(app.url(&format!("/showtimes/{id}/live")))
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    assert!(r.json::<Value>().await.unwrap()["error"]
        .as_str()
        .unwrap()
        .contains("WebSocket"));
}

/// Connecting viewers share snapshot reads, but only reads that started after they subscribed.
async fn a_viewer_connecting_after_a_change_is_not_given_an_older_shared_snapshot(
    backend: Backend,
) {
    let db = TestDb::new(backend).await;
    let app = TestApp::spawn(&db, "600").await;
    let id = first_showtime(&app.base).await;
    let mut early = viewer(&app.base, id).await;
    let before = next(&mut early, Duration::from_secs(2))
        .await
        .expect("snapshot");
    assert_eq!(seat(&before, "C7")["status"], "AVAILABLE");
    let r = app
        .customer()
        .post(app.url(&format!("/showtimes/{id}/holds")))
        .json(&json!({"seats": ["C7"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let mut late = viewer(&app.base, id).await;
    let after = next(&mut late, Duration::from_secs(2))
        .await
        .expect("snapshot");
    assert_eq!(after["type"], "snapshot");
    assert_eq!(
        seat(&after, "C7")["status"],
        "HELD",
        "the late viewer's snapshot includes the hold"
    );
}
