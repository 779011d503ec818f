//! The live seat map over a real WebSocket, against the server on a random port (PostgreSQL and
//! SQLite): snapshot first, then committed changes within a second; nothing for a refused hold.

use crate::support::*;
use futures_util::StreamExt;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::time::{Duration, Instant};
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

async fn a_viewer_gets_a_snapshot_then_holds_and_releases_within_a_second(backend: Backend) {
    let db = TestDb::new(backend).await;
    let app = TestApp::spawn(&db, "600").await;
    let id = first_showtime(&app.base).await;
    let mut socket = viewer(&app.base, id).await;
    let snapshot = next(&mut socket, Duration::from_secs(2))
        .await
        .expect("snapshot");
    assert_eq!(snapshot["type"], "snapshot");
    let list: Vec<Value> = get_json(app.url("/showtimes")).await;
    let total = list.iter().find(|s| s["id"] == id).unwrap()["seatsTotal"].clone();
    assert_eq!(
        snapshot["seats"].as_array().unwrap().len() as i64,
        total.as_i64().unwrap(),
        "every seat of the showtime"
    );
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

/// The live feed is for viewers, who send nothing: a large frame is refused from its header
/// (never read into memory), a data message ends the connection with 1008, a page of another
/// site cannot open it, and viewers per address are capped.
mod guarded {
    use super::*;
    use futures_util::SinkExt;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;

    /// Waits for the server to end the connection; the close code it gave, if any.
    async fn closed(socket: &mut Socket) -> Option<u16> {
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let left = deadline
                .checked_duration_since(Instant::now())
                .expect("the server did not close the connection");
            match tokio::time::timeout(left, socket.next()).await {
                Ok(Some(Ok(Message::Close(frame)))) => return frame.map(|f| u16::from(f.code)),
                Ok(Some(Ok(_))) => {}
                Ok(Some(Err(_))) | Ok(None) => return None,
                Err(_) => panic!("the server did not close the connection"),
            }
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn viewers_that_talk_or_send_large_frames_are_closed_and_foreign_pages_refused() {
        let db = TestDb::new(Backend::Sqlite).await;
        let app = TestApp::spawn_with(&db, "600", &[("MAX_LIVE_VIEWERS_PER_ADDRESS", "3")]).await;
        let id = first_showtime(&app.base).await;
        // A text message: closed with 1008.
        let mut talker = viewer(&app.base, id).await;
        next(&mut talker, Duration::from_secs(2))
            .await
            .expect("snapshot");
        talker.send(Message::Text("hello".into())).await.unwrap();
        assert_eq!(closed(&mut talker).await, Some(1008));
        // A 1 MiB binary frame: refused on its header.
        let mut big = viewer(&app.base, id).await;
        next(&mut big, Duration::from_secs(2))
            .await
            .expect("snapshot");
        let _ = big.send(Message::Binary(vec![7u8; 1 << 20].into())).await;
        let code = closed(&mut big).await;
        assert!(
            code.is_none() || code == Some(1009) || code == Some(1002),
            "{code:?}"
        );
        // A page of another site.
        let url = format!(
            "{}/showtimes/{id}/live",
            app.base.replace("http://", "ws://")
        );
        let mut request = url.as_str().into_client_request().unwrap();
        request
            .headers_mut()
            .insert("origin", "https://evil.example".parse().unwrap());
        match tokio_tungstenite::connect_async(request).await {
            Err(tokio_tungstenite::tungstenite::Error::Http(r)) => {
                assert_eq!(r.status(), StatusCode::FORBIDDEN)
            }
            other => panic!("a foreign page's feed opened: {other:?}"),
        }
        // This site's own pages may.
        let mut request = url.as_str().into_client_request().unwrap();
        request
            .headers_mut()
            .insert("origin", app.base.parse().unwrap());
        let (mut own, _) = tokio_tungstenite::connect_async(request).await.unwrap();
        next(&mut own, Duration::from_secs(2))
            .await
            .expect("snapshot");
        // Three viewers from this address at most (the one above is the first).
        let _second = viewer(&app.base, id).await;
        let _third = viewer(&app.base, id).await;
        match tokio_tungstenite::connect_async(url.as_str()).await {
            Err(tokio_tungstenite::tungstenite::Error::Http(r)) => {
                assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE)
            }
            other => panic!("a fourth viewer from one address: {other:?}"),
        }
    }

    /// Resident memory of a process, in KiB.
    fn rss_kib(pid: u32) -> u64 {
        std::fs::read_to_string(format!("/proc/{pid}/status"))
            .unwrap()
            .lines()
            .find(|l| l.starts_with("VmRSS:"))
            .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
            .unwrap()
    }

    /// Clients that announce large frames and send most of them cost the server no memory:
    /// 40 connections each 6 MiB into an 8 MiB frame would be 240 MiB buffered if frames were
    /// read before their size was checked.
    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn large_frames_are_refused_before_they_are_read_into_memory() {
        let db = TestDb::new(Backend::Postgres).await;
        let (process, base) = server_process(
            &db.url,
            &redis_url(),
            "600",
            &[("MAX_LIVE_VIEWERS_PER_ADDRESS", "100")],
        )
        .await;
        let id = first_showtime(&base).await;
        let pid = process.0.id();
        let before = rss_kib(pid);
        let host = base.trim_start_matches("http://").to_string();
        let mut streams = Vec::new();
        for _ in 0..40 {
            let mut stream = tokio::net::TcpStream::connect(&host).await.unwrap();
            let handshake = format!(
                "GET /showtimes/{id}/live HTTP/1.1\r\nhost: {host}\r\nupgrade: websocket\r\nconnection: upgrade\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\nsec-websocket-version: 13\r\n\r\n"
            );
            stream.write_all(handshake.as_bytes()).await.unwrap();
            let mut head = [0u8; 12];
            stream.read_exact(&mut head).await.unwrap();
            assert_eq!(&head, b"HTTP/1.1 101");
            // A masked binary frame header announcing 8 MiB, then 6 MiB of it.
            let mut header = vec![0x82u8, 0x80 | 127];
            header.extend_from_slice(&(8u64 << 20).to_be_bytes());
            header.extend_from_slice(&[1, 2, 3, 4]);
            let _ = stream.write_all(&header).await;
            let chunk = vec![0u8; 64 * 1024];
            for _ in 0..96 {
                if stream.write_all(&chunk).await.is_err() {
                    break; // refused: the server closed the connection
                }
            }
            streams.push(stream);
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
        let after = rss_kib(pid);
        let grown_mib = after.saturating_sub(before) / 1024;
        assert!(
            grown_mib < 60,
            "the server grew by {grown_mib} MiB ({before} → {after} KiB)"
        );
        drop(streams);
        assert_eq!(
            reqwest::get(format!("{base}/health"))
                .await
                .unwrap()
                .status(),
            StatusCode::OK
        );
    }
}
