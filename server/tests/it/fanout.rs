//! The live map across server processes: two real `server` processes on different ports share
//! one PostgreSQL database and Redis. A change made through one reaches a WebSocket viewer of the
//! other within a second; after Redis restarts, viewers resync to the correct map.

use crate::support::*;
use futures_util::StreamExt;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::Message;

/// Reads messages until one satisfies `want`, or gives up after `wait`.
async fn until(
    socket: &mut Socket,
    wait: Duration,
    mut want: impl FnMut(&Value) -> bool,
) -> Option<Value> {
    let deadline = Instant::now() + wait;
    loop {
        let left = deadline.checked_duration_since(Instant::now())?;
        if let Ok(Message::Text(text)) = tokio::time::timeout(left, socket.next()).await.ok()?? {
            let v: Value = serde_json::from_str(&text).unwrap();
            if want(&v) {
                return Some(v);
            }
        }
    }
}

/// A viewer of `id` on the server at `base` that has had its snapshot.
async fn watching(base: &str, id: i64) -> Socket {
    let mut socket = viewer(base, id).await;
    until(&mut socket, Duration::from_secs(2), |m| {
        m["type"] == "snapshot"
    })
    .await
    .expect("snapshot");
    socket
}

/// A client with its own cookie jar: one customer (valid on every process: they share
/// SESSION_SECRET).
fn customer() -> reqwest::Client {
    reqwest::Client::builder()
        .cookie_store(true)
        .build()
        .unwrap()
}

/// Holds `seat` through the server at `base`; the answer must be 201. Returns the hold.
async fn hold_at(client: &reqwest::Client, base: &str, id: i64, seat: &str) -> Value {
    let r = client
        .post(format!("{base}/showtimes/{id}/holds"))
        .json(&json!({ "seats": [seat] }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    r.json().await.unwrap()
}

fn status_of(message: &Value, code: &str) -> Option<String> {
    message["seats"]
        .as_array()?
        .iter()
        .find(|s| s["code"] == code)
        .map(|s| s["status"].as_str().unwrap().to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_through_one_process_reaches_a_viewer_of_the_other_within_a_second() {
    let db = TestDb::new(Backend::Postgres).await;
    let (_a, a) = server_process(&db.url, &redis_url(), "2", &[]).await;
    let (_b, b) = server_process(&db.url, &redis_url(), "2", &[]).await;
    let id = first_showtime(&a).await;
    let mut socket = watching(&b, id).await;

    let client = customer();
    let hold = hold_at(&client, &a, id, "F5").await;
    let held = until(&mut socket, Duration::from_secs(1), |m| {
        m["type"] == "seatsHeld"
    })
    .await;
    assert_eq!(
        held.as_ref().and_then(|m| status_of(m, "F5")).as_deref(),
        Some("HELD"),
        "hold via A seen on B within 1 s"
    );

    let r = client
        .delete(format!("{a}/holds/{}", hold["holdId"].as_str().unwrap()))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    let released = until(&mut socket, Duration::from_secs(1), |m| {
        m["type"] == "seatsReleased"
    })
    .await;
    assert_eq!(
        released
            .as_ref()
            .and_then(|m| status_of(m, "F5"))
            .as_deref(),
        Some("AVAILABLE"),
        "cancel via A seen on B within 1 s"
    );

    // Expiry: whichever process's sweeper releases the seat, B's viewer hears of it.
    let r = client
        .post(format!("{a}/showtimes/{id}/holds"))
        .json(&json!({"seats": ["F6"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    until(&mut socket, Duration::from_secs(1), |m| {
        m["type"] == "seatsHeld"
    })
    .await
    .expect("held");
    let expired = until(&mut socket, Duration::from_secs(5), |m| {
        m["type"] == "seatsReleased"
    })
    .await;
    assert_eq!(
        expired.as_ref().and_then(|m| status_of(m, "F6")).as_deref(),
        Some("AVAILABLE"),
        "expiry seen on B"
    );
}

/// What a viewer's map shows after applying every message by seat version, as browsers do.
#[derive(Default)]
struct ViewerMap(std::collections::HashMap<String, (String, i64)>);

impl ViewerMap {
    fn apply(&mut self, message: &Value) {
        let snapshot = message["type"] == "snapshot";
        for seat in message["seats"].as_array().into_iter().flatten() {
            let code = seat["code"].as_str().unwrap().to_string();
            let (status, version) = (
                seat["status"].as_str().unwrap().to_string(),
                seat["version"].as_i64().unwrap(),
            );
            let known = self.0.get(&code).map(|(_, v)| *v);
            if known.is_none_or(|v| version > v || (snapshot && version == v)) {
                self.0.insert(code, (status, version));
            }
        }
    }

    fn status(&self, code: &str) -> &str {
        self.0.get(code).map_or("?", |(s, _)| s.as_str())
    }
}

/// Reads messages, applying each to `map`, until `want` holds for one, or `wait` passes.
async fn follow(
    socket: &mut Socket,
    map: &mut ViewerMap,
    wait: Duration,
    want: impl Fn(&Value) -> bool,
) -> bool {
    until(socket, wait, |m| {
        map.apply(m);
        want(m)
    })
    .await
    .is_some()
}

#[tokio::test(flavor = "current_thread")]
async fn after_redis_restarts_viewers_resync_to_the_correct_map() {
    let db = TestDb::new(Backend::Postgres).await;
    let port = free_port();
    let redis = own_redis(port);
    let url = format!("redis://127.0.0.1:{port}");
    let (_a, a) = server_process(&db.url, &url, "600", &[]).await;
    let (_b, b) = server_process(&db.url, &url, "600", &[]).await;
    let id = first_showtime(&a).await;
    let mut socket = viewer(&b, id).await;
    let mut map = ViewerMap::default();
    assert!(
        follow(&mut socket, &mut map, Duration::from_secs(2), |m| m["type"]
            == "snapshot")
        .await
    );
    let client = customer();
    let hold = |seat: &'static str| {
        let request = client
            .post(format!("{a}/showtimes/{id}/holds"))
            .json(&json!({ "seats": [seat] }));
        async move { request.send().await.unwrap().status() }
    };

    drop(redis); // Redis goes away
    tokio::time::sleep(Duration::from_millis(300)).await;
    // A change while Redis is down: B's viewer cannot hear of it through Redis.
    assert_eq!(
        hold("G7").await,
        StatusCode::CREATED,
        "holds keep working without Redis"
    );

    let _redis = own_redis(port); // and comes back
                                  // Live events flow across processes again once B has resubscribed: keep holding new seats
                                  // through A until one is announced to B's viewer.
    let mut flowing = false;
    for seat in [
        "H1", "H2", "H3", "H4", "H5", "H6", "H7", "H8", "H9", "H10", "H11", "H12",
    ] {
        assert_eq!(hold(seat).await, StatusCode::CREATED);
        if follow(&mut socket, &mut map, Duration::from_millis(800), |m| {
            m["type"] == "seatsHeld" && status_of(m, seat).as_deref() == Some("HELD")
        })
        .await
        {
            flowing = true;
            break;
        }
    }
    assert!(
        flowing,
        "B's viewer hears of A's holds again after Redis restarted"
    );
    // Whatever was missed meanwhile came with a resync: the viewer's map is the true one.
    follow(&mut socket, &mut map, Duration::from_millis(500), |_| false).await;
    let truth: Value = get_json(format!("{b}/showtimes/{id}/seats")).await;
    for seat in truth["seats"].as_array().unwrap() {
        let code = seat["code"].as_str().unwrap();
        assert_eq!(
            map.status(code),
            seat["status"].as_str().unwrap(),
            "seat {code} on B's viewer"
        );
    }
    assert_eq!(map.status("G7"), "HELD");
}

/// The same across a 3-master Redis Cluster: events travel by sharded pub/sub.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_a_redis_cluster_a_hold_through_one_process_reaches_a_viewer_of_the_other() {
    let cluster = OwnCluster::start();
    let db = TestDb::new(Backend::Postgres).await;
    let (_a, a) = server_process(&db.url, &cluster.url(), "600", &[]).await;
    let (_b, b) = server_process(&db.url, &cluster.url(), "600", &[]).await;
    let id = first_showtime(&a).await;
    let mut socket = watching(&b, id).await;
    // B subscribes to the showtime's shard channel when its first viewer arrives; the viewer is
    // resynced once that subscription stands. Give it that moment.
    until(&mut socket, Duration::from_millis(500), |_| false).await;

    hold_at(&customer(), &a, id, "E3").await;
    let held = until(&mut socket, Duration::from_secs(1), |m| {
        m["type"] == "seatsHeld"
    })
    .await;
    assert_eq!(
        held.as_ref().and_then(|m| status_of(m, "E3")).as_deref(),
        Some("HELD"),
        "hold via A seen on B within 1 s through the cluster"
    );
    // The gate works on the cluster too: the seat's key sits on the shard of the showtime's slot.
    let r = customer()
        .post(format!("{b}/showtimes/{id}/holds"))
        .json(&json!({"seats": ["E3"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CONFLICT);
    let metrics = get_text(format!("{b}/metrics")).await;
    assert!(
        metrics.contains("seats_hold_gate_rejected_total 1"),
        "{metrics}"
    );
}
