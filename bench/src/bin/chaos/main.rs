//! `chaos`: the sale and the invariant checker of `scripts/chaos.sh`.
//!
//! `chaos load <dir>` drives a sale through the reference deployment's balancer (`CHAOS_URL`)
//! until `<dir>/stop` exists: customers (`CHAOS_CUSTOMERS`, 24) look at a seat map, hold two
//! adjacent seats, and then cancel, walk away, or check out and pay on the sandbox's page (or
//! decline there), and some cancel their booking afterwards — the quieter showtime's customers
//! queue in its waiting room first (`room.rs`); a clerk sells at the counter (`counter.rs`); viewers (`CHAOS_VIEWERS`, 12) keep
//! a live seat map open, reconnecting when dropped. Then it lets the sweeper catch up
//! (`CHAOS_SETTLE_SECONDS`, 8) and compares each viewer's map with the seat map the API serves.
//! It writes `requests.tsv` (per second: answers by class — 2xx, 4xx, 5xx, or `error` for no
//! answer), `5xx.tsv` (each 5xx and failed request: second, request, answer), `refusals.tsv`
//! (every answer other than 2xx, by request, status and code), `sessions.txt` (the gateway
//! sessions the customers tried to pay) and `live.tsv` (seats each viewer saw otherwise).
//!
//! `chaos check <dir>` reads the database (`CHAOS_DATABASE_URL`, straight to PostgreSQL), the
//! topic (`CHAOS_BROKERS`, `CHAOS_TOPIC`), the gateway (`CHAOS_SANDBOX_URL`), the mail sink
//! (`CHAOS_MAILDIR`) and what `load` wrote, prints the invariants as a Markdown table, and fails
//! when one does not hold.
//!
//! `chaos settled <dir>` prints how many events on the topic the consumer groups have not read
//! yet, and fails unless none.

use bench::env;
use rand::Rng;
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

mod check;
mod counter;
mod room;
mod sale;
mod viewers;

use sale::{now_ms, Sale};
use viewers::viewer;

/// Two adjacent free seats of the map (same row, numbers n and n + 1), at random.
fn free_pair(map: &Value) -> Option<[String; 2]> {
    let seats = map["seats"].as_array()?;
    let free: HashSet<(String, i64)> = seats
        .iter()
        .filter(|s| s["status"] == "AVAILABLE")
        .filter_map(|s| Some((s["row"].as_str()?.to_string(), s["number"].as_i64()?)))
        .collect();
    let mut pairs: Vec<[String; 2]> = free
        .iter()
        .filter(|(row, n)| free.contains(&(row.clone(), n + 1)))
        .map(|(row, n)| [format!("{row}{n}"), format!("{row}{}", n + 1)])
        .collect();
    pairs.sort();
    if pairs.is_empty() {
        return None;
    }
    let i = rand::rng().random_range(0..pairs.len());
    Some(pairs.swap_remove(i))
}

/// One customer's visits until the sale stops.
async fn customer(sale: Sale, showtimes: Vec<i64>, n: usize) {
    // A browser of its own (its session cookie): a new one for each new person.
    let browser = || {
        reqwest::Client::builder()
            .cookie_store(true)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("client")
    };
    let mut client = browser();
    let base = sale.base.clone();
    while !sale.stopped() {
        let pause = rand::rng().random_range(200..800);
        tokio::time::sleep(Duration::from_millis(pause)).await;
        // The first showtime is the busy one; the other has the waiting room.
        let st = if rand::rng().random_bool(0.6) {
            showtimes[0]
        } else {
            showtimes[showtimes.len() - 1]
        };
        let admission = match sale.room {
            Some(room) if room == st => room::admit(&sale, &client, st).await,
            _ => None,
        };
        // The end of this admission's stay (see room.rs).
        let leave = |end: u128| {
            if let Some((_, start)) = &admission {
                sale.admissions.lock().unwrap().push((*start, end));
            }
        };
        let Some((200, map)) = sale
            .send(
                "GET /showtimes/{id}/seats",
                client.get(format!("{base}/showtimes/{st}/seats")),
            )
            .await
        else {
            continue;
        };
        if admission.is_some() {
            // A shopper let in looks at the map before choosing: a stay long enough that a room
            // letting in too many shows it (the control).
            let think = rand::rng().random_range(1000..2000);
            tokio::time::sleep(Duration::from_millis(think)).await;
        }
        let Some(pair) = free_pair(&map) else {
            leave(now_ms());
            continue;
        };
        let mut hold_request = client
            .post(format!("{base}/showtimes/{st}/holds"))
            .json(&json!({ "seats": pair }));
        if let Some((token, _)) = &admission {
            hold_request = hold_request.header("Admission-Token", token);
        }
        let sent = now_ms();
        let Some((201, hold)) = sale.send("POST /showtimes/{id}/holds", hold_request).await else {
            leave(sent);
            continue;
        };
        let hold_id = hold["holdId"].as_str().unwrap_or_default().to_string();
        let choice: f64 = rand::rng().random();
        if choice < 0.2 {
            leave(now_ms());
            sale.send(
                "DELETE /holds/{id}",
                client.delete(format!("{base}/holds/{hold_id}")),
            )
            .await;
            continue;
        }
        if choice < 0.3 {
            // Walks away: the hold lapses by itself; the next visit is someone else's.
            leave(now_ms());
            client = browser();
            continue;
        }
        let Some((201, booking)) = sale
            .send(
                "POST /holds/{id}/checkout",
                client
                    .post(format!("{base}/holds/{hold_id}/checkout"))
                    .header("Idempotency-Key", uuid::Uuid::new_v4().to_string())
                    .json(&json!({ "email": format!("chaos-{n}@example.com") })),
            )
            .await
        else {
            leave(now_ms());
            continue;
        };
        let booking_id = booking["bookingId"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let page = booking["paymentUrl"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let session = page.rsplit('/').next().unwrap_or_default().to_string();
        let pays = rand::rng().random_bool(0.85);
        let action = if pays { "pay" } else { "decline" };
        if pays {
            // Recorded whatever the answer: a gateway that did not answer may still have taken
            // the money (the checker asks it).
            sale.sessions.lock().unwrap().push(session);
        }
        leave(now_ms());
        sale.send(
            "POST (gateway) /pay/{id}/{action}",
            client.post(format!("{page}/{action}")),
        )
        .await;
        // Until the booking is settled (the callback may come late, twice, or never: then
        // the reconciliation asks the gateway).
        let mut status = String::new();
        for _ in 0..30 {
            if sale.stopped() {
                break;
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
            if let Some((200, b)) = sale
                .send(
                    "GET /bookings/{id}",
                    client.get(format!("{base}/bookings/{booking_id}")),
                )
                .await
            {
                status = b["status"].as_str().unwrap_or_default().to_string();
                if status != "PENDING" {
                    break;
                }
            }
        }
        if status == "CONFIRMED" && rand::rng().random_bool(0.15) {
            sale.send(
                "POST /bookings/{id}/cancel",
                client.post(format!("{base}/bookings/{booking_id}/cancel")),
            )
            .await;
        }
    }
}

async fn load(dir: &Path) -> anyhow::Result<()> {
    let base = std::env::var("CHAOS_URL").unwrap_or_else(|_| "http://127.0.0.1:8080".into());
    let list: Value = reqwest::get(format!("{base}/showtimes"))
        .await?
        .json()
        .await?;
    let later = chrono::Utc::now() + chrono::Duration::hours(2);
    let showtimes: Vec<i64> = list
        .as_array()
        .into_iter()
        .flatten()
        .filter(|s| s["salesOpen"] == true && s["seatsTotal"].as_i64().unwrap_or(0) >= 100)
        .filter(|s| {
            s["startsAt"]
                .as_str()
                .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
                .is_some_and(|t| t > later)
        })
        .filter_map(|s| s["id"].as_i64())
        .take(2)
        .collect();
    anyhow::ensure!(!showtimes.is_empty(), "no showtime on sale at {base}");
    std::fs::write(
        dir.join("showtimes.txt"),
        showtimes
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
            .join("\n"),
    )?;
    // The quieter showtime is a hot sale: its customers queue first.
    let room = match showtimes.get(1) {
        Some(&st) => {
            room::open(&base, st, dir).await?;
            Some(st)
        }
        None => None,
    };
    let sale = Sale {
        base: base.clone(),
        tally: Arc::default(),
        sessions: Arc::default(),
        stop: dir.join("stop"),
        room,
        admissions: Arc::default(),
    };
    let counter_sales: Arc<Mutex<Vec<String>>> = Arc::default();
    let clerk = tokio::spawn(counter::clerk(
        sale.clone(),
        showtimes[0],
        counter_sales.clone(),
    ));
    let mut customers = tokio::task::JoinSet::new();
    for n in 0..env("CHAOS_CUSTOMERS", 24usize) {
        customers.spawn(customer(sale.clone(), showtimes.clone(), n));
    }
    let mut viewers = tokio::task::JoinSet::new();
    for n in 0..env("CHAOS_VIEWERS", 12usize) {
        let st = showtimes[n % showtimes.len()];
        let sale = sale.clone();
        viewers.spawn(async move { (st, viewer(sale, st).await) });
    }
    while customers.join_next().await.is_some() {}
    clerk.await?;
    std::fs::write(
        dir.join("counter.txt"),
        counter_sales.lock().unwrap().join("\n"),
    )?;
    let stays: Vec<String> = sale
        .admissions
        .lock()
        .unwrap()
        .iter()
        .map(|(start, end)| format!("{start}\t{end}"))
        .collect();
    std::fs::write(dir.join("admissions.tsv"), stays.join("\n"))?;
    // What each viewer saw, against the map the API serves once the viewers settled.
    let mut maps = Vec::new();
    while let Some(r) = viewers.join_next().await {
        maps.push(r?);
    }
    let mut live = String::from("viewer\tshowtime\tseats\tdiffering\n");
    for (i, (st, seen)) in maps.iter().enumerate() {
        let map: Value = reqwest::get(format!("{base}/showtimes/{st}/seats"))
            .await?
            .json()
            .await?;
        let served: HashMap<String, String> = map["seats"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|s| {
                Some((
                    s["code"].as_str()?.to_string(),
                    s["status"].as_str()?.to_string(),
                ))
            })
            .collect();
        let differing = served
            .iter()
            .filter(|(code, status)| seen.get(*code).map(|(s, _)| s) != Some(*status))
            .count();
        live.push_str(&format!("{i}\t{st}\t{}\t{differing}\n", served.len()));
    }
    std::fs::write(dir.join("live.tsv"), live)?;
    let tally = sale.tally.lock().unwrap();
    let mut requests = String::from("second\tclass\tcount\n");
    for ((second, class), count) in &tally.by_second {
        requests.push_str(&format!("{second}\t{class}\t{count}\n"));
    }
    std::fs::write(dir.join("requests.tsv"), requests)?;
    std::fs::write(dir.join("5xx.tsv"), tally.failures.join("\n"))?;
    let refusals: Vec<String> = tally
        .refusals
        .iter()
        .map(|(k, n)| format!("{n}\t{k}"))
        .collect();
    std::fs::write(dir.join("refusals.tsv"), refusals.join("\n"))?;
    std::fs::write(
        dir.join("sessions.txt"),
        sale.sessions.lock().unwrap().join("\n"),
    )?;
    Ok(())
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let (Some(mode), Some(dir)) = (args.get(1), args.get(2)) else {
        anyhow::bail!("usage: chaos load|check|settled <dir>");
    };
    let dir = PathBuf::from(dir);
    match mode.as_str() {
        "load" => load(&dir).await,
        "check" => {
            if check::check(&dir).await? {
                Ok(())
            } else {
                std::process::exit(1)
            }
        }
        "settled" => {
            let unread = tokio::task::spawn_blocking(check::unread).await??;
            println!("{unread}");
            if unread == 0 {
                Ok(())
            } else {
                std::process::exit(1)
            }
        }
        _ => anyhow::bail!("usage: chaos load|check|settled <dir>"),
    }
}
