//! A page read half-way and dropped — a phone that hangs up in a flash sale, or a page an
//! answer's layer swaps for JSON unread — leaves nothing behind in the server: its render's
//! tasks end and its memory goes back. (Leptos frees a render only at the end of its stream; a
//! render dropped half-way kept its tasks and some 50 KB for ever, on both stores.)

use crate::support::*;
use std::io::{Read, Write};
use std::time::Duration;

/// Pages dropped half-way: enough that the old leak (about 50 KB a page of the 300-seat hall,
/// 60 MB in all) stands far above the allocator's noise (about 15 MB).
const ABORTED: usize = 1200;

/// Asks for `path` as a browser would, reads the first 200 bytes of the answer and hangs up
/// with a reset (as a phone losing its network does).
fn hang_up_on(port: u16, path: &str, accept: &str) {
    let mut socket = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connect");
    let request = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: {accept}\r\n\r\n");
    socket.write_all(request.as_bytes()).expect("send");
    let mut first = [0u8; 200];
    let mut read = 0;
    while read < first.len() {
        match socket.read(&mut first[read..]) {
            Ok(0) | Err(_) => break,
            Ok(n) => read += n,
        }
    }
    assert!(
        first.starts_with(b"HTTP/1.1 "),
        "an answer: {:?}",
        String::from_utf8_lossy(&first[..read])
    );
    socket2::SockRef::from(&socket)
        .set_linger(Some(Duration::ZERO))
        .expect("linger");
}

/// `rounds` times `hang_up_on` from four clients at once.
async fn hang_up(port: u16, path: &str, accept: &'static str, rounds: usize) {
    let mut clients = Vec::new();
    for _ in 0..4 {
        let path = path.to_string();
        clients.push(tokio::task::spawn_blocking(move || {
            for _ in 0..rounds / 4 {
                hang_up_on(port, &path, accept);
            }
        }));
    }
    for client in clients {
        client.await.expect("client");
    }
}

fn rss_kb(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .expect("the server's status")
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .expect("VmRSS")
}

/// The least of six readings half a second apart: what the server keeps, not what it has not
/// given back yet.
async fn settled_rss_kb(pid: u32) -> u64 {
    let mut least = u64::MAX;
    for _ in 0..6 {
        tokio::time::sleep(Duration::from_millis(500)).await;
        least = least.min(rss_kb(pid));
    }
    least
}

/// The server's tasks alive, from `/metrics` (asked again while it is busy finishing the
/// pages: a scrape that came back without the figure).
async fn tasks_alive(base: &str) -> i64 {
    let read = || async {
        let answer = reqwest::get(format!("{base}/metrics")).await.ok()?;
        answer
            .text()
            .await
            .ok()?
            .lines()
            .find_map(|l| l.strip_prefix("seats_runtime_tasks_alive "))
            .and_then(|v| v.trim().parse::<i64>().ok())
    };
    eventually(Duration::from_secs(20), read, Option::is_some)
        .await
        .expect("seats_runtime_tasks_alive in /metrics")
}

async fn aborted_page_reads_leave_no_tasks_and_no_memory_behind(backend: Backend) {
    // Arrange: the server as its own process, on this store, and its largest hall's seat map.
    let db = TestDb::new(backend).await;
    let redis = match backend {
        Backend::Postgres => redis_url(),
        Backend::Sqlite => String::new(),
    };
    let (server, base) = server_process(&db.url, &redis, "600", &[("RUST_BACKTRACE", "0")]).await;
    let (pid, port) = (
        server.0.id(),
        base.rsplit(':').next().unwrap().parse().unwrap(),
    );
    let showtimes: Vec<serde_json::Value> = get_json(format!("{base}/showtimes")).await;
    let hall = showtimes
        .iter()
        .max_by_key(|s| s["seatsTotal"].as_u64())
        .expect("a showtime");
    assert_eq!(hall["seatsTotal"], 300);
    let page = format!("/showtimes/{}", hall["id"]);
    // Warm up: the allocator's pools and the caches fill once.
    hang_up(port, &page, "text/html", 200).await;
    let (tasks_before, rss_before) = (tasks_alive(&base).await, settled_rss_kb(pid).await);

    // Act: thousands of seat maps dropped half-way, and pages of an unknown showtime asked for
    // without `text/html` (their 404 page is swapped for JSON, dropped unread).
    hang_up(port, &page, "text/html", ABORTED).await;
    hang_up(port, "/showtimes/999999", "*/*", ABORTED / 4).await;

    // Assert: the renders' tasks end, and the memory stays put.
    let tasks = eventually(
        Duration::from_secs(20),
        || tasks_alive(&base),
        |n| *n <= tasks_before + 20,
    )
    .await;
    let rss_after = settled_rss_kb(pid).await;
    eprintln!(
        "aborted pages: tasks {tasks_before} → {tasks}, RSS {rss_before} KB → {rss_after} KB"
    );
    assert!(
        tasks <= tasks_before + 20,
        "{tasks} tasks alive after {ABORTED} aborted pages, {tasks_before} before"
    );
    let grown_mb = rss_after.saturating_sub(rss_before) as f64 / 1024.0;
    assert!(
        grown_mb < 25.0,
        "RSS grew {grown_mb:.1} MB over {ABORTED} aborted pages ({rss_before} KB → {rss_after} KB)"
    );
    let html = get_text(format!("{base}{page}")).await;
    assert!(
        html.contains("data-test=\"seat-map-page\""),
        "{}",
        page_evidence(&html)
    );
}

on_both_backends!(aborted_page_reads_leave_no_tasks_and_no_memory_behind);
