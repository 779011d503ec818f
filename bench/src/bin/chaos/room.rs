//! The waiting room in the chaos sale: the quieter showtime is a hot sale whose customers queue
//! first, and every admission's time inside is recorded, as the customer saw it, so that the
//! checker can count how many were inside at once.
//!
//! A customer's interval starts when it is told it is admitted (the room let it in before) and
//! ends when it sends the request that ends its stay (its hold's cancellation, its payment or
//! its decline, a hold that fails) or decides to leave (the room keeps it inside until its hold
//! or its admission lapses). So each interval lies within the room's own, and more intervals at
//! once than `max_active` means the room let in more.

use super::{now_ms, Sale};
use serde_json::{json, Value};
use std::path::Path;
use std::time::Duration;

/// Shoppers the chaos room lets in at once.
pub const MAX_ACTIVE: u32 = 3;

/// Turns the room on for `showtime` as the operator (`OPERATOR_PASSWORD`), and writes
/// `room.txt` (showtime, max_active) for the checker.
pub async fn open(base: &str, showtime: i64, dir: &Path) -> anyhow::Result<()> {
    let operator = reqwest::Client::builder().cookie_store(true).build()?;
    let password = std::env::var("OPERATOR_PASSWORD")?;
    let signed = operator
        .post(format!("{base}/api/staff_sign_in"))
        .json(&json!({ "name": "operator", "password": password }))
        .send()
        .await?;
    anyhow::ensure!(
        signed.status() == 200,
        "operator sign-in: {}",
        signed.status()
    );
    let set = operator
        .post(format!("{base}/api/set_waiting_room"))
        .json(&json!({
            "showtime_id": showtime, "on": true, "max_active": MAX_ACTIVE, "admit_per_minute": 120
        }))
        .send()
        .await?;
    let status = set.status();
    anyhow::ensure!(
        status == 200,
        "set_waiting_room: {status} {}",
        set.text().await?
    );
    std::fs::write(dir.join("room.txt"), format!("{showtime}\t{MAX_ACTIVE}\n"))?;
    // Every instance reads the room's settings within a second.
    tokio::time::sleep(Duration::from_secs(2)).await;
    Ok(())
}

/// Queues for `showtime` until admitted: the admission's token and when the customer learnt
/// of it; `None` when the sale stopped first or the room is off.
pub async fn admit(sale: &Sale, client: &reqwest::Client, showtime: i64) -> Option<(String, u128)> {
    let url = format!("{}/showtimes/{showtime}/queue", sale.base);
    let mut joined = false;
    while !sale.stopped() {
        let answer = if joined {
            sale.send("GET /showtimes/{id}/queue", client.get(&url))
                .await
        } else {
            sale.send("POST /showtimes/{id}/queue", client.post(&url))
                .await
        };
        let wait = match answer {
            Some((200, place)) => {
                joined = true;
                if place["state"] == "admitted" {
                    if let Some(token) = place["admission"]["token"].as_str() {
                        return Some((token.to_string(), now_ms()));
                    }
                }
                poll_after(&place)
            }
            // The place ended (admission over, room reset): join again.
            Some((404, _)) => {
                joined = false;
                Duration::from_millis(200)
            }
            Some((409, body)) if body["code"] == "NO_WAITING_ROOM" => return None,
            Some((429, body)) => Duration::from_secs(body["retryAfter"].as_u64().unwrap_or(1)),
            _ => Duration::from_secs(1),
        };
        tokio::time::sleep(wait).await;
    }
    None
}

fn poll_after(place: &Value) -> Duration {
    Duration::from_millis(
        place["pollAfterMs"]
            .as_u64()
            .unwrap_or(1000)
            .clamp(200, 5000),
    )
}

/// The most admissions inside at once in `admissions.tsv` (start and end, in ms), and how many
/// there were.
pub fn peak(dir: &Path) -> (usize, usize) {
    let text = std::fs::read_to_string(dir.join("admissions.tsv")).unwrap_or_default();
    let mut edges: Vec<(u128, i32)> = Vec::new();
    let mut count = 0;
    for line in text.lines() {
        let mut fields = line.split('\t').filter_map(|f| f.parse::<u128>().ok());
        if let (Some(start), Some(end)) = (fields.next(), fields.next()) {
            count += 1;
            // An end at the instant of another's start is not an overlap.
            edges.push((start, 1));
            edges.push((end, -1));
        }
    }
    edges.sort_by_key(|&(at, delta)| (at, delta));
    let (mut inside, mut most) = (0i32, 0i32);
    for (_, delta) in edges {
        inside += delta;
        most = most.max(inside);
    }
    (most as usize, count)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_peak_counts_overlapping_stays_only() {
        let dir = std::env::temp_dir().join(format!("chaos-room-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("admissions.tsv"), "0\t10\n5\t15\n10\t20\n12\t13\n").unwrap();
        assert_eq!(super::peak(&dir), (3, 4));
        std::fs::remove_dir_all(dir).unwrap();
    }
}
