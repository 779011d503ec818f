//! `chaos check`: the invariants, read from the database, the topic, the gateway, the mail sink
//! and what `chaos load` wrote (see `main.rs`).

use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What the topic holds: its BookingConfirmed events (booking id → how many times), and each
/// partition's end (the offset after the last message read).
type Topic = (HashMap<String, u64>, HashMap<i32, i64>);

fn read_topic(brokers: &str, topic: &str) -> anyhow::Result<Topic> {
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
    let (mut seen, mut ends) = (HashMap::new(), HashMap::new());
    let mut quiet = std::time::Instant::now();
    while quiet.elapsed() < Duration::from_secs(3) {
        if let Some(Ok(m)) = consumer.poll(Duration::from_millis(200)) {
            quiet = std::time::Instant::now();
            let end = ends.entry(m.partition()).or_insert(0);
            *end = (m.offset() + 1).max(*end);
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
    Ok((seen, ends))
}

/// Each consumer group's events not yet read, per group: for every partition, its end (as read)
/// less the group's committed offset (the whole partition when it committed none). The broker's
/// high watermark is shown beside it.
fn group_lag(
    brokers: &str,
    topic: &str,
    ends: &HashMap<i32, i64>,
) -> anyhow::Result<Vec<(String, i64, String)>> {
    use rdkafka::consumer::{BaseConsumer, Consumer};
    use rdkafka::{ClientConfig, Offset, TopicPartitionList};
    let mut lags = Vec::new();
    for name in ["tickets", "sales", "notify"] {
        let group = format!("seats-{name}");
        // Reads the group's offsets without joining it.
        let consumer: BaseConsumer = ClientConfig::new()
            .set("bootstrap.servers", brokers)
            .set("group.id", &group)
            .set("enable.auto.commit", "false")
            .create()?;
        let metadata = consumer.fetch_metadata(Some(topic), Duration::from_secs(10))?;
        let mut list = TopicPartitionList::new();
        for p in metadata.topics().iter().flat_map(|t| t.partitions()) {
            list.add_partition(topic, p.id());
        }
        let committed = consumer.committed_offsets(list, Duration::from_secs(10))?;
        let (mut lag, mut parts) = (0, Vec::new());
        for element in committed.elements() {
            let (_, high) =
                consumer.fetch_watermarks(topic, element.partition(), Duration::from_secs(10))?;
            let end = ends.get(&element.partition()).copied().unwrap_or(0);
            let at = match element.offset() {
                Offset::Offset(n) => n,
                _ => 0,
            };
            lag += (end - at).max(0);
            parts.push(format!(
                "p{} {at}/{end} (watermark {high})",
                element.partition()
            ));
        }
        lags.push((group, lag, parts.join(", ")));
    }
    Ok(lags)
}

/// The events on the topic the consumer groups have not read yet, in all (`chaos settled`: the
/// run waits for 0 before it checks, as it waits for the outbox).
pub fn unread() -> anyhow::Result<i64> {
    let brokers = std::env::var("CHAOS_BROKERS")?;
    let topic = std::env::var("CHAOS_TOPIC").unwrap_or_else(|_| "booking-events".into());
    let (_, ends) = read_topic(&brokers, &topic)?;
    Ok(group_lag(&brokers, &topic, &ends)?
        .iter()
        .map(|(_, lag, _)| lag)
        .sum())
}

async fn count(pool: &sqlx::PgPool, sql: &str) -> anyhow::Result<i64> {
    Ok(sqlx::query_scalar(sql).fetch_one(pool).await?)
}

pub async fn check(dir: &Path) -> anyhow::Result<bool> {
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
    let (on_topic, ends) = {
        let (brokers, topic) = (brokers.clone(), topic.clone());
        tokio::task::spawn_blocking(move || read_topic(&brokers, &topic)).await??
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
    let lags = {
        let (brokers, topic) = (brokers.clone(), topic.clone());
        tokio::task::spawn_blocking(move || group_lag(&brokers, &topic, &ends)).await??
    };
    row(
        "events on the topic a consumer group left unread",
        lags.iter().map(|(_, lag, _)| lag).sum(),
        lags.iter()
            .map(|(group, lag, parts)| format!("{group}: {lag} ({parts})"))
            .collect::<Vec<_>>()
            .join("; "),
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
    // The clerk's counter sales: each one recorded as sold stands, with its seats.
    let counter: Vec<uuid::Uuid> = std::fs::read_to_string(dir.join("counter.txt"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| uuid::Uuid::parse_str(l.trim()).ok())
        .collect();
    let standing: i64 = sqlx::query_scalar(
        "select count(*) from booking b where b.id = any($1) and b.status = 'CONFIRMED'
           and b.refunded_at is null and not exists (
             select 1 from unnest(b.seats) seat where not exists (
               select 1 from show_seat s where s.showtime_id = b.showtime_id
                 and s.seat_code = seat and s.status = 'BOOKED' and s.booking_id = b.id))",
    )
    .bind(&counter)
    .fetch_one(&pool)
    .await?;
    row(
        "counter sales the clerk was sold that do not stand with their seats",
        counter.len() as i64 - standing,
        format!("{} sold at the counter", counter.len()),
    );
    // The waiting room: never more shoppers inside at once than it lets in.
    let room = std::fs::read_to_string(dir.join("room.txt")).unwrap_or_default();
    if let Some(max_active) = room
        .split('\t')
        .nth(1)
        .and_then(|m| m.trim().parse::<usize>().ok())
    {
        let (peak, stays) = super::room::peak(dir);
        row(
            "waiting-room admissions inside past max_active",
            peak.saturating_sub(max_active) as i64,
            format!("{stays} admissions; at most {peak} inside at once; max_active {max_active}"),
        );
    }
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
