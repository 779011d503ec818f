//! The shoppers of a room benchmark: each joins, waits to be admitted and holds two seats.

use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Where the shoppers shop and how.
pub(crate) struct Shop {
    pub(crate) queue: String,
    pub(crate) base: String,
    pub(crate) showtime: i64,
    pub(crate) shoppers: usize,
    pub(crate) best: bool,
    pub(crate) think: Duration,
}

/// The shoppers: join (at the front), then, once told, poll until admitted and hold two seats
/// with the admission (shopper i: row A + i / 10, seats 2(i mod 10) + 1 and + 2; or the best
/// two, `best`), after choosing for up to `think` (each a random time: a person looks at the
/// map first; zero: at once, every shopper admitted in a step holding in the same instant).
/// Each hold's latency, seats held, and when it ended.
pub(crate) async fn shop_run(
    shop: Shop,
    joined: std::sync::mpsc::Sender<anyhow::Result<()>>,
    go: std::sync::mpsc::Receiver<()>,
) -> Vec<(f64, usize, Instant)> {
    let Shop {
        queue,
        base,
        showtime,
        shoppers,
        best,
        think,
    } = shop;
    let mut buyers = Vec::with_capacity(shoppers);
    for _ in 0..shoppers {
        let c = reqwest::Client::builder()
            .cookie_store(true)
            .build()
            .expect("a client");
        match c.post(&queue).send().await {
            Ok(r) if r.status() == 200 => buyers.push(c),
            Ok(r) => {
                let _ = joined.send(Err(anyhow::anyhow!("join: {}", r.status())));
                return Vec::new();
            }
            Err(e) => {
                let _ = joined.send(Err(e.into()));
                return Vec::new();
            }
        }
    }
    let _ = joined.send(Ok(()));
    let _ = go.recv();
    let holds: Arc<Mutex<Vec<(f64, usize, Instant)>>> = Arc::default();
    let mut shopping = tokio::task::JoinSet::new();
    for (i, c) in buyers.into_iter().enumerate() {
        let (queue, holds, base) = (queue.clone(), holds.clone(), base.clone());
        let body = if best {
            json!({ "bestAvailable": { "count": 2 } })
        } else {
            let row = char::from(b'A' + (i / 10) as u8);
            let first = 2 * (i % 10) + 1;
            json!({ "seats": [format!("{row}{first}"), format!("{row}{}", first + 1)] })
        };
        shopping.spawn(async move {
            let give_up = Instant::now() + Duration::from_secs(60);
            while Instant::now() < give_up {
                tokio::time::sleep(Duration::from_millis(600)).await;
                let Ok(r) = c.get(&queue).send().await else {
                    continue;
                };
                let Ok(place) = r.json::<Value>().await else {
                    continue;
                };
                let Some(token) = place["admission"]["token"].as_str() else {
                    continue;
                };
                let choosing = think.mul_f64(rand::random::<f64>());
                tokio::time::sleep(choosing).await;
                let sent = Instant::now();
                let r = c
                    .post(format!("{base}/showtimes/{showtime}/holds"))
                    .header("Admission-Token", token)
                    .json(&body)
                    .send()
                    .await;
                let ms = sent.elapsed().as_secs_f64() * 1000.0;
                let seats = match r {
                    Ok(r) if r.status() == 201 => 2,
                    _ => 0,
                };
                holds.lock().unwrap().push((ms, seats, Instant::now()));
                return;
            }
        });
    }
    while shopping.join_next().await.is_some() {}
    let holds = holds.lock().unwrap().clone();
    holds
}
