//! `chaos`: the sale and the invariant checker of `scripts/chaos.sh`.
//!
//! `chaos load <dir>` drives a sale through the reference deployment's balancer (`CHAOS_URL`)
//! until `<dir>/stop` exists: customers (`CHAOS_CUSTOMERS`, 24) look at a seat map, hold two
//! adjacent seats, and then cancel, walk away, or check out and pay on the sandbox's page (or
//! decline there), and some cancel their booking afterwards; viewers (`CHAOS_VIEWERS`, 12) keep
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

use app::domain::LiveMessage;
use bench::env;
use futures_util::StreamExt;
use rand::Rng;
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

fn now_s() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// Every answer the sale got, by second and class, and the 5xx and failures themselves.
#[derive(Default)]
struct Tally {
    by_second: BTreeMap<(u64, &'static str), u64>,
    failures: Vec<String>,
    /// Answers other than 2xx, by request, status and error code.
    refusals: BTreeMap<String, u64>,
}

#[derive(Clone)]
struct Sale {
    base: String,
    tally: Arc<Mutex<Tally>>,
    sessions: Arc<Mutex<Vec<String>>>,
    stop: PathBuf,
}

impl Sale {
    fn stopped(&self) -> bool {
        self.stop.exists()
    }

    /// Sends `req` and counts its answer; the answer's status and JSON body (Null when none).
    async fn send(&self, what: &str, req: reqwest::RequestBuilder) -> Option<(u16, Value)> {
        let second = now_s();
        let answer = req.timeout(Duration::from_secs(15)).send().await;
        let (class, result) = match answer {
            Ok(r) => {
                let status = r.status().as_u16();
                let text = r.text().await.unwrap_or_default();
                let class = match status {
                    200..=399 => "2xx",
                    400..=499 => "4xx",
                    _ => "5xx",
                };
                if status >= 400 {
                    let code = serde_json::from_str::<Value>(&text)
                        .ok()
                        .and_then(|b| b["code"].as_str().map(str::to_string))
                        .unwrap_or_default();
                    *self
                        .tally
                        .lock()
                        .unwrap()
                        .refusals
                        .entry(format!("{what}\t{status} {code}"))
                        .or_default() += 1;
                }
                if status >= 500 {
                    let body: String = text
                        .chars()
                        .map(|c| if c.is_control() { ' ' } else { c })
                        .take(160)
                        .collect();
                    self.tally
                        .lock()
                        .unwrap()
                        .failures
                        .push(format!("{second}\t{what}\t{status} {body}"));
                }
                let body = serde_json::from_str(&text).unwrap_or(Value::Null);
                (class, Some((status, body)))
            }
            Err(e) => {
                let kind = if e.is_timeout() {
                    "timeout"
                } else {
                    "no answer"
                };
                self.tally
                    .lock()
                    .unwrap()
                    .failures
                    .push(format!("{second}\t{what}\t{kind}"));
                ("error", None)
            }
        };
        *self
            .tally
            .lock()
            .unwrap()
            .by_second
            .entry((second, class))
            .or_default() += 1;
        result
    }
}

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
        // The first showtime is the busy one.
        let st = if rand::rng().random_bool(0.75) {
            showtimes[0]
        } else {
            showtimes[showtimes.len() - 1]
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
        let Some(pair) = free_pair(&map) else {
            continue;
        };
        let Some((201, hold)) = sale
            .send(
                "POST /showtimes/{id}/holds",
                client
                    .post(format!("{base}/showtimes/{st}/holds"))
                    .json(&json!({ "seats": pair })),
            )
            .await
        else {
            continue;
        };
        let hold_id = hold["holdId"].as_str().unwrap_or_default().to_string();
        let choice: f64 = rand::rng().random();
        if choice < 0.2 {
            sale.send(
                "DELETE /holds/{id}",
                client.delete(format!("{base}/holds/{hold_id}")),
            )
            .await;
            continue;
        }
        if choice < 0.3 {
            // Walks away: the hold lapses by itself; the next visit is someone else's.
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

/// A live seat map kept open (and reopened) until the sale stops; its seats by code.
async fn viewer(sale: Sale, showtime: i64) -> HashMap<String, (String, i64)> {
    let url = format!(
        "{}/showtimes/{showtime}/live",
        sale.base.replacen("http", "ws", 1)
    );
    let mut seats: HashMap<String, (String, i64)> = HashMap::new();
    let settle = Duration::from_secs(env("CHAOS_SETTLE_SECONDS", 8));
    let mut settle_until = None;
    loop {
        if sale.stopped() && settle_until.is_none() {
            settle_until = Some(tokio::time::Instant::now() + settle);
        }
        if settle_until.is_some_and(|t| tokio::time::Instant::now() >= t) {
            return seats;
        }
        let Ok((mut socket, _)) = tokio_tungstenite::connect_async(&url).await else {
            tokio::time::sleep(Duration::from_secs(1)).await;
            continue;
        };
        loop {
            let deadline = settle_until
                .unwrap_or_else(|| tokio::time::Instant::now() + Duration::from_secs(1));
            let next = tokio::time::timeout_at(deadline, socket.next()).await;
            match next {
                Ok(Some(Ok(message))) => {
                    let Ok(text) = message.to_text() else {
                        continue;
                    };
                    let Ok(parsed) = serde_json::from_str::<LiveMessage>(text) else {
                        continue;
                    };
                    let snapshot = matches!(parsed, LiveMessage::Snapshot { .. });
                    for change in parsed.seats() {
                        let code = change.code.to_string();
                        let status = serde_json::to_value(change.status)
                            .ok()
                            .and_then(|v| v.as_str().map(str::to_string))
                            .unwrap_or_default();
                        let version = change.version;
                        let known = seats.get(&code).map_or(-1, |(_, v)| *v);
                        if snapshot || version > known {
                            seats.insert(code, (status, version));
                        }
                    }
                }
                Ok(_) => break, // closed or failed: reconnect for a fresh snapshot
                Err(_) => {
                    if sale.stopped() && settle_until.is_none() {
                        settle_until = Some(tokio::time::Instant::now() + settle);
                    }
                    if settle_until.is_some_and(|t| tokio::time::Instant::now() >= t) {
                        return seats;
                    }
                }
            }
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
    let sale = Sale {
        base: base.clone(),
        tally: Arc::default(),
        sessions: Arc::default(),
        stop: dir.join("stop"),
    };
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

/// The committed BookingConfirmed events on the topic: booking id → how many times.
fn topic_confirmations(brokers: &str, topic: &str) -> anyhow::Result<HashMap<String, u64>> {
    use rdkafka::consumer::{BaseConsumer, Consumer};
    use rdkafka::{ClientConfig, Message, Offset, TopicPartitionList};
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", brokers)
        .set("group.id", format!("chaos-check-{}", uuid::Uuid::new_v4()))
        .set("enable.auto.commit", "false")
        .create()?;
    let metadata = consumer.fetch_metadata(Some(topic), Duration::from_secs(10))?;
    let partitions: Vec<i32> = metadata
        .topics()
        .first()
        .map(|t| t.partitions().iter().map(|p| p.id()).collect())
        .unwrap_or_default();
    let mut list = TopicPartitionList::new();
    for p in &partitions {
        list.add_partition_offset(topic, *p, Offset::Beginning)?;
    }
    consumer.assign(&list)?;
    let mut seen = HashMap::new();
    let mut quiet = std::time::Instant::now();
    while quiet.elapsed() < Duration::from_secs(3) {
        if let Some(Ok(m)) = consumer.poll(Duration::from_millis(200)) {
            quiet = std::time::Instant::now();
            let payload: Value = serde_json::from_slice(m.payload().unwrap_or_default())?;
            if payload["type"] == "BookingConfirmed" {
                *seen
                    .entry(
                        payload["bookingId"]
                            .as_str()
                            .unwrap_or_default()
                            .to_string(),
                    )
                    .or_default() += 1;
            }
        }
    }
    Ok(seen)
}

async fn count(pool: &sqlx::PgPool, sql: &str) -> anyhow::Result<i64> {
    Ok(sqlx::query_scalar(sql).fetch_one(pool).await?)
}

async fn check(dir: &Path) -> anyhow::Result<bool> {
    let url = std::env::var("CHAOS_DATABASE_URL")?;
    let pool = sqlx::PgPool::connect(&url).await?;
    let brokers = std::env::var("CHAOS_BROKERS")?;
    let topic = std::env::var("CHAOS_TOPIC").unwrap_or_else(|_| "booking-events".into());
    let sandbox = std::env::var("CHAOS_SANDBOX_URL")?;
    let mut rows: Vec<(String, i64, String)> = Vec::new();
    let mut row = |what: &str, n: i64, note: String| rows.push((what.to_string(), n, note));

    row(
        "seats sold twice (a seat in two standing confirmed bookings)",
        count(
            &pool,
            "select count(*) from (select showtime_id, seat from booking, unnest(seats) seat
               where status = 'CONFIRMED' and refunded_at is null
               group by 1, 2 having count(*) > 1) twice",
        )
        .await?,
        String::new(),
    );
    row(
        "booked seats that are not their standing booking's",
        count(
            &pool,
            "select count(*) from show_seat s where s.status = 'BOOKED' and not exists (
               select 1 from booking b where b.id = s.booking_id and b.status = 'CONFIRMED'
                 and b.refunded_at is null and s.seat_code = any(b.seats))",
        )
        .await?,
        String::new(),
    );
    row(
        "seats of standing confirmed bookings not booked by them",
        count(
            &pool,
            "select count(*) from booking b, unnest(b.seats) seat
              where b.status = 'CONFIRMED' and b.refunded_at is null and not exists (
                select 1 from show_seat s where s.showtime_id = b.showtime_id
                  and s.seat_code = seat and s.status = 'BOOKED' and s.booking_id = b.id)",
        )
        .await?,
        String::new(),
    );
    row(
        "live holds that hold part of their seats",
        count(
            &pool,
            "select count(*) from seat_hold h where h.ended_at is null and h.expires_at > now()
               and (select count(*) from show_seat s where s.showtime_id = h.showtime_id
                      and s.hold_id = h.hold_id and s.status = 'HELD') not in (0, h.seat_count)",
        )
        .await?,
        String::new(),
    );
    row(
        "payments taken, neither confirmed nor refunded",
        count(
            &pool,
            "select count(*) from payment p join booking b on b.id = p.booking_id
              where p.status = 'PAID' and (b.status <> 'CONFIRMED' or b.refunded_at is not null)",
        )
        .await?,
        String::new(),
    );
    // The gateway's side: every session paid in the sale is known here as paid or refunded,
    // and what the gateway holds matches.
    let sessions = std::fs::read_to_string(dir.join("sessions.txt")).unwrap_or_default();
    let http = reqwest::Client::new();
    let (mut unknown, mut mismatched, mut asked) = (0, 0, 0);
    for session in sessions.lines().filter(|s| !s.is_empty()) {
        asked += 1;
        let at_gateway: Value = http
            .get(format!("{sandbox}/v1/sessions/{session}"))
            .send()
            .await?
            .json()
            .await?;
        if at_gateway["status"] != "PAID" {
            continue;
        }
        let here: Option<(String, String, Option<chrono::DateTime<chrono::Utc>>)> = sqlx::query_as(
            "select p.status, b.status, b.refunded_at from payment p
                   join booking b on b.id = p.booking_id where p.provider_session_id = $1",
        )
        .bind(session)
        .fetch_optional(&pool)
        .await?;
        match here {
            Some((p, b, refunded)) => {
                let payment_id = at_gateway["paymentId"].as_str().unwrap_or_default();
                let money: Value = http
                    .get(format!("{sandbox}/v1/payments/{payment_id}"))
                    .send()
                    .await?
                    .json()
                    .await?;
                let refunded_there = money["refunded"].as_i64().unwrap_or(0);
                let amount = money["amount"].as_i64().unwrap_or(0);
                let fine = match (p.as_str(), b.as_str()) {
                    ("PAID", "CONFIRMED") => refunded.is_none() && refunded_there == 0,
                    ("REFUNDED", _) => refunded_there == amount,
                    _ => false,
                };
                if !fine {
                    mismatched += 1;
                }
            }
            None => unknown += 1,
        }
    }
    row(
        "sessions paid at the gateway and unknown here",
        unknown,
        format!("of {asked} the sale tried to pay"),
    );
    row(
        "payments whose state here and at the gateway differ",
        mismatched,
        String::new(),
    );
    let backlog = count(
        &pool,
        "select count(*) from outbox where published_at is null and event_type = 'BookingConfirmed'",
    )
    .await?;
    let confirmed: Vec<(uuid::Uuid,)> =
        sqlx::query_as("select id from booking where status = 'CONFIRMED'")
            .fetch_all(&pool)
            .await?;
    let on_topic = {
        let (brokers, topic) = (brokers.clone(), topic.clone());
        tokio::task::spawn_blocking(move || topic_confirmations(&brokers, &topic)).await??
    };
    let missing = confirmed
        .iter()
        .filter(|(id,)| !on_topic.contains_key(&id.to_string()))
        .count() as i64;
    row(
        "confirmed bookings missing on the topic",
        missing,
        format!(
            "{} confirmed; {} on the topic; outbox backlog {backlog}",
            confirmed.len(),
            on_topic.len()
        ),
    );
    row(
        "confirmed bookings published more than once (redeliveries, harmless to consumers)",
        on_topic.values().filter(|n| **n > 1).count() as i64,
        "information, not an invariant".into(),
    );
    row(
        "confirmed bookings without exactly one ticket",
        count(
            &pool,
            "select count(*) from booking b where b.status = 'CONFIRMED'
               and (select count(*) from ticket t where t.booking_id = b.id) <> 1",
        )
        .await?,
        String::new(),
    );
    row(
        "tickets without a confirmed booking",
        count(
            &pool,
            "select count(*) from ticket t where not exists (
               select 1 from booking b where b.id = t.booking_id and b.status = 'CONFIRMED')",
        )
        .await?,
        String::new(),
    );
    let (sales_bookings, sales_refunds): (i64, i64) = sqlx::query_as(
        "select coalesce(sum(bookings), 0)::bigint, coalesce(sum(refunds), 0)::bigint from sales_daily",
    )
    .fetch_one(&pool)
    .await?;
    let booked = confirmed.len() as i64;
    let refunded = count(
        &pool,
        "select count(*) from booking where status = 'CONFIRMED' and refunded_at is not null",
    )
    .await?;
    row(
        "sales figures differing from the bookings",
        (sales_bookings - booked).abs() + (sales_refunds - refunded).abs(),
        format!("report: {sales_bookings} bookings, {sales_refunds} refunds; bookings: {booked}, {refunded} refunded"),
    );
    // A booking refunded before its ticket went out gets the refund notice instead (the ticket
    // is skipped: it would no longer admit anyone).
    let mailed = count(
        &pool,
        "select count(*) from booking b where b.status = 'CONFIRMED' and b.email is not null
           and not exists (select 1 from outgoing_mail m where m.booking_id = b.id
                             and m.status = 'sent'
                             and m.kind = case when b.refunded_at is null then 'ticket' else 'refund' end)",
    )
    .await?;
    let maildir = std::env::var("CHAOS_MAILDIR").map(PathBuf::from).ok();
    let messages = maildir
        .and_then(|d| std::fs::read_dir(d.join("new")).ok())
        .map_or(0, |d| d.count());
    row(
        "confirmed bookings whose ticket (refunded: whose refund notice) was not e-mailed",
        mailed,
        format!("{messages} messages in the mail sink"),
    );
    let live = std::fs::read_to_string(dir.join("live.tsv")).unwrap_or_default();
    let (viewers, differing) = live.lines().skip(1).fold((0, 0i64), |(v, d), l| {
        let n = l
            .rsplit('\t')
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        (v + 1, d + n)
    });
    row(
        "seats a live map shows otherwise than the database, after the last resync",
        differing,
        format!("{viewers} viewers"),
    );

    println!("| invariant | count | |\n|---|---:|---|");
    let mut held = true;
    for (what, n, note) in &rows {
        let info = note.contains("information");
        if *n != 0 && !info {
            held = false;
        }
        let mark = if info || *n == 0 { "" } else { "**violated**" };
        println!("| {what} | {n} | {mark} {note} |");
    }
    Ok(held)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let (Some(mode), Some(dir)) = (args.get(1), args.get(2)) else {
        anyhow::bail!("usage: chaos load|check <dir>");
    };
    let dir = PathBuf::from(dir);
    match mode.as_str() {
        "load" => load(&dir).await,
        "check" => {
            if check(&dir).await? {
                Ok(())
            } else {
                std::process::exit(1)
            }
        }
        _ => anyhow::bail!("usage: chaos load|check <dir>"),
    }
}
