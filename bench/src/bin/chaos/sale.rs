//! The sale's shared state: where it runs, every answer it got (by second, class, request and
//! code), the sessions it tried to pay, the waiting room's recorded stays, and when it stops.

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

fn now_s() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

pub fn now_ms() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0)
}

/// Every answer the sale got, by second and class, and the 5xx and failures themselves.
#[derive(Default)]
pub struct Tally {
    pub by_second: BTreeMap<(u64, &'static str), u64>,
    pub failures: Vec<String>,
    /// Answers other than 2xx, by request, status and error code.
    pub refusals: BTreeMap<String, u64>,
}

#[derive(Clone)]
pub struct Sale {
    pub base: String,
    pub tally: Arc<Mutex<Tally>>,
    pub sessions: Arc<Mutex<Vec<String>>>,
    pub stop: PathBuf,
    /// The showtime behind the waiting room, if any.
    pub room: Option<i64>,
    /// Each admission's stay as its customer saw it: (admitted, left), in ms.
    pub admissions: Arc<Mutex<Vec<(u128, u128)>>>,
}

impl Sale {
    pub fn stopped(&self) -> bool {
        self.stop.exists()
    }

    /// Sends `req` and counts its answer; the answer's status and JSON body (Null when none).
    pub async fn send(&self, what: &str, req: reqwest::RequestBuilder) -> Option<(u16, Value)> {
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
