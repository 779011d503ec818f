//! `room-bench`: a hot sale through the waiting room of a running server. Shoppers join first;
//! then `BENCH_PLACES` more people take places behind them, and `BENCH_PAGES` of those keep a
//! waiting page's WebSocket open. Admissions are then let run: the shoppers poll until admitted
//! and hold two seats with their admission (each its own pair, as people who chose on the map;
//! `BENCH_PICK=best`: the best two available, all after the same ones), while the room's frame reaches every page
//! each time it changes. Reports the joins per second, how long a new frame takes to reach every
//! page after the first one got it and its age when a page got it (p50/p95/p99), the server's peak RSS and CPU per admission,
//! and for the shoppers: the hold's latency (p50/p99), seats held per second, and hold
//! statements the database ran per seat held. Run it with `scripts/bench-room.sh`.

use bench::process::{cpu_seconds, proc_field, settled_rss_mb};
use bench::{env, percentile};
use futures_util::StreamExt;
use serde_json::{json, Value};
use shop::{shop_run, Shop};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::Message;

mod shop;

/// A counter of `/metrics`.
async fn metric(client: &reqwest::Client, base: &str, name: &str) -> f64 {
    let text = match client.get(format!("{base}/metrics")).send().await {
        Ok(r) => r.text().await.unwrap_or_default(),
        Err(_) => String::new(),
    };
    text.lines()
        .find(|l| l.starts_with(name) && l[name.len()..].starts_with(' '))
        .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        .unwrap_or(0.0)
}

async fn set_room(
    op: &reqwest::Client,
    base: &str,
    showtime: i64,
    paused: bool,
) -> anyhow::Result<()> {
    let r = op
        .post(format!("{base}/api/set_waiting_room"))
        .json(&json!({
            "showtime_id": showtime, "on": true, "paused": paused,
            "max_active": env("BENCH_MAX_ACTIVE", 200u32),
            "admit_per_minute": env("BENCH_ADMIT_PER_MINUTE", 6000u32),
        }))
        .send()
        .await?;
    anyhow::ensure!(r.status() == 200, "set_waiting_room: {}", r.text().await?);
    Ok(())
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let base: String = env("BENCH_BASE", "http://127.0.0.1:3000".to_string());
    let pid: Option<u32> = std::env::var("BENCH_SERVER_PID")
        .ok()
        .and_then(|p| p.parse().ok());
    let places: usize = env("BENCH_PLACES", 100_000);
    let pages: usize = env("BENCH_PAGES", 15_000).min(places);
    let shoppers: usize = env("BENCH_SHOPPERS", 140).min(150);
    let best = env("BENCH_PICK", "seats".to_string()) == "best";
    let think = Duration::from_millis(env("BENCH_THINK_MS", 2000));
    let seconds: u64 = env("BENCH_SECONDS", 20);
    let password: String = env("BENCH_OPERATOR_PASSWORD", String::new());

    let list: Value = reqwest::get(format!("{base}/showtimes"))
        .await?
        .json()
        .await?;
    let showtime = list
        .as_array()
        .and_then(|l| {
            l.iter()
                .filter(|s| s["salesOpen"] == true)
                .max_by_key(|s| s["seatsTotal"].as_i64())
        })
        .and_then(|s| s["id"].as_i64())
        .ok_or_else(|| anyhow::anyhow!("no showtime on sale"))?;
    let op = reqwest::Client::builder().cookie_store(true).build()?;
    let r = op
        .post(format!("{base}/api/staff_sign_in"))
        .json(&json!({ "name": "operator", "password": password }))
        .send()
        .await?;
    anyhow::ensure!(r.status() == 200, "operator sign-in: {}", r.text().await?);
    set_room(&op, &base, showtime, true).await?;
    let queue = format!("{base}/showtimes/{showtime}/queue");

    // The shoppers first: they are at the front. They run on a thread and runtime of their own,
    // so that the thousands of pages this process also plays do not delay their requests.
    let (joined_tx, joined_rx) = std::sync::mpsc::channel::<anyhow::Result<()>>();
    let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
    let (shop_queue, shop_base) = (queue.clone(), base.clone());
    let shop = std::thread::spawn(move || -> Vec<(f64, usize, Instant)> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        let shop = Shop {
            queue: shop_queue,
            base: shop_base,
            showtime,
            shoppers,
            best,
            think,
        };
        runtime.block_on(shop_run(shop, joined_tx, go_rx))
    });
    joined_rx.recv()??;

    // Everyone else: one place each (no cookie: each join is a new customer).
    let started = Instant::now();
    let plain = reqwest::Client::builder()
        .pool_max_idle_per_host(64)
        .build()?;
    let joined: Vec<Option<(u64, String)>> = futures_util::stream::iter(0..places)
        .map(|_| {
            let (c, url) = (plain.clone(), queue.clone());
            async move {
                let r = c.post(url).send().await.ok()?;
                let v: Value = r.json().await.ok()?;
                Some((v["number"].as_u64()?, v["ticket"].as_str()?.to_string()))
            }
        })
        .buffer_unordered(64)
        .collect()
        .await;
    let join_secs = started.elapsed().as_secs_f64();
    let mut tickets: Vec<(u64, String)> = joined.into_iter().flatten().collect();
    tickets.sort();
    println!(
        "places: {} of {places} joined in {join_secs:.1} s ({:.0} joins/s)",
        tickets.len(),
        tickets.len() as f64 / join_secs
    );
    let settle: u64 = env("BENCH_SETTLE_SECONDS", 12);
    let rss_joined = settled_rss_mb(pid, settle).await;

    // Waiting pages: the first `pages` places keep the room's live frame open.
    let ws = format!("{}/live", queue.replace("http://", "ws://"));
    let receipts: Arc<Mutex<Vec<(u64, Instant)>>> = Arc::default();
    // Each frame's age when a page got it: from the server's clock in the frame (`at`, the same
    // machine's clock) to the page's.
    let ages: Arc<Mutex<Vec<f64>>> = Arc::default();
    let connected = Arc::new(AtomicUsize::new(0));
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let mut tasks = tokio::task::JoinSet::new();
    for (i, (_, ticket)) in tickets.iter().take(pages).enumerate() {
        let url = format!("{ws}?ticket={ticket}");
        let (receipts, connected, mut stopped) =
            (receipts.clone(), connected.clone(), stopped.clone());
        let ages = ages.clone();
        tasks.spawn(async move {
            let Ok((mut socket, _)) = tokio_tungstenite::connect_async(url.as_str()).await else {
                return;
            };
            connected.fetch_add(1, Ordering::Relaxed);
            let mut mine = Vec::new();
            let mut my_ages = Vec::new();
            let mut seen = 0u32;
            loop {
                let message = tokio::select! {
                    m = socket.next() => m,
                    _ = stopped.changed() => break,
                };
                match message {
                    Some(Ok(Message::Text(text))) => {
                        // The number after "served", without parsing the frame: as little work
                        // per message as a browser tab (the pages run on the server's cores).
                        let at = Instant::now();
                        let served = text
                            .split_once("\"served\":")
                            .and_then(|(_, rest)| rest.split(|c: char| !c.is_ascii_digit()).next())
                            .and_then(|n| n.parse::<u64>().ok());
                        // The first frame is the room as it was when the page connected: not an
                        // update; it is not counted.
                        seen += 1;
                        if seen == 1 {
                            continue;
                        }
                        if let Some(served) = served {
                            mine.push((served, at));
                        }
                        let made = text
                            .split_once("\"at\":")
                            .and_then(|(_, rest)| rest.split(|c: char| !c.is_ascii_digit()).next())
                            .and_then(|n| n.parse::<i64>().ok());
                        if let Some(made) = made {
                            let now = std::time::SystemTime::now()
                                .duration_since(std::time::UNIX_EPOCH)
                                .map_or(0, |d| d.as_millis() as i64);
                            my_ages.push((now - made).max(0) as f64);
                        }
                    }
                    Some(Ok(_)) => {}
                    _ => break,
                }
            }
            receipts.lock().unwrap().extend(mine);
            ages.lock().unwrap().extend(my_ages);
        });
        if i % 500 == 499 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    let deadline = Instant::now() + Duration::from_secs(60);
    while connected.load(Ordering::Relaxed) < pages && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let pages_on = connected.load(Ordering::Relaxed);
    println!("pages: {pages_on} of {pages} connected");
    // The server's memory with the pages open, once their connections settled.
    let rss_pages = settled_rss_mb(pid, settle).await;

    // Admissions run.
    let (cpu0, admitted0, statements0) = (
        pid.and_then(cpu_seconds).unwrap_or(0.0),
        metric(&op, &base, "seats_waiting_room_admitted_total").await,
        metric(&op, &base, "seats_hold_db_statements_total").await,
    );
    let phase = Instant::now();
    set_room(&op, &base, showtime, false).await?;
    let _ = go_tx.send(());
    let holds = shop
        .join()
        .map_err(|_| anyhow::anyhow!("the shoppers' thread failed"))?;
    let remaining = Duration::from_secs(seconds).saturating_sub(phase.elapsed());
    tokio::time::sleep(remaining).await;
    let elapsed = phase.elapsed().as_secs_f64();
    let (cpu1, admitted1, statements1) = (
        pid.and_then(cpu_seconds).unwrap_or(0.0),
        metric(&op, &base, "seats_waiting_room_admitted_total").await,
        metric(&op, &base, "seats_hold_db_statements_total").await,
    );
    // The end state, settled like the readings before, with the pages the server still counts.
    let rss_end = settled_rss_mb(pid, settle).await;
    let pages_end = metric(&op, &base, "seats_waiting_room_pages").await as usize;
    let _ = stop.send(true);
    while tasks.join_next().await.is_some() {}

    // A frame's latency: from the first page that got it to each page that got it.
    let receipts = receipts.lock().unwrap();
    let mut first: HashMap<u64, Instant> = HashMap::new();
    for (served, at) in receipts.iter() {
        first
            .entry(*served)
            .and_modify(|t| *t = (*t).min(*at))
            .or_insert(*at);
    }
    let mut spread: Vec<f64> = receipts
        .iter()
        .map(|(s, at)| at.saturating_duration_since(first[s]).as_secs_f64() * 1000.0)
        .collect();
    spread.sort_by(f64::total_cmp);
    let admissions = admitted1 - admitted0;
    println!(
        "frames: {} changes, {} deliveries to {pages_on} pages; after the first page, p50 {:.0} ms, p95 {:.0} ms, p99 {:.0} ms",
        first.len(),
        receipts.len(),
        percentile(&spread, 0.5),
        percentile(&spread, 0.95),
        percentile(&spread, 0.99)
    );
    let mut ages = ages.lock().unwrap().clone();
    ages.sort_by(f64::total_cmp);
    println!(
        "update latency (the frame's age when a page got it, from the server making it): p50 {:.0} ms, p95 {:.0} ms, p99 {:.0} ms",
        percentile(&ages, 0.5),
        percentile(&ages, 0.95),
        percentile(&ages, 0.99)
    );
    let own_cpu = cpu_seconds(std::process::id()).unwrap_or(0.0);
    println!("this benchmark's own process (the pages and shoppers): {own_cpu:.1} CPU-s in all");
    let peak = pid
        .and_then(|p| proc_field(p, "status", "VmHWM:"))
        .unwrap_or(0.0)
        / 1024.0;
    println!(
        "server: RSS {rss_joined:.0} MB with {} places, {rss_pages:.0} MB with {pages_on} pages open ({:.1} KB a page), peak {peak:.0} MB; {:.1} CPU-s over {elapsed:.0} s, {admissions:.0} admissions, {:.2} CPU-ms per admission",
        tickets.len(),
        (rss_pages - rss_joined) * 1024.0 / pages_on.max(1) as f64,
        cpu1 - cpu0,
        (cpu1 - cpu0) * 1000.0 / admissions.max(1.0)
    );
    // One process here may open 20,000 files, so a server here cannot hold 100,000 pages: their
    // memory is the server's at the end (all places, the pages measured, the admissions and
    // holds done) plus the measured cost of a page for each page not opened.
    let per_page_mb = (rss_pages - rss_joined) / pages_on.max(1) as f64;
    let missing = 100_000usize.saturating_sub(pages_end);
    println!(
        "server RSS at the end, {pages_end} pages still open (the server's count): {rss_end:.0} MB; with 100,000 pages, estimated (+ {:.1} KB for each of the {missing} not opened): {:.0} MB",
        per_page_mb * 1024.0,
        rss_end + per_page_mb * missing as f64
    );
    let mut ms: Vec<f64> = holds.iter().map(|h| h.0).collect();
    ms.sort_by(f64::total_cmp);
    let seats: usize = holds.iter().map(|h| h.1).sum();
    let last = holds.iter().map(|h| h.2).max().unwrap_or(phase);
    let span = last
        .saturating_duration_since(phase)
        .as_secs_f64()
        .max(0.001);
    println!(
        "shoppers: {} of {shoppers} held, {seats} seats in {span:.1} s ({:.0} seats/s); hold p50 {:.1} ms, p99 {:.1} ms; {:.2} hold statements per seat held",
        holds.iter().filter(|h| h.1 > 0).count(),
        seats as f64 / span,
        percentile(&ms, 0.5),
        percentile(&ms, 0.99),
        (statements1 - statements0) / (seats.max(1) as f64)
    );
    anyhow::ensure!(
        pages_on > 0 && !holds.is_empty() && seats > 0,
        "the benchmark did not run"
    );
    Ok(())
}
