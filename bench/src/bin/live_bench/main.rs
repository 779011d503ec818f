//! `live-bench`: WebSocket viewers of one showtime (5,000 by default) while holds and
//! cancellations are made through the REST API on a fixed schedule (10, 20 and 200 changes a
//! second by default), against the server and — with the same viewers, frames and schedule —
//! against a reference broadcaster on Node's `ws` package (`bench/peer/live-peer.mjs`). Run it
//! with `scripts/bench-live.sh`.
//!
//! For every seat change a viewer receives, its latency from the moment the request that made it
//! was sent (so an upper bound of commit → receipt); a frame that carries several changes (the
//! server merges what a busy viewer has waiting) counts each of them. Each viewer keeps its own
//! copy of row A from what it received; at the end it must equal the seat map the target then
//! answers (`GET /showtimes/{id}/seats`): a lost delivery shows there. Also the frames each
//! viewer got and the target's peak RSS. Ends with `ratio=<peer p95 ÷ server p95>`, the least
//! over the rates.

use bench::{env, percentile};
use frames::{apply, changes, Pending, RowA, SEATS};
use serde_json::Value;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

mod frames;

/// A viewer's connection: the WebSocket handshake by hand, then the frames read straight off
/// the socket. A WebSocket library per viewer costs the benchmark more CPU than the target
/// spends sending, on the same two cores; this reads what a frame header says and no more.
struct Viewer {
    stream: TcpStream,
    buf: Vec<u8>,
}

impl Viewer {
    async fn connect(addr: &str, path: &str) -> std::io::Result<Self> {
        let mut stream = TcpStream::connect(addr).await?;
        stream.set_nodelay(true)?;
        let request = format!(
            "GET {path} HTTP/1.1\r\nHost: {addr}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
             Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        );
        stream.write_all(request.as_bytes()).await?;
        let mut buf = Vec::with_capacity(64 * 1024);
        let end = loop {
            if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                break end;
            }
            if stream.read_buf(&mut buf).await? == 0 {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
        };
        if !buf.starts_with(b"HTTP/1.1 101") {
            return Err(std::io::Error::other("not upgraded"));
        }
        buf.drain(..end + 4);
        Ok(Self { stream, buf })
    }

    /// The next frame: (opcode, payload); `None` when the connection ended.
    async fn next(&mut self) -> Option<(u8, Vec<u8>)> {
        loop {
            if let Some((header, len)) = Self::header(&self.buf) {
                if self.buf.len() >= header + len {
                    let opcode = self.buf[0] & 0x0f;
                    let payload = self.buf[header..header + len].to_vec();
                    self.buf.drain(..header + len);
                    return Some((opcode, payload));
                }
            }
            match self.stream.read_buf(&mut self.buf).await {
                Ok(0) | Err(_) => return None,
                Ok(_) => {}
            }
        }
    }

    /// A server frame's header length and payload length, once both are in `buf`.
    fn header(buf: &[u8]) -> Option<(usize, usize)> {
        let short = (*buf.get(1)? & 0x7f) as usize;
        match short {
            126 => Some((4, u16::from_be_bytes([*buf.get(2)?, *buf.get(3)?]) as usize)),
            127 => Some((
                10,
                u64::from_be_bytes(buf.get(2..10)?.try_into().ok()?) as usize,
            )),
            n => Some((2, n)),
        }
    }
}

/// Row A as the target's seat map answers it now.
async fn row_a(base: &str, showtime: i64) -> anyhow::Result<RowA> {
    let map: Value = reqwest::get(format!("{base}/showtimes/{showtime}/seats"))
        .await?
        .json()
        .await?;
    let mut row = vec![None; SEATS];
    for seat in map["seats"].as_array().into_iter().flatten() {
        if let (Some(i), Some(status), Some(version)) = (
            seat["code"].as_str().and_then(Pending::seat),
            seat["status"].as_str(),
            seat["version"].as_i64(),
        ) {
            row[i] = Some((status.to_string(), version));
        }
    }
    Ok(row)
}

/// What one run measured.
struct Run {
    p95: f64,
}

/// One target, one number of viewers, one rate.
struct Target<'a> {
    name: &'a str,
    base: &'a str,
    pid: Option<u32>,
}

async fn run(
    target: &Target<'_>,
    showtime: i64,
    viewers: usize,
    changes_total: usize,
    rate: f64,
) -> anyhow::Result<Run> {
    let base = target.base;
    let pending = Arc::new(Pending::new());
    let latencies: Arc<Mutex<Vec<f64>>> = Arc::default();
    let rows: Arc<Mutex<Vec<RowA>>> = Arc::default();
    let frames = Arc::new(AtomicUsize::new(0));
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let ready = Arc::new(AtomicUsize::new(0));
    let addr = base.trim_start_matches("http://").to_string();
    let path = format!("/showtimes/{showtime}/live");
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..viewers {
        let (addr, path, pending, latencies, rows, frames, ready, mut stopped) = (
            addr.clone(),
            path.clone(),
            pending.clone(),
            latencies.clone(),
            rows.clone(),
            frames.clone(),
            ready.clone(),
            stopped.clone(),
        );
        tasks.spawn(async move {
            let mut viewer = None;
            for _ in 0..20 {
                match Viewer::connect(&addr, &path).await {
                    Ok(v) => {
                        viewer = Some(v);
                        break;
                    }
                    Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
                }
            }
            let Some(mut viewer) = viewer else { return };
            let (mut mine, mut row, mut got) = (Vec::new(), vec![None; SEATS], 0usize);
            loop {
                let frame = tokio::select! {
                    f = viewer.next() => f,
                    _ = stopped.changed() => break,
                };
                let Some((opcode, payload)) = frame else {
                    break;
                };
                if opcode != 1 {
                    continue; // pings, and a close the connection's end follows
                }
                let received = Instant::now();
                let Ok(text) = std::str::from_utf8(&payload) else {
                    continue;
                };
                if text.starts_with("{\"type\":\"snapshot\"") {
                    apply(&mut row, text);
                    ready.fetch_add(1, Ordering::Relaxed);
                    continue;
                }
                got += 1;
                for (code, status, _) in changes(text) {
                    let released = status == "AVAILABLE";
                    if let Some(ms) = pending.latency_ms(code, released, received) {
                        mine.push(ms);
                    }
                }
                apply(&mut row, text);
            }
            latencies.lock().unwrap().extend(mine);
            rows.lock().unwrap().push(row);
            frames.fetch_add(got, Ordering::Relaxed);
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

    // Holds and cancels on a fixed schedule, one seat of row A at a time: change k is due
    // k / rate seconds after the start and is sent then, whether or not the ones before it were
    // answered (an even k holds seat k/2 mod 20, the next one cancels that hold once its id is
    // known). The schedule is the load; the target's answers do not slow it down.
    // A customer per seat (each has one hold at a time, as customers may).
    let clients = (0..SEATS)
        .map(|_| reqwest::Client::builder().cookie_store(true).build())
        .collect::<Result<Vec<_>, _>>()?;
    let step = Duration::from_secs_f64(1.0 / rate);
    let started = Instant::now();
    // Each seat's last hold-and-cancel: the seat comes round again only once that is done.
    let mut last: Vec<Option<tokio::task::JoinHandle<anyhow::Result<()>>>> =
        (0..SEATS).map(|_| None).collect();
    for i in 0..changes_total / 2 {
        let seat = format!("A{}", i % SEATS + 1);
        let due_hold = started + step * (2 * i as u32);
        let due_cancel = due_hold + step;
        let (client, pending, base) = (
            clients[i % SEATS].clone(),
            pending.clone(),
            base.to_string(),
        );
        tokio::time::sleep_until(due_hold.into()).await;
        if let Some(before) = last[i % SEATS].take() {
            before.await??;
        }
        last[i % SEATS] = Some(tokio::spawn(async move {
            pending.mark(&seat, false);
            let hold: Value = client
                .post(format!("{base}/showtimes/{showtime}/holds"))
                .json(&serde_json::json!({ "seats": [seat] }))
                .send()
                .await?
                .json()
                .await?;
            tokio::time::sleep_until(due_cancel.into()).await;
            let hold_id = hold["holdId"]
                .as_str()
                .ok_or_else(|| anyhow::anyhow!("hold refused: {hold}"))?;
            pending.mark(&seat, true);
            client
                .delete(format!("{base}/holds/{hold_id}"))
                .send()
                .await?;
            anyhow::Ok(())
        }));
    }
    for handle in last.into_iter().flatten() {
        handle.await??;
    }
    let took = started.elapsed().as_secs_f64();
    // The last frames' time to arrive; then row A as the target's seat map has it (no change
    // follows), which every viewer's copy must equal.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let truth = row_a(base, showtime).await?;
    let rss = target.pid.and_then(bench::process::peak_rss_mb);
    let _ = stop.send(true);
    while tasks.join_next().await.is_some() {}
    let mut all = std::mem::take(&mut *latencies.lock().unwrap());
    all.sort_by(f64::total_cmp);
    let rows = std::mem::take(&mut *rows.lock().unwrap());
    let equal = rows.iter().filter(|r| **r == truth).count();
    let p95 = percentile(&all, 0.95);
    println!(
        "  {name}: viewers={viewers} connected={connected} changes={changes_total} in {took:.1} s ({:.0}/s) \
         p50={:.1}ms p95={p95:.1}ms p99={:.1}ms frames/viewer={:.1} changes received={} \
         maps equal to the seat map={equal}/{} peak_rss={}",
        changes_total as f64 / took,
        percentile(&all, 0.5),
        percentile(&all, 0.99),
        frames.load(Ordering::Relaxed) as f64 / connected.max(1) as f64,
        all.len(),
        rows.len(),
        rss.map_or("n/a".into(), |mb| format!("{mb:.0}MB")),
        name = target.name,
    );
    tokio::time::sleep(Duration::from_secs(1)).await; // let the target close the sockets
    Ok(Run { p95 })
}

/// The 300-seat showtime on sale at `base`.
async fn showtime(base: &str) -> anyhow::Result<i64> {
    let list: Value = reqwest::get(format!("{base}/showtimes"))
        .await?
        .json()
        .await?;
    list.as_array()
        .and_then(|l| {
            l.iter()
                .find(|s| s["seatsTotal"] == 300 && s["salesOpen"] == true)
        })
        .and_then(|s| s["id"].as_i64())
        .ok_or_else(|| anyhow::anyhow!("no 300-seat showtime at {base}"))
}

fn list<T: std::str::FromStr>(key: &str, default: &str) -> anyhow::Result<Vec<T>> {
    std::env::var(key)
        .unwrap_or_else(|_| default.into())
        .split(',')
        .map(|v| {
            v.trim()
                .parse()
                .map_err(|_| anyhow::anyhow!("{key}: not a list of numbers"))
        })
        .collect()
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let var = |key: &str| std::env::var(key).ok();
    let base =
        var("BENCH_BASE").ok_or_else(|| anyhow::anyhow!("set BENCH_BASE=http://host:port"))?;
    let peer = var("BENCH_PEER_BASE");
    let pid = |key| var(key).and_then(|p| p.parse().ok());
    let seconds: f64 = env("BENCH_SECONDS", 10.0);
    let viewers_list: Vec<usize> = list("BENCH_VIEWERS", "5000")?;
    let rates: Vec<f64> = list("BENCH_RATES", "10,20,200")?;
    let ours = Target {
        name: "server",
        base: &base,
        pid: pid("BENCH_SERVER_PID"),
    };
    let theirs = peer.as_deref().map(|base| Target {
        name: "node ws peer",
        base,
        pid: pid("BENCH_PEER_PID"),
    });
    let showtime_ours = showtime(&base).await?;
    println!("live map: showtime {showtime_ours}, holds and cancels of row A, latency from request sent to receipt");
    let mut ratios = Vec::new();
    for &viewers in &viewers_list {
        for &rate in &rates {
            let changes_total = ((rate * seconds) as usize).max(2) / 2 * 2;
            println!("{viewers} viewers, {rate} changes/s for {seconds} s:");
            let mine = run(&ours, showtime_ours, viewers, changes_total, rate).await?;
            if let Some(peer) = &theirs {
                let showtime_peer = showtime(peer.base).await?;
                let other = run(peer, showtime_peer, viewers, changes_total, rate).await?;
                let ratio = other.p95 / mine.p95;
                println!("  ratio at {rate}/s (peer p95 ÷ server p95) = {ratio:.2}");
                ratios.push(ratio);
            }
        }
    }
    if !ratios.is_empty() {
        let least = ratios.iter().copied().fold(f64::INFINITY, f64::min);
        println!("ratio={least:.2}");
    }
    Ok(())
}
