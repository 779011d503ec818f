//! `live-bench`: WebSocket viewers of one showtime on a running server (1,000, then 5,000 by
//! default), while holds and cancellations are made through the REST API at a steady rate.
//! Reports delivery latency p50/p95/p99 per message per viewer, measured from the moment the
//! hold or cancel request is sent (so an upper bound of commit → receipt), the share of expected
//! deliveries that arrived, and the server's peak RSS. Run it with `scripts/bench-live.sh`.

use futures_util::StreamExt;
use serde_json::Value;
use server::benchkit::{env, percentile};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::Message;

type Pending = Arc<Mutex<HashMap<(String, &'static str), Instant>>>;

/// Peak resident set size of a process, in MB (`VmHWM`).
fn peak_rss_mb(pid: u32) -> Option<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

async fn run(
    base: &str,
    showtime: i64,
    viewers: usize,
    ops: usize,
    rate: f64,
    pid: Option<u32>,
) -> anyhow::Result<()> {
    let pending: Pending = Arc::default();
    let latencies: Arc<Mutex<Vec<f64>>> = Arc::default();
    let ready = Arc::new(AtomicUsize::new(0));
    let url = format!(
        "{}/showtimes/{showtime}/live",
        base.replace("http://", "ws://")
    );
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..viewers {
        let (url, pending, latencies, ready) = (
            url.clone(),
            pending.clone(),
            latencies.clone(),
            ready.clone(),
        );
        tasks.spawn(async move {
            let mut socket = None;
            for _ in 0..20 {
                match tokio_tungstenite::connect_async(url.as_str()).await {
                    Ok((s, _)) => {
                        socket = Some(s);
                        break;
                    }
                    Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
                }
            }
            let Some(mut socket) = socket else { return };
            while let Some(Ok(message)) = socket.next().await {
                let Message::Text(text) = message else {
                    continue;
                };
                let received = Instant::now();
                let Ok(v) = serde_json::from_str::<Value>(&text) else {
                    continue;
                };
                let kind: &'static str = match v["type"].as_str() {
                    Some("snapshot") => {
                        ready.fetch_add(1, Ordering::Relaxed);
                        continue;
                    }
                    Some("seatsHeld") => "seatsHeld",
                    Some("seatsReleased") => "seatsReleased",
                    _ => continue,
                };
                let seat = v["seats"][0]["code"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string();
                if let Some(sent) = pending.lock().unwrap().get(&(seat, kind)).copied() {
                    latencies
                        .lock()
                        .unwrap()
                        .push((received - sent).as_secs_f64() * 1000.0);
                }
            }
        });
        if i % 200 == 199 {
            tokio::time::sleep(Duration::from_millis(20)).await; // pace the handshakes
        }
    }
    let deadline = Instant::now() + Duration::from_secs(60);
    while ready.load(Ordering::Relaxed) < viewers && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let connected = ready.load(Ordering::Relaxed);

    // Holds and cancels at a steady rate, one seat of row A at a time.
    let client = reqwest::Client::builder().cookie_store(true).build()?;
    let step = Duration::from_secs_f64(1.0 / rate);
    let mut next = Instant::now();
    for i in 0..ops {
        let seat = format!("A{}", i % 20 + 1);
        pending
            .lock()
            .unwrap()
            .insert((seat.clone(), "seatsHeld"), Instant::now());
        let hold: Value = client
            .post(format!("{base}/showtimes/{showtime}/holds"))
            .json(&serde_json::json!({ "seats": [seat] }))
            .send()
            .await?
            .json()
            .await?;
        next += step;
        tokio::time::sleep_until(next.into()).await;
        pending
            .lock()
            .unwrap()
            .insert((seat.clone(), "seatsReleased"), Instant::now());
        let hold_id = hold["holdId"]
            .as_str()
            .ok_or_else(|| anyhow::anyhow!("hold refused: {hold}"))?;
        client
            .delete(format!("{base}/holds/{hold_id}"))
            .send()
            .await?;
        next += step;
        tokio::time::sleep_until(next.into()).await;
    }
    tokio::time::sleep(Duration::from_secs(2)).await; // stragglers
    let rss = pid.and_then(peak_rss_mb);
    tasks.abort_all();
    let mut all = std::mem::take(&mut *latencies.lock().unwrap());
    all.sort_by(f64::total_cmp);
    let expected = connected * ops * 2;
    println!(
        "viewers={viewers} connected={connected} deliveries={}/{expected} p50={:.1}ms p95={:.1}ms p99={:.1}ms server_peak_rss={}",
        all.len(),
        percentile(&all, 0.5),
        percentile(&all, 0.95),
        percentile(&all, 0.99),
        rss.map_or("n/a".into(), |mb| format!("{mb:.0}MB")),
    );
    tokio::time::sleep(Duration::from_secs(1)).await; // let the server close the sockets
    Ok(())
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let base = std::env::var("BENCH_BASE")
        .map_err(|_| anyhow::anyhow!("set BENCH_BASE=http://host:port"))?;
    let pid: Option<u32> = std::env::var("BENCH_SERVER_PID")
        .ok()
        .and_then(|p| p.parse().ok());
    let ops: usize = env("BENCH_OPS", 50);
    let rate: f64 = env("BENCH_RATE", 20.0);
    let list: Value = reqwest::get(format!("{base}/showtimes"))
        .await?
        .json()
        .await?;
    let showtime = list
        .as_array()
        .and_then(|l| l.iter().find(|s| s["seatsTotal"] == 300))
        .and_then(|s| s["id"].as_i64())
        .ok_or_else(|| anyhow::anyhow!("no 300-seat showtime"))?;
    println!("live map: showtime {showtime}, {ops} holds + {ops} cancels at {rate} changes/s, latency from request sent to receipt");
    for viewers in std::env::var("BENCH_VIEWERS")
        .unwrap_or_else(|_| "1000,5000".into())
        .split(',')
    {
        run(&base, showtime, viewers.trim().parse()?, ops, rate, pid).await?;
    }
    Ok(())
}
