//! Caps on the WebSockets this server keeps open: the live seat map's viewers and the waiting
//! room's pages. Each kind has a cap of its own, in all and per client address (IPv6 by its
//! /56); and both kinds together never take more than `MAX_CONNECTIONS − CONNECTION_RESERVE`
//! connections, so that holds, checkouts, the gateway's callbacks and `/health` always find a
//! place, however many people wait or watch.
//!
//! A socket over a cap is answered 503 with `Retry-After` before the upgrade.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Every WebSocket of this server, against the connections sockets may take in all.
pub struct Sockets {
    most: usize,
    open: AtomicUsize,
}

impl Sockets {
    /// At most `most` sockets of every kind together.
    pub fn new(most: usize) -> Arc<Self> {
        Arc::new(Self {
            most,
            open: AtomicUsize::new(0),
        })
    }

    fn take(&self) -> bool {
        self.open
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < self.most).then_some(n + 1)
            })
            .is_ok()
    }

    fn give_back(&self) {
        self.open.fetch_sub(1, Ordering::AcqRel);
    }

    /// Sockets open now, of every kind.
    pub fn open(&self) -> usize {
        self.open.load(Ordering::Acquire)
    }
}

/// One kind of socket (live viewers, waiting pages): open now, in all and per client address,
/// against its caps and the sockets' shared one.
pub struct SocketCap {
    all: Arc<Sockets>,
    max: usize,
    per_address: usize,
    counts: Mutex<(usize, HashMap<IpAddr, usize>)>,
}

impl SocketCap {
    pub fn new(all: Arc<Sockets>, max: usize, per_address: usize) -> Arc<Self> {
        Arc::new(Self {
            all,
            max,
            per_address,
            counts: Mutex::default(),
        })
    }

    /// A socket's place for a client at `addr` (its bucket), unless a cap is reached.
    pub fn admit(self: &Arc<Self>, addr: Option<IpAddr>) -> Option<SocketPlace> {
        let mut counts = self.counts.lock().expect("socket counts");
        let (total, by_address) = &mut *counts;
        let mine = addr.map_or(0, |a| by_address.get(&a).copied().unwrap_or(0));
        if *total >= self.max || mine >= self.per_address || !self.all.take() {
            return None;
        }
        *total += 1;
        if let Some(a) = addr {
            by_address.insert(a, mine + 1);
        }
        Some(SocketPlace {
            cap: self.clone(),
            addr,
        })
    }

    /// Sockets of this kind open now.
    pub fn count(&self) -> usize {
        self.counts.lock().expect("socket counts").0
    }
}

/// A socket's place among its kind and all sockets; given back when dropped.
pub struct SocketPlace {
    cap: Arc<SocketCap>,
    addr: Option<IpAddr>,
}

impl Drop for SocketPlace {
    fn drop(&mut self) {
        let mut counts = self.cap.counts.lock().expect("socket counts");
        let (total, by_address) = &mut *counts;
        *total -= 1;
        if let Some(a) = self.addr {
            if let Some(n) = by_address.get_mut(&a) {
                *n -= 1;
                if *n == 0 {
                    by_address.remove(&a);
                }
            }
        }
        self.cap.all.give_back();
    }
}

/// The 503 before an upgrade over a cap.
pub fn over_cap(code: &'static str, what: &str) -> axum::response::Response {
    use axum::http::{header, StatusCode};
    use axum::response::IntoResponse;
    (
        StatusCode::SERVICE_UNAVAILABLE,
        [(header::RETRY_AFTER, "5")],
        axum::Json(serde_json::json!({
            "error": format!("too many {what}; try again in a moment"),
            "code": code,
        })),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_keeps_its_own_caps_and_both_together_keep_the_reserve() {
        let all = Sockets::new(5);
        let viewers = SocketCap::new(all.clone(), 4, 2);
        let pages = SocketCap::new(all.clone(), 4, 3);
        let (a, b): (IpAddr, IpAddr) = ("192.0.2.1".parse().unwrap(), "192.0.2.2".parse().unwrap());
        let v1 = viewers.admit(Some(a)).unwrap();
        let _v2 = viewers.admit(Some(a)).unwrap();
        assert!(viewers.admit(Some(a)).is_none(), "two per address");
        let _v3 = viewers.admit(Some(b)).unwrap();
        let _p1 = pages.admit(Some(b)).unwrap();
        let _p2 = pages.admit(Some(b)).unwrap();
        assert_eq!(all.open(), 5);
        assert!(
            pages.admit(Some(a)).is_none(),
            "five sockets in all, at most"
        );
        drop(v1);
        assert_eq!((viewers.count(), all.open()), (2, 4));
        assert!(
            pages.admit(Some(a)).is_some(),
            "a place given back is taken again"
        );
    }
}
