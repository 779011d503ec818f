//! Seams between features that a hostile tester found: a hot showtime's page for a first-time
//! visitor, a refused large body and the connection after it, the site's files under other
//! methods and dotfiles, a check-in body of `[]`, hall names that differ only in case, and the
//! store's commands without the server's secrets.

use crate::support::*;
use crate::waiting_room::set_room;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::io::{Read, Write};

on_both_backends!(a_hot_showtimes_page_answers_a_first_time_visitor_alike_on_both_stores);

/// With its room on, the seat map's page of a first-time visitor (no cookie) is a page (200,
/// whose script sends them to the queue), on both stores: the room's "no place yet" of the
/// page's own data is not the page's status (it was a 404 on SQLite).
async fn a_hot_showtimes_page_answers_a_first_time_visitor_alike_on_both_stores(backend: Backend) {
    let db = TestDb::new(backend).await;
    let app = TestApp::spawn(&db, "600").await;
    let showtime = first_showtime(&app.base).await;
    let op = operator(&app).await;
    set_room(&op, showtime, true, 1).await;
    for _ in 0..3 {
        let r = reqwest::Client::new()
            .get(app.url(&format!("/showtimes/{showtime}")))
            .header("accept", "text/html")
            .send()
            .await
            .unwrap();
        let (status, url) = (r.status(), r.url().path().to_string());
        let html = r.text().await.unwrap();
        assert_eq!(status, StatusCode::OK, "{url}: {}", page_evidence(&html));
        // Sent to the queue by the server (302) when the page's data came before its head
        // left, else by the page's script.
        assert!(
            url.ends_with("/waiting-room") || html.contains("data-test=\"seat-map-page\""),
            "{url}: {}",
            page_evidence(&html)
        );
    }
}

/// One connection, kept alive: `requests` written one after the other, each answer read whole
/// before the next is sent; the status lines.
fn on_one_connection(base: &str, requests: &[String]) -> Vec<String> {
    let port: u16 = base.rsplit(':').next().unwrap().parse().unwrap();
    let mut socket = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    socket
        .set_read_timeout(Some(std::time::Duration::from_secs(10)))
        .unwrap();
    let mut statuses = Vec::new();
    for request in requests {
        if socket.write_all(request.as_bytes()).is_err() {
            statuses.push("write failed".into());
            break;
        }
        // Headers, then the body by its length.
        let mut got = Vec::new();
        let mut byte = [0u8; 1];
        while !got.ends_with(b"\r\n\r\n") {
            match socket.read(&mut byte) {
                Ok(1) => got.push(byte[0]),
                _ => break,
            }
        }
        let head = String::from_utf8_lossy(&got).to_string();
        let Some(status) = head.lines().next().filter(|l| l.starts_with("HTTP/1.1")) else {
            statuses.push(format!("no answer: {head:?}"));
            break;
        };
        statuses.push(status.to_string());
        let length = head
            .lines()
            .find_map(|l| {
                l.to_ascii_lowercase()
                    .strip_prefix("content-length:")
                    .map(|v| v.trim().to_string())
            })
            .and_then(|v| v.parse::<usize>().ok())
            .unwrap_or(0);
        let mut body = vec![0u8; length];
        socket.read_exact(&mut body).unwrap();
    }
    statuses
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_refused_large_body_leaves_the_connection_for_the_next_request() {
    let db = TestDb::new(Backend::Sqlite).await;
    let app = TestApp::spawn(&db, "600").await;
    let showtime = first_showtime(&app.base).await;
    let big = format!(
        "{{\"seats\": [\"A1\"], \"pad\": \"{}\"}}",
        "x".repeat(40_000)
    );
    let requests = [
        format!(
            "POST /showtimes/{showtime}/holds HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{big}",
            big.len()
        ),
        "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".to_string(),
    ];
    let base = app.base.clone();
    let statuses = tokio::task::spawn_blocking(move || on_one_connection(&base, &requests))
        .await
        .unwrap();
    assert_eq!(statuses.len(), 2, "{statuses:?}");
    assert!(statuses[0].contains("413"), "{statuses:?}");
    assert!(
        statuses[1].contains("200"),
        "the next request is answered: {statuses:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_sites_files_are_only_read_and_no_dotfile_is_served() {
    let db = TestDb::new(Backend::Sqlite).await;
    let site = std::env::temp_dir().join(format!("seats-site-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(site.join("pkg")).unwrap();
    std::fs::write(site.join("pkg/seats.0123456789abcdef.js"), "bundle").unwrap();
    std::fs::write(site.join(".env"), "SESSION_SECRET=do not serve").unwrap();
    std::fs::create_dir_all(site.join(".git")).unwrap();
    std::fs::write(site.join(".git/config"), "[core]").unwrap();
    let root = site.display().to_string();
    let app = TestApp::spawn_with(&db, "600", &[("LEPTOS_SITE_ROOT", &root)]).await;
    let client = reqwest::Client::new();
    let file = app.url("/pkg/seats.0123456789abcdef.js");
    assert_eq!(
        client.get(&file).send().await.unwrap().status(),
        StatusCode::OK
    );
    for method in ["POST", "PUT", "DELETE", "TRACE"] {
        let r = client
            .request(
                reqwest::Method::from_bytes(method.as_bytes()).unwrap(),
                &file,
            )
            .send()
            .await
            .unwrap();
        let status = r.status();
        let allow = r
            .headers()
            .get("allow")
            .map(|v| v.to_str().unwrap().to_string());
        let body = r.text().await.unwrap();
        assert_ne!(body, "bundle", "{method} is not answered with the file");
        assert!(status.is_client_error(), "{method}: {status}");
        if method != "POST" && method != "PUT" && method != "DELETE" {
            continue;
        }
        // (A state-changing method from no browser passes the cross-site check.)
        assert_eq!(
            (status, allow.as_deref()),
            (StatusCode::METHOD_NOT_ALLOWED, Some("GET, HEAD")),
            "{method}"
        );
    }
    for dotfile in [
        "/.env",
        "/.git/config",
        "/pkg/../.env",
        "/%2eenv",
        "/%2Egit/config",
    ] {
        let r = client.get(app.url(dotfile)).send().await.unwrap();
        let status = r.status();
        let body = r.text().await.unwrap();
        assert!(
            !body.contains("do not serve") && !body.contains("[core]"),
            "{dotfile}: {body}"
        );
        assert_eq!(status, StatusCode::NOT_FOUND, "{dotfile}");
    }
    let _ = std::fs::remove_dir_all(&site);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_check_in_body_is_an_object_and_hall_names_differ_by_more_than_case() {
    let db = TestDb::new(Backend::Sqlite).await;
    let app = TestApp::spawn(&db, "600").await;
    let door = crate::box_office::member(&app, "ahn", server::staff::StaffRole::Door, "3333").await;
    let r = door
        .post(app.url("/tickets/SEATS1-nothing/check-in"))
        .json(&json!([]))
        .send()
        .await
        .unwrap();
    assert_eq!(
        r.status(),
        StatusCode::BAD_REQUEST,
        "[] is not \"no showtime\""
    );
    let op = operator(&app).await;
    let halls: Value = op.halls(json!({})).await.1;
    let name = halls[0]["name"].as_str().expect("a hall").to_string();
    let (status, plan) = op.export_hall(json!({ "hall_id": halls[0]["id"] })).await;
    assert_eq!(status, StatusCode::OK, "{plan}");
    let mut copy = plan.clone();
    copy["name"] = json!(name.to_uppercase());
    let (status, body) = op.import_hall(json!({ "plan": copy })).await;
    assert_eq!(
        (status, body["kind"].as_str()),
        (StatusCode::CONFLICT, Some("HallNameTaken")),
        "{body}"
    );
}

/// `server staff list` on PostgreSQL needs the database, not the server's secrets.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_store_commands_need_no_secrets() {
    let db = TestDb::new(Backend::Postgres).await;
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_server"))
        .args(["staff", "list"])
        .env_clear()
        .env("DATABASE_URL", &db.url)
        .env("RUST_LOG", "warn")
        .output()
        .expect("the server binary runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
