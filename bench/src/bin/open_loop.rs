//! `open-loop`: hold requests at a constant arrival rate, as customers arrive whether or not the
//! server has answered the ones before (unlike wrk, whose next request waits for the answer and
//! so hides the queue). Request k is due at `k / rate` seconds after the start; its latency is
//! counted from that moment, not from when a connection was free to send it, so time spent
//! queued at the client counts too (the correction wrk2 makes for coordinated omission).
//!
//! `BENCH_BASE` (http://host:port), `BENCH_PATH` (/showtimes/{id}/holds), `BENCH_RATE`
//! (requests a second), `BENCH_SECONDS`, `BENCH_CONNECTIONS` (kept open, 256), `BENCH_SEATS`
//! ("pair": two adjacent seats in a random row A–O; "one": one random seat of the 15 rows × 20;
//! "none": no seats, which the server refuses with 400 before any work).
//! Each request carries no cookie, so each is a new customer. Prints one `RESULT` line:
//! requests sent and answered, answers by status, the rate achieved, latency p50/p99/p99.9/max
//! in ms, and the times (ms after the start) of the first and the last 201.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// What each request asks for.
#[derive(Clone, Copy)]
enum Seats {
    /// Two adjacent seats of a random row.
    Pair,
    /// One random seat.
    One,
    /// No seats: refused with 400 before any work (the server's floor).
    None,
}

/// A request's body.
fn body(k: u64, seats: Seats) -> String {
    // A fixed mix of the index (splitmix64): every run asks for the same seats in the same order.
    let mut x = k.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^= x >> 31;
    if matches!(seats, Seats::None) {
        return r#"{"seats":[]}"#.to_string();
    }
    if matches!(seats, Seats::Pair) {
        let row = (b'A' + (x % 15) as u8) as char;
        let seat = (x >> 8) % 19 + 1;
        format!(r#"{{"seats":["{row}{seat}","{row}{}"]}}"#, seat + 1)
    } else {
        let row = (b'A' + (x % 15) as u8) as char;
        let seat = (x >> 8) % 20 + 1;
        format!(r#"{{"seats":["{row}{seat}"]}}"#)
    }
}

/// Reads one HTTP/1.1 answer (headers, then a body of `Content-Length` bytes); its status.
async fn answer(stream: &mut TcpStream, buf: &mut Vec<u8>) -> std::io::Result<u16> {
    let bad = |what: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, what.to_string());
    loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = std::str::from_utf8(&buf[..end]).map_err(|_| bad("head"))?;
            let status: u16 = head
                .get(9..12)
                .and_then(|s| s.parse().ok())
                .ok_or_else(|| bad("status"))?;
            let length: usize = head
                .lines()
                .find_map(|l| {
                    let (k, v) = l.split_once(':')?;
                    k.eq_ignore_ascii_case("content-length")
                        .then(|| v.trim().parse().ok())?
                })
                .unwrap_or(0);
            let total = end + 4 + length;
            while buf.len() < total {
                let mut chunk = [0u8; 4096];
                let n = stream.read(&mut chunk).await?;
                if n == 0 {
                    return Err(bad("closed"));
                }
                buf.extend_from_slice(&chunk[..n]);
            }
            buf.drain(..total);
            return Ok(status);
        }
        let mut chunk = [0u8; 4096];
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            return Err(bad("closed"));
        }
        buf.extend_from_slice(&chunk[..n]);
    }
}

#[derive(Default)]
struct Tally {
    latencies_us: Vec<u64>,
    statuses: std::collections::BTreeMap<u16, u64>,
    errors: u64,
    first_201_us: Option<u64>,
    last_201_us: Option<u64>,
}

fn percentile(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize] as f64 / 1000.0
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let var = |k: &str, d: &str| std::env::var(k).unwrap_or_else(|_| d.to_string());
    let base = var("BENCH_BASE", "http://127.0.0.1:3000");
    let addr = base.trim_start_matches("http://").to_string();
    let path = var("BENCH_PATH", "/showtimes/1/holds");
    let rate: f64 = var("BENCH_RATE", "1000").parse()?;
    let seconds: f64 = var("BENCH_SECONDS", "10").parse()?;
    let connections: usize = var("BENCH_CONNECTIONS", "256").parse()?;
    let seats = match var("BENCH_SEATS", "pair").as_str() {
        "pair" => Seats::Pair,
        "one" => Seats::One,
        "none" => Seats::None,
        other => anyhow::bail!("BENCH_SEATS: pair, one or none, not {other}"),
    };
    let total = (rate * seconds).round() as u64;
    let interval_ns = 1e9 / rate;

    let next = Arc::new(AtomicU64::new(0));
    let start = Instant::now() + Duration::from_millis(200);
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..connections {
        let (next, addr, path) = (next.clone(), addr.clone(), path.clone());
        tasks.spawn(async move {
            let mut tally = Tally::default();
            let mut stream: Option<TcpStream> = None;
            let mut buf = Vec::with_capacity(8192);
            loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                if k >= total {
                    break;
                }
                let due = start + Duration::from_nanos((k as f64 * interval_ns) as u64);
                tokio::time::sleep_until(due.into()).await;
                let body = body(k, seats);
                let request = format!(
                    "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
                    body.len()
                );
                if stream.is_none() {
                    match TcpStream::connect(&addr).await {
                        Ok(s) => {
                            let _ = s.set_nodelay(true);
                            stream = Some(s);
                        }
                        Err(_) => {
                            tally.errors += 1;
                            continue;
                        }
                    }
                }
                let s = stream.as_mut().expect("connected");
                buf.clear();
                let outcome = match s.write_all(request.as_bytes()).await {
                    Ok(()) => answer(s, &mut buf).await,
                    Err(e) => Err(e),
                };
                let done = Instant::now();
                match outcome {
                    Ok(status) => {
                        tally.latencies_us.push(done.saturating_duration_since(due).as_micros() as u64);
                        *tally.statuses.entry(status).or_default() += 1;
                        if status == 201 {
                            let at = done.saturating_duration_since(start).as_micros() as u64;
                            tally.first_201_us = Some(tally.first_201_us.map_or(at, |f| f.min(at)));
                            tally.last_201_us = Some(tally.last_201_us.map_or(at, |l| l.max(at)));
                        }
                    }
                    Err(_) => {
                        tally.errors += 1;
                        stream = None;
                    }
                }
            }
            tally
        });
    }
    let mut all = Tally::default();
    while let Some(t) = tasks.join_next().await {
        let t = t?;
        all.latencies_us.extend(t.latencies_us);
        for (s, n) in t.statuses {
            *all.statuses.entry(s).or_default() += n;
        }
        all.errors += t.errors;
        all.first_201_us = match (all.first_201_us, t.first_201_us) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        all.last_201_us = all.last_201_us.max(t.last_201_us);
    }
    let took = start.elapsed().as_secs_f64();
    all.latencies_us.sort_unstable();
    let answered = all.latencies_us.len();
    let statuses: Vec<String> = all
        .statuses
        .iter()
        .map(|(s, n)| format!("s{s}={n}"))
        .collect();
    let ms =
        |us: Option<u64>| us.map_or("none".to_string(), |u| format!("{:.1}", u as f64 / 1000.0));
    println!(
        "RESULT sent={total} answered={answered} errors={} {} seconds={took:.2} achieved={:.0} \
         p50_ms={:.2} p99_ms={:.2} p999_ms={:.2} max_ms={:.2} first_201_ms={} last_201_ms={}",
        all.errors,
        statuses.join(" "),
        answered as f64 / took,
        percentile(&all.latencies_us, 0.5),
        percentile(&all.latencies_us, 0.99),
        percentile(&all.latencies_us, 0.999),
        percentile(&all.latencies_us, 1.0),
        ms(all.first_201_us),
        ms(all.last_201_us),
    );
    Ok(())
}
