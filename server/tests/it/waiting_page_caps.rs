//! The waiting pages' sockets cannot take the server away from everyone else: a made-up ticket
//! is refused before the upgrade, the pages have caps of their own (in all, per address behind a
//! trusted proxy, per place), the live map's viewers and the pages together leave the
//! connections' reserve to holds and `/health`, and a socket that answers no ping is closed.

use crate::support::*;
use crate::waiting_room::{key_prefix, set_room};
use futures_util::StreamExt;
use reqwest::StatusCode;
use serde_json::Value;
use std::io::{Read, Write};
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

on_both_backends!(waiting_page_sockets_are_for_real_places_capped_and_never_take_the_reserve);

/// A WebSocket upgrade of `path` asked with plain HTTP: the status and the JSON body of a
/// refusal (a 101 is answered with no body).
async fn upgrade(app: &TestApp, path: &str, origin: Option<&str>) -> (StatusCode, Value) {
    let mut request = reqwest::Client::new()
        .get(app.url(path))
        .header("connection", "upgrade")
        .header("upgrade", "websocket")
        .header("sec-websocket-version", "13")
        .header("sec-websocket-key", "dGhlIHNhbXBsZSBub25jZQ==");
    if let Some(origin) = origin {
        request = request.header("origin", origin);
    }
    let r = request.send().await.unwrap();
    let status = r.status();
    (status, r.json().await.unwrap_or(Value::Null))
}

/// A socket of `path` for a client at `address` (the test server trusts 127.0.0.1 as a proxy):
/// the socket, or the status it was refused with.
async fn socket_from(app: &TestApp, path: &str, address: &str) -> Result<Socket, StatusCode> {
    let url = format!("{}{path}", app.base.replace("http://", "ws://"));
    let mut request = url.into_client_request().unwrap();
    request
        .headers_mut()
        .insert("x-forwarded-for", address.parse().unwrap());
    match tokio_tungstenite::connect_async(request).await {
        Ok((socket, _)) => Ok(socket),
        Err(tokio_tungstenite::tungstenite::Error::Http(r)) => Err(r.status()),
        Err(e) => panic!("upgrade of {path}: {e}"),
    }
}

async fn join(app: &TestApp, showtime: i64) -> String {
    let place: Value = app
        .customer()
        .post(app.url(&format!("/showtimes/{showtime}/queue")))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    place["ticket"].as_str().expect("a ticket").to_string()
}

/// A waiting page's socket opened by hand that then never reads nor answers a ping: whether the
/// server closed it within `within`; `Err` with the server's first line when it refused the
/// upgrade (sockets just closed by the client may not be given back yet).
fn silent_page_closed(base: &str, path: &str, within: Duration) -> Result<bool, String> {
    let port: u16 = base.rsplit(':').next().unwrap().parse().unwrap();
    let mut socket = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        socket,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\
         Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
    )
    .unwrap();
    socket.set_read_timeout(Some(within)).unwrap();
    let started = Instant::now();
    let mut buf = [0u8; 4096];
    let mut first = true;
    // Reading here only empties the socket (pings and frames pile up in the kernel otherwise):
    // nothing is ever answered, as a page that froze.
    while started.elapsed() < within {
        match socket.read(&mut buf) {
            Ok(0) => return Ok(true),
            Ok(n) => {
                if first && !buf[..n].starts_with(b"HTTP/1.1 101") {
                    let answer = String::from_utf8_lossy(&buf[..n]);
                    return Err(answer.lines().next().unwrap_or_default().to_string());
                }
                first = false;
            }
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return Ok(true),
            Err(_) => return Ok(false),
        }
    }
    Ok(false)
}

async fn waiting_page_sockets_are_for_real_places_capped_and_never_take_the_reserve(
    backend: Backend,
) {
    // Arrange: 40 connections (16 of them a reserve no socket takes: 24 sockets in all, 20 of
    // each kind), pages pinged every second, 127.0.0.1 a trusted proxy.
    let db = TestDb::new(backend).await;
    let (redis, prefix) = (redis_url(), key_prefix());
    let mut vars = vec![
        ("MAX_CONNECTIONS", "40"),
        ("MAX_QUEUE_PAGES_PER_ADDRESS", "3"),
        ("TRUSTED_PROXIES", "127.0.0.1/32"),
        ("WAITING_ROOM_PAGE_PING_SECONDS", "1"),
        ("WAITING_ROOM_PLACES_PER_ADDRESS", "1000"),
    ];
    if backend == Backend::Postgres {
        vars.extend([("REDIS_URL", redis.as_str()), ("REDIS_KEY_PREFIX", &prefix)]);
    }
    let app = TestApp::spawn_with(&db, "600", &vars).await;
    let showtime = first_showtime(&app.base).await;
    let op = operator(&app).await;
    set_room(&op, showtime, true, 1).await;
    let mut tickets = Vec::new();
    for _ in 0..26 {
        tickets.push(join(&app, showtime).await);
    }
    let live = |ticket: &str| format!("/showtimes/{showtime}/queue/live?ticket={ticket}");

    // A made-up ticket, another site's page: refused before the upgrade.
    let (status, body) = upgrade(&app, &live("0123456789abcdef0123456789abcdef"), None).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert_eq!(body["code"], "QUEUE_PLACE_NOT_FOUND");
    let (status, body) = upgrade(&app, &live(&tickets[0]), Some("https://evil.example")).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(body["code"], "CROSS_SITE_REQUEST");

    // Three pages per address; four per place.
    let mut open = Vec::new();
    for ticket in &tickets[0..3] {
        open.push(
            socket_from(&app, &live(ticket), "198.51.100.1")
                .await
                .unwrap(),
        );
    }
    let refused = socket_from(&app, &live(&tickets[3]), "198.51.100.1").await;
    assert_eq!(
        refused.err(),
        Some(StatusCode::SERVICE_UNAVAILABLE),
        "a fourth page from one address"
    );
    for n in 0..3 {
        let address = format!("198.51.100.{}", 10 + n);
        open.push(
            socket_from(&app, &live(&tickets[0]), &address)
                .await
                .unwrap(),
        );
    }
    let refused = socket_from(&app, &live(&tickets[0]), "198.51.100.20").await;
    assert_eq!(
        refused.err(),
        Some(StatusCode::TOO_MANY_REQUESTS),
        "a fifth page of one place"
    );

    // Twenty pages in all, from as many addresses as a crowd has.
    for (n, ticket) in tickets[4..18].iter().enumerate() {
        let address = format!("203.0.113.{}", n + 1);
        open.push(socket_from(&app, &live(ticket), &address).await.unwrap());
    }
    assert_eq!(open.len(), 20);
    let refused = socket_from(&app, &live(&tickets[18]), "203.0.113.100").await;
    assert_eq!(
        refused.err(),
        Some(StatusCode::SERVICE_UNAVAILABLE),
        "the pages' cap"
    );

    // The live map's viewers take what is left of the 24 sockets, never the reserve…
    let map = format!("/showtimes/{showtime}/live");
    let mut viewers = Vec::new();
    for n in 0..4 {
        let address = format!("192.0.2.{}", n + 1);
        viewers.push(socket_from(&app, &map, &address).await.unwrap());
    }
    let refused = socket_from(&app, &map, "192.0.2.100").await;
    assert_eq!(
        refused.err(),
        Some(StatusCode::SERVICE_UNAVAILABLE),
        "sockets in all"
    );
    // …so holds and /health still get through, with every socket taken.
    let health = reqwest::get(app.url("/health")).await.unwrap();
    assert_eq!(health.status(), StatusCode::OK);
    let other = first_other_showtime(&app, showtime).await;
    let r = app
        .customer()
        .post(app.url(&format!("/showtimes/{other}/holds")))
        .json(&serde_json::json!({ "seats": ["A1"] }))
        .send()
        .await
        .unwrap();
    assert_eq!(
        r.status(),
        StatusCode::CREATED,
        "{}",
        r.text().await.unwrap()
    );

    // A socket that answers no ping is closed within three pings; a page that answers (as
    // tungstenite does while it reads) stays open the same time: the control.
    drop(viewers);
    open.truncate(1);
    let mut answering = open.pop().unwrap();
    let (stop, mut stopped) = tokio::sync::oneshot::channel::<()>();
    let reader = tokio::spawn(async move {
        loop {
            tokio::select! {
                message = answering.next() => match message {
                    Some(Ok(tokio_tungstenite::tungstenite::Message::Close(_))) | Some(Err(_)) | None => return false,
                    Some(Ok(_)) => {}
                },
                _ = &mut stopped => return true,
            }
        }
    });
    let silent = live(&tickets[20]);
    let base = app.base.clone();
    // The pages and viewers just dropped are given back as the server sees them close: until
    // then the silent page may be refused (503), and is tried again.
    let closed = tokio::task::spawn_blocking(move || {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            match silent_page_closed(&base, &silent, Duration::from_secs(15)) {
                Ok(closed) => return closed,
                Err(refused) if Instant::now() < deadline => {
                    eprintln!("the silent page was refused ({refused}); trying again");
                    std::thread::sleep(Duration::from_millis(100));
                }
                Err(refused) => panic!("the silent page was refused: {refused}"),
            }
        }
    })
    .await
    .unwrap();
    assert!(closed, "a page that answers no ping is closed");
    stop.send(()).unwrap();
    assert!(reader.await.unwrap(), "the answering page is still open");

    // The room off: no socket at all.
    set_room(&op, showtime, false, 1).await;
    let (status, body) = upgrade(&app, &live(&tickets[25]), None).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(body["code"], "NO_WAITING_ROOM");
}

/// A showtime on sale other than `not`.
async fn first_other_showtime(app: &TestApp, not: i64) -> i64 {
    let all: Vec<Value> = get_json(app.url("/showtimes")).await;
    all.iter()
        .filter(|s| s["salesOpen"] == true && s["id"].as_i64() != Some(not))
        .filter_map(|s| s["id"].as_i64())
        .next()
        .expect("another showtime on sale")
}
