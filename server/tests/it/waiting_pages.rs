//! The waiting page's live feed (`/showtimes/{id}/queue/live`) over a real WebSocket, on both
//! homes of the room: the room's frame at once and on every change, a close answered, a message
//! from the page refused (1008), the place counted as connected exactly while the socket is open
//! (also when the page's connection just drops), and the feed ended (1001) when the room is
//! turned off.

use crate::support::*;
use crate::waiting_room::{admitted, hold, key_prefix, set_room};
use futures_util::{SinkExt, StreamExt};
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::Message;

on_both_backends!(a_waiting_page_gets_the_rooms_frame_live_and_is_counted_while_connected);

/// The next text frame as JSON, or `None` if the socket ends or nothing comes within `wait`.
async fn next_frame(socket: &mut Socket, wait: Duration) -> Option<Value> {
    let deadline = Instant::now() + wait;
    loop {
        let left = deadline.checked_duration_since(Instant::now())?;
        match tokio::time::timeout(left, socket.next()).await.ok()?? {
            Ok(Message::Text(text)) => return Some(serde_json::from_str(&text).unwrap()),
            Ok(Message::Close(_)) | Err(_) => return None,
            Ok(_) => {}
        }
    }
}

/// The first frame within 10 s that `wanted` accepts.
async fn frame_where(socket: &mut Socket, wanted: impl Fn(&Value) -> bool) -> Value {
    loop {
        let frame = next_frame(socket, Duration::from_secs(10))
            .await
            .expect("the frame wanted within 10 s");
        if wanted(&frame) {
            return frame;
        }
    }
}

/// How the server ends the socket: the close code it sends, if any (`None`: just closed).
async fn closed_with(socket: &mut Socket) -> Option<CloseCode> {
    loop {
        match tokio::time::timeout(Duration::from_secs(5), socket.next())
            .await
            .expect("the server ends the socket within 5 s")
        {
            Some(Ok(Message::Close(frame))) => return frame.map(|f| f.code),
            Some(Ok(_)) => {}
            None | Some(Err(_)) => return None,
        }
    }
}

async fn pages_connected(app: &TestApp) -> i64 {
    let metrics = get_text(app.url("/metrics")).await;
    metrics
        .lines()
        .find_map(|l| l.strip_prefix("seats_waiting_room_pages "))
        .expect("the pages gauge")
        .parse()
        .unwrap()
}

/// The pages the server counts as connected, once they are `n` (or after 5 s).
async fn pages_become(app: &TestApp, n: i64) -> i64 {
    eventually(Duration::from_secs(5), || pages_connected(app), |c| *c == n).await
}

async fn page(app: &TestApp, showtime: i64, ticket: &str) -> Socket {
    let url = format!(
        "{}/showtimes/{showtime}/queue/live?ticket={ticket}",
        app.base.replace("http://", "ws://")
    );
    tokio_tungstenite::connect_async(url)
        .await
        .expect("websocket upgrade")
        .0
}

async fn a_waiting_page_gets_the_rooms_frame_live_and_is_counted_while_connected(backend: Backend) {
    let db = TestDb::new(backend).await;
    let (redis, prefix) = (redis_url(), key_prefix());
    let extra: &[(&str, &str)] = match backend {
        Backend::Postgres => &[("REDIS_URL", &redis), ("REDIS_KEY_PREFIX", &prefix)],
        Backend::Sqlite => &[],
    };
    let app = TestApp::spawn_with(&db, "600", extra).await;
    let showtime = first_showtime(&app.base).await;
    let op = operator(&app).await;
    set_room(&op, showtime, true, 1).await;
    let first = app.customer();
    let mut tickets = Vec::new();
    for client in [&*first, &*app.customer()] {
        let place: Value = client
            .post(app.url(&format!("/showtimes/{showtime}/queue")))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        tickets.push(place["ticket"].as_str().unwrap().to_string());
    }

    // Not an upgrade: a JSON 400, nothing connected.
    let r = reqwest::get(app.url(&format!(
        "/showtimes/{showtime}/queue/live?ticket={}",
        tickets[1]
    )))
    .await
    .unwrap();
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    let body: Value = r.json().await.unwrap();
    assert!(
        body["error"].as_str().unwrap().contains("WebSocket"),
        "{body}"
    );

    // The room's frame arrives (the step runs each second), then each change of it.
    let mut socket = page(&app, showtime, &tickets[1]).await;
    // (Once the first is let in: a frame is sent when it changes.)
    let frame = frame_where(&mut socket, |f| f["inside"] == 1).await;
    assert_eq!(frame["open"], true, "{frame}");
    assert!(frame["served"].is_u64(), "{frame}");
    assert_eq!(pages_connected(&app).await, 1);

    // It says who is inside (the first, admitted), how many the room lets in, the longest
    // stay, and each category's price and free seats, as the seat map has them.
    let full = frame;
    assert_eq!(full["maxInside"], 1, "{full}");
    assert!(full["stayMinutes"].as_u64().unwrap() >= 10, "{full}");
    let map: Value = get_json(app.url(&format!("/showtimes/{showtime}/seats"))).await;
    let category = map["seats"].as_array().unwrap()[0]["category"].clone();
    let (seat, free) = {
        let seats = map["seats"].as_array().unwrap().iter();
        let free: Vec<&Value> = seats
            .filter(|s| s["category"] == category && s["status"] == "AVAILABLE")
            .collect();
        (
            free[0]["code"].as_str().unwrap().to_string(),
            free.len() as u64,
        )
    };
    let left_in = |f: &Value| -> Option<u64> {
        let left = f["left"].as_array()?.iter();
        left.filter(|c| c["code"] == category)
            .find_map(|c| c["free"].as_u64())
    };
    assert_eq!(left_in(&full), Some(free), "{full}");
    let of = |list: &Value| {
        list.as_array()
            .unwrap()
            .iter()
            .find(|c| c["code"] == category)
            .cloned()
    };
    assert_eq!(
        of(&full["left"]).unwrap()["price"],
        of(&map["categories"]).unwrap()["price"]
    );
    // The first holds one of its seats: the next frame counts one fewer.
    let token = admitted(&app, &first, showtime).await;
    let (status, body) = hold(&app, &first, showtime, &[&seat], Some(&token)).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let after = frame_where(&mut socket, |f| left_in(f) != Some(free)).await;
    assert_eq!(left_in(&after), Some(free - 1), "{after}");
    let (status, body) = op
        .set_waiting_room(
            json!({ "showtime_id": showtime, "on": true, "max_active": 1, "admit_per_minute": 600,
                "message": "Doors open at ten" }),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    // (An admission may change the frame first.)
    let changed = loop {
        let frame = next_frame(&mut socket, Duration::from_secs(5))
            .await
            .expect("the changed frame");
        if frame["message"] == "Doors open at ten" {
            break frame;
        }
    };
    assert_eq!(changed["message"], "Doors open at ten", "{changed}");

    // A page has nothing to say: a message ends it with 1008.
    let mut chatty = page(&app, showtime, &tickets[0]).await;
    chatty.send(Message::text("hello")).await.unwrap();
    assert_eq!(closed_with(&mut chatty).await, Some(CloseCode::Policy));

    // The page leaves: its close is answered and it no longer counts as connected.
    socket
        .send(Message::Close(Some(CloseFrame {
            code: CloseCode::Normal,
            reason: "".into(),
        })))
        .await
        .unwrap();
    assert_eq!(closed_with(&mut socket).await, Some(CloseCode::Normal));
    let counted = pages_become(&app, 0).await;
    assert_eq!(counted, 0, "no page connected after both left");

    // A page whose connection just drops (no close frame) no longer counts either.
    let dropped = page(&app, showtime, &tickets[0]).await;
    let counted = pages_become(&app, 1).await;
    assert_eq!(counted, 1, "the new page counts");
    drop(dropped);
    let counted = pages_become(&app, 0).await;
    assert_eq!(counted, 0, "a dropped connection no longer counts");

    // The room turned off: the page is told (open: false) and the feed ends.
    let mut socket = page(&app, showtime, &tickets[1]).await;
    next_frame(&mut socket, Duration::from_secs(5))
        .await
        .expect("the room's frame");
    set_room(&op, showtime, false, 1).await;
    let last = loop {
        let frame = next_frame(&mut socket, Duration::from_secs(5))
            .await
            .expect("a frame saying the room is off");
        if frame["open"] == false {
            break frame;
        }
    };
    assert_eq!(last["open"], false);
    assert_eq!(closed_with(&mut socket).await, Some(CloseCode::Away));
    db.drop_database().await;
}
