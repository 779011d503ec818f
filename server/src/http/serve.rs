//! The accept loop. axum's own `serve` has no connection cap and no timeouts; a client that
//! opens thousands of idle sockets could use up the process's file descriptors until even
//! `/health` stopped answering. Here every connection:
//! - counts against [`ConnLimits::max`] in all and [`ConnLimits::per_address`] per client
//!   address; one over either is answered `503` with a JSON body and closed, never left to fail
//!   in `accept`;
//! - must send each request's headers within `header_timeout`, which is also how long an idle
//!   keep-alive connection stays open (hyper's header-read timer runs while it waits for the
//!   next request);
//! - keeps its place (its [`ConnPermit`]) for as long as it is used, including as a WebSocket
//!   after an upgrade (the live feed holds the permit).
//!
//! Body timeouts are a layer of the router (`http::router`).

use axum::extract::ConnectInfo;
use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::collections::HashMap;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

#[derive(Debug, Clone)]
pub struct ConnLimits {
    pub max: usize,
    pub per_address: usize,
    pub header_timeout: Duration,
    /// Proxies: their connections carry many clients, so only the total counts them.
    pub trusted_proxies: Vec<crate::net::IpNet>,
}

/// How long one HTTP connection is served before it is asked to close (a client reading an
/// answer too slowly to ever finish it, or keeping a connection for ever, gives its place back).
/// A connection upgraded to a WebSocket is no longer an HTTP connection.
const MAX_CONNECTION_AGE: Duration = Duration::from_secs(300);

/// Open connections, in all and per peer address.
#[derive(Default)]
pub struct Connections {
    total: AtomicUsize,
    by_address: Mutex<HashMap<IpAddr, usize>>,
    /// Connections refused for being over a cap, since the start.
    pub refused: AtomicUsize,
    /// Pages whose answer was ended at the request deadline (see `deadline`).
    pub pages_cut: AtomicUsize,
}

impl Connections {
    /// A place for a connection from `addr`, unless that would pass a cap.
    fn admit(self: &Arc<Self>, peer: IpAddr, limits: &ConnLimits) -> Option<ConnPermit> {
        let proxy = limits.trusted_proxies.iter().any(|n| n.contains(peer));
        let addr = crate::net::bucket(peer);
        let mut by_address = self.by_address.lock().expect("connection counts");
        let mine = by_address.get(&addr).copied().unwrap_or(0);
        if (!proxy && mine >= limits.per_address)
            || self.total.load(Ordering::Relaxed) >= limits.max
        {
            return None;
        }
        by_address.insert(addr, mine + 1);
        self.total.fetch_add(1, Ordering::Relaxed);
        Some(ConnPermit {
            connections: self.clone(),
            addr,
        })
    }

    pub fn open(&self) -> usize {
        self.total.load(Ordering::Relaxed)
    }
}

/// A connection's place; given back when the last holder drops it.
pub struct ConnPermit {
    connections: Arc<Connections>,
    addr: IpAddr,
}

impl Drop for ConnPermit {
    fn drop(&mut self) {
        let mut by_address = self
            .connections
            .by_address
            .lock()
            .expect("connection counts");
        if let Some(n) = by_address.get_mut(&self.addr) {
            *n -= 1;
            if *n == 0 {
                by_address.remove(&self.addr);
            }
        }
        self.connections.total.fetch_sub(1, Ordering::Relaxed);
    }
}

/// The connection's permit, as the request carries it (a WebSocket handler keeps a clone).
#[derive(Clone)]
pub struct HeldConnection(pub Arc<ConnPermit>);

/// The answer on a connection over a cap.
static BUSY: std::sync::LazyLock<Vec<u8>> = std::sync::LazyLock::new(|| {
    let body = serde_json::json!({
        "error": "too many connections; try again in a moment",
        "code": "TOO_MANY_CONNECTIONS",
    })
    .to_string();
    format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 5\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
});

/// Refusals being written at once, at most; past that a refused connection is just closed.
const MAX_REFUSING: usize = 256;

/// Answers `503` on a connection over a cap and closes it, giving the client a moment to read it.
async fn refuse(mut stream: TcpStream) {
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        stream.write_all(&BUSY).await?;
        stream.shutdown().await?;
        let mut sink = [0u8; 1024];
        while stream.read(&mut sink).await? > 0 {}
        Ok::<_, std::io::Error>(())
    })
    .await;
}

/// Serves `app` on `listener` until `shutdown` resolves, then lets open requests finish (for at
/// most 10 s).
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: ConnLimits,
    connections: Arc<Connections>,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    use hyper::server::conn::http1;
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let refusing = Arc::new(AtomicUsize::new(0));
    // HTTP connections being served (an upgraded WebSocket is no longer one of them).
    let serving = Arc::new(AtomicUsize::new(0));
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of file descriptors or similar: wait a little instead of spinning.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = &mut shutdown => break,
        };
        let Some(permit) = connections.admit(crate::net::canonical(peer.ip()), &limits) else {
            connections.refused.fetch_add(1, Ordering::Relaxed);
            if refusing.fetch_add(1, Ordering::Relaxed) < MAX_REFUSING {
                let refusing = refusing.clone();
                tokio::spawn(async move {
                    refuse(stream).await;
                    refusing.fetch_sub(1, Ordering::Relaxed);
                });
            } else {
                refusing.fetch_sub(1, Ordering::Relaxed);
            }
            continue;
        };
        // Small frames (live-map events, JSON answers) leave at once instead of waiting for
        // the previous segment's ACK (Nagle), which a delayed ACK can hold back for tens of ms.
        let _ = stream.set_nodelay(true);
        let permit = HeldConnection(Arc::new(permit));
        let router = app.clone();
        let service = hyper::service::service_fn(move |mut req: hyper::Request<_>| {
            req.extensions_mut().insert(ConnectInfo(peer));
            req.extensions_mut().insert(permit.clone());
            let mut router = router.clone();
            async move { tower::Service::call(&mut router, req).await }
        });
        let mut stop = stop_rx.clone();
        let header_timeout = limits.header_timeout;
        let serving = serving.clone();
        serving.fetch_add(1, Ordering::Relaxed);
        tokio::spawn(async move {
            let conn = http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(header_timeout)
                // Header blocks are limited by size in `guard::shape` (with a JSON answer).
                .max_headers(512)
                .keep_alive(true)
                .serve_connection(TokioIo::new(stream), service)
                .with_upgrades();
            let mut conn = std::pin::pin!(conn);
            tokio::select! {
                _ = conn.as_mut() => {}
                _ = async {
                    tokio::select! {
                        _ = stop.wait_for(|stopped| *stopped) => {}
                        _ = tokio::time::sleep(MAX_CONNECTION_AGE) => {}
                    }
                } => {
                    conn.as_mut().graceful_shutdown();
                    let _ = tokio::time::timeout(Duration::from_secs(10), conn).await;
                }
            }
            serving.fetch_sub(1, Ordering::Relaxed);
        });
    }
    let _ = stop_tx.send(true);
    // Give the connections a moment to finish what they are answering.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while serving.load(Ordering::Relaxed) > 0 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Ok(())
}

/// The peer of a request served by [`serve`] (tests that call the router directly have none).
pub fn peer_of(req: &axum::extract::Request) -> Option<SocketAddr> {
    req.extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|ConnectInfo(addr)| *addr)
}
