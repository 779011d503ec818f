//! What a viewer reads of the frames it gets: the seat changes they carry, its own copy of row
//! A, and when each change was asked for.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Seats of row A the schedule changes (A1 … A20), one at a time.
pub(crate) const SEATS: usize = 20;

/// When each change's request was sent, in nanoseconds after `BASE` (0: not yet), by seat of
/// row A (index 0–19) and kind (held, released). Atomics, so that thousands of viewers reading
/// it at once do not queue on a lock and the measuring does not distort what it measures.
pub(crate) struct Pending {
    base: Instant,
    sent: Vec<AtomicU64>,
}

impl Pending {
    pub(crate) fn new() -> Self {
        Self {
            base: Instant::now(),
            sent: (0..SEATS * 2).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    pub(crate) fn seat(code: &str) -> Option<usize> {
        let n: usize = code.strip_prefix('A')?.parse().ok()?;
        (1..=SEATS).contains(&n).then_some(n - 1)
    }

    pub(crate) fn slot(code: &str, released: bool) -> Option<usize> {
        Some(Self::seat(code)? * 2 + usize::from(released))
    }

    pub(crate) fn mark(&self, code: &str, released: bool) {
        if let Some(i) = Self::slot(code, released) {
            let nanos = self.base.elapsed().as_nanos() as u64 + 1;
            self.sent[i].store(nanos, Ordering::Relaxed);
        }
    }

    /// Milliseconds from the request to `received`.
    pub(crate) fn latency_ms(&self, code: &str, released: bool, received: Instant) -> Option<f64> {
        let nanos = self.sent[Self::slot(code, released)?].load(Ordering::Relaxed);
        (nanos > 0).then(|| {
            let sent = self.base + Duration::from_nanos(nanos - 1);
            received.saturating_duration_since(sent).as_secs_f64() * 1000.0
        })
    }
}

/// The string value after `"key":"` in `text`, and what follows it.
fn string_after<'a>(text: &'a str, key: &str) -> Option<(&'a str, &'a str)> {
    let start = text.find(key)? + key.len();
    let rest = &text[start..];
    let end = rest.find('"')?;
    Some((&rest[..end], &rest[end..]))
}

/// The seat changes of a live message — (code, status, version) — read without parsing the
/// JSON (the fields come in this order): the viewers run on the same two cores as the target,
/// so they do as little as a browser tab would per message.
pub(crate) fn changes(mut text: &str) -> Vec<(&str, &str, i64)> {
    let mut found = Vec::new();
    while let Some((code, rest)) = string_after(text, "\"code\":\"") {
        let Some((status, rest)) = string_after(rest, "\"status\":\"") else {
            break;
        };
        let digits = rest
            .find("\"version\":")
            .map(|i| &rest[i + "\"version\":".len()..])
            .unwrap_or_default();
        let end = digits
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(digits.len());
        found.push((code, status, digits[..end].parse().unwrap_or(-1)));
        text = rest;
    }
    found
}

/// Row A as one viewer last heard it: (status, version) by seat index.
pub(crate) type RowA = Vec<Option<(String, i64)>>;

/// Applies what a message says of row A, newer versions only.
pub(crate) fn apply(row: &mut RowA, text: &str) {
    for (code, status, version) in changes(text) {
        if let Some(i) = Pending::seat(code) {
            if row[i].as_ref().is_none_or(|(_, v)| version > *v) {
                row[i] = Some((status.to_string(), version));
            }
        }
    }
}
