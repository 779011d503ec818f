//! `live-bench`: WebSocket viewers of one showtime on a running server (1,000, then 5,000 by
//! default), while holds and cancellations are made through the REST API at a steady rate.
//! Reports delivery latency p50/p95/p99 per message per viewer, measured from the moment the
//! hold or cancel request is sent (so an upper bound of commit → receipt), the share of expected
//! deliveries that arrived, and the server's peak RSS. Run it with `scripts/bench-live.sh`.

use bench::{env, percentile};
use futures_util::StreamExt;
use serde_json::Value;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::Message;

/// When each change's request was sent, in nanoseconds after `BASE` (0: not yet), by seat of
/// row A (index 0–19) and kind (held, released). Atomics, so that thousands of viewers reading
/// it at once do not queue on a lock and the measuring does not distort what it measures.
struct Pending {
    base: Instant,
    sent: Vec<AtomicU64>,
}

impl Pending {
    fn new() -> Self {
        Self {
            base: Instant::now(),
            sent: (0..40).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    fn slot(seat: &str, released: bool) -> Option<usize> {
        let n: usize = seat.strip_prefix('A')?.parse().ok()?;
        (1..=20)
            .contains(&n)
            .then_some((n - 1) * 2 + usize::from(released))
    }

    fn mark(&self, seat: &str, released: bool) {
        if let Some(i) = Self::slot(seat, released) {
            let nanos = self.base.elapsed().as_nanos() as u64 + 1;
            self.sent[i].store(nanos, Ordering::Relaxed);
        }
    }

    /// Milliseconds from the request to `received`.
    fn latency_ms(&self, seat: &str, released: bool, received: Instant) -> Option<f64> {
        let nanos = self.sent[Self::slot(seat, released)?].load(Ordering::Relaxed);
        (nanos > 0).then(|| {
            let sent = self.base + Duration::from_nanos(nanos - 1);
            received.saturating_duration_since(sent).as_secs_f64() * 1000.0
        })
    }
}

/// The string value after `"key":"` in a live message, without parsing the JSON: the viewers
/// run on the same two cores as the server, so they do as little as a real browser tab would
/// per message (the server's output is checked by the tests, not here).
fn field<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    let start = text.find(key)? + key.len();
    let rest = &text[start..];
    Some(&rest[..rest.find('"')?])
}
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
    let pending = Arc::new(Pending::new());
    let latencies: Arc<Mutex<Vec<f64>>> = Arc::default();
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let ready = Arc::new(AtomicUsize::new(0));
    let url = format!(
        "{}/showtimes/{showtime}/live",
        base.replace("http://", "ws://")
    );
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..viewers {
        let (url, pending, latencies, ready, mut stopped) = (
            url.clone(),
            pending.clone(),
            latencies.clone(),
            ready.clone(),
            stopped.clone(),
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
            let mut mine = Vec::new();
            loop {
                let message = tokio::select! {
                    m = socket.next() => m,
                    _ = stopped.changed() => break,
                };
                let Some(Ok(Message::Text(text))) = message else {
                    if message.is_none() {
                        break;
                    }
                    continue;
                };
                let received = Instant::now();
                let released = match field(&text, "\"type\":\"") {
                    Some("snapshot") => {
                        ready.fetch_add(1, Ordering::Relaxed);
                        continue;
                    }
                    Some("seatsHeld") => false,
                    Some("seatsReleased") => true,
                    _ => continue,
                };
                if let Some(seat) = field(&text, "\"code\":\"") {
                    if let Some(ms) = pending.latency_ms(seat, released, received) {
                        mine.push(ms);
                    }
                }
            }
            latencies.lock().unwrap().extend(mine);
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
        pending.mark(&seat, false);
        let hold: Value = client
            .post(format!("{base}/showtimes/{showtime}/holds"))
            .json(&serde_json::json!({ "seats": [seat] }))
            .send()
            .await?
            .json()
            .await?;
        next += step;
        tokio::time::sleep_until(next.into()).await;
        pending.mark(&seat, true);
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
    let _ = stop.send(true);
    while tasks.join_next().await.is_some() {}
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
        .and_then(|l| {
            l.iter()
                .find(|s| s["seatsTotal"] == 300 && s["salesOpen"] == true)
        })
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
