//! The Redis connection of the seat gate and the rate limit: one Redis server or a Redis Cluster
//! (`REDIS_URL` with several comma-separated nodes, or `REDIS_CLUSTER=true`), reached with a
//! short timeout. Redis is only ever a first filter here, so when it is unreachable or slow the
//! callers carry on without it: a failed call trips a breaker that sends every call straight past
//! Redis for a second, then the next call tries again. Trips are logged once per outage and
//! counted; recovery is logged too.

use redis::aio::{ConnectionLike, ConnectionManager, ConnectionManagerConfig};
use redis::cluster::ClusterClient;
use redis::cluster_async::ClusterConnection;
use redis::{Cmd, Pipeline, RedisFuture, RedisResult, Value};
use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::RwLock;
use std::time::{Duration, Instant};

/// Where Redis is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RedisTarget {
    Node(String),
    /// Seed nodes of a Redis Cluster (one is enough; the rest are found from it).
    Cluster(Vec<String>),
}

impl RedisTarget {
    /// `redis://a:7000,redis://b:7001` (or a bare `a:7000` after the first) is a cluster; one URL
    /// is a single server unless `cluster` says otherwise.
    pub fn parse(url: &str, cluster: bool) -> Result<Self, String> {
        let mut nodes: Vec<String> = url
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| {
                if s.contains("://") {
                    s.to_string()
                } else {
                    format!("redis://{s}")
                }
            })
            .collect();
        if nodes.is_empty() {
            return Err("REDIS_URL names no Redis".into());
        }
        if let Some(bad) = nodes
            .iter()
            .find(|n| !n.starts_with("redis://") && !n.starts_with("rediss://"))
        {
            return Err(format!(
                "REDIS_URL must start with redis:// or rediss://, not {bad:?}"
            ));
        }
        Ok(if cluster || nodes.len() > 1 {
            Self::Cluster(nodes)
        } else {
            Self::Node(nodes.swap_remove(0))
        })
    }

    pub fn is_cluster(&self) -> bool {
        matches!(self, Self::Cluster(_))
    }
}

/// A connection to one Redis server or to a cluster (which routes each command by its keys).
#[derive(Clone)]
pub enum Conn {
    Node(ConnectionManager),
    Cluster(ClusterConnection),
}

impl ConnectionLike for Conn {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a Cmd) -> RedisFuture<'a, Value> {
        match self {
            Self::Node(c) => c.req_packed_command(cmd),
            Self::Cluster(c) => c.req_packed_command(cmd),
        }
    }

    fn req_packed_commands<'a>(
        &'a mut self,
        pipeline: &'a Pipeline,
        offset: usize,
        count: usize,
    ) -> RedisFuture<'a, Vec<Value>> {
        match self {
            Self::Node(c) => c.req_packed_commands(pipeline, offset, count),
            Self::Cluster(c) => c.req_packed_commands(pipeline, offset, count),
        }
    }

    fn get_db(&self) -> i64 {
        match self {
            Self::Node(c) => c.get_db(),
            Self::Cluster(c) => c.get_db(),
        }
    }
}

/// Opens a connection to `target` whose commands time out after `timeout`. A single server's
/// connection is made lazily (it connects on first use, and again after failures); a cluster's
/// connects now, to learn the slot map.
pub async fn connect(target: &RedisTarget, timeout: Duration) -> RedisResult<Conn> {
    Ok(match target {
        RedisTarget::Node(url) => {
            let config = ConnectionManagerConfig::new()
                .set_connection_timeout(Some(timeout))
                .set_response_timeout(Some(timeout))
                .set_number_of_retries(1)
                .set_max_delay(Duration::from_millis(500));
            Conn::Node(ConnectionManager::new_lazy_with_config(
                redis::Client::open(url.as_str())?,
                config,
            )?)
        }
        RedisTarget::Cluster(nodes) => Conn::Cluster(
            ClusterClient::builder(nodes.clone())
                .connection_timeout(timeout)
                .response_timeout(timeout)
                .retries(2)
                .build()?
                .get_async_connection()
                .await?,
        ),
    })
}

/// What became of a call to Redis.
#[derive(Debug, PartialEq, Eq)]
pub enum Attempt<T> {
    Done(T),
    /// Not sent: the breaker is open.
    Skipped,
    /// Sent, but it failed or timed out: Redis may or may not have carried it out.
    Failed,
}

/// How long the breaker sends calls past Redis after a failure before trying again.
const RETRY_AFTER: Duration = Duration::from_secs(1);

pub struct RedisLink {
    target: RedisTarget,
    timeout: Duration,
    /// Put in front of every key and channel name (`REDIS_KEY_PREFIX`), so that deployments
    /// sharing one Redis never see each other's keys or events.
    prefix: String,
    /// Set once connected; dropped after a failure.
    conn: RwLock<Option<Conn>>,
    /// Held while connecting, so that concurrent calls wait for one connection.
    connecting: tokio::sync::Mutex<()>,
    /// While set and in the future, calls skip Redis.
    /// Milliseconds after `epoch`; `0` means "never skipped". An atomic, not a lock: every
    /// hold reads it.
    skip_until_ms: AtomicU64,
    epoch: Instant,
    degraded: AtomicBool,
    bypassed: AtomicU64,
    /// When a call last got its answer (milliseconds after `epoch`).
    answered_ms: AtomicU64,
}

impl RedisLink {
    /// Nothing is connected yet (Redis may be down when the server starts).
    pub fn new(target: RedisTarget, timeout: Duration) -> Self {
        Self::with_prefix(target, timeout, "")
    }

    /// A link whose keys and channels all start with `prefix`.
    pub fn with_prefix(target: RedisTarget, timeout: Duration, prefix: &str) -> Self {
        Self {
            target,
            timeout,
            prefix: prefix.to_string(),
            conn: RwLock::new(None),
            connecting: tokio::sync::Mutex::new(()),
            skip_until_ms: AtomicU64::new(0),
            epoch: Instant::now(),
            degraded: AtomicBool::new(false),
            bypassed: AtomicU64::new(0),
            answered_ms: AtomicU64::new(0),
        }
    }

    pub fn target(&self) -> &RedisTarget {
        &self.target
    }

    /// The prefix of every key and channel name.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// Calls that went past Redis because it was unreachable, slow or failing.
    pub fn bypassed(&self) -> u64 {
        self.bypassed.load(Ordering::Relaxed)
    }

    /// Whether the last call failed (and calls currently go past Redis).
    pub fn is_degraded(&self) -> bool {
        self.degraded.load(Ordering::Relaxed)
    }

    fn elapsed_ms(&self) -> u64 {
        self.epoch.elapsed().as_millis() as u64
    }

    fn current(&self) -> Option<Conn> {
        self.conn.read().expect("connection lock").clone()
    }

    async fn connect(&self) -> RedisResult<Conn> {
        connect(&self.target, self.timeout).await
    }

    /// Runs `call` on Redis within the timeout. `None` when Redis could not be used: the caller
    /// goes on without it. `what` names the call in the log.
    pub async fn run<T, F, Fut>(&self, what: &'static str, call: F) -> Option<T>
    where
        F: FnOnce(Conn) -> Fut,
        Fut: Future<Output = RedisResult<T>>,
    {
        match self.attempt(what, call).await {
            Attempt::Done(value) => Some(value),
            Attempt::Skipped | Attempt::Failed => None,
        }
    }

    /// Like [`RedisLink::run`], but tells a call that was never sent (the breaker is open) from
    /// one that failed or timed out — which Redis may still have carried out.
    pub async fn attempt<T, F, Fut>(&self, what: &'static str, call: F) -> Attempt<T>
    where
        F: FnOnce(Conn) -> Fut,
        Fut: Future<Output = RedisResult<T>>,
    {
        let skipping = self.skip_until_ms.load(Ordering::Relaxed) > self.elapsed_ms();
        if skipping {
            self.bypassed.fetch_add(1, Ordering::Relaxed);
            return Attempt::Skipped;
        }
        let started_ms = self.elapsed_ms();
        let result = tokio::time::timeout(self.timeout, async {
            let conn = match self.current() {
                Some(conn) => conn,
                None => {
                    let _connecting = self.connecting.lock().await;
                    match self.current() {
                        Some(conn) => conn,
                        None => {
                            let conn = self.connect().await?;
                            *self.conn.write().expect("connection lock") = Some(conn.clone());
                            conn
                        }
                    }
                }
            };
            call(conn).await
        })
        .await;
        match result {
            Ok(Ok(value)) => {
                self.answered_ms
                    .fetch_max(self.elapsed_ms(), Ordering::Relaxed);
                if self.degraded.swap(false, Ordering::Relaxed) {
                    tracing::info!(
                        what,
                        "Redis answers again; the seat gate and rate limit use it"
                    );
                }
                Attempt::Done(value)
            }
            Ok(Err(e)) => {
                self.trip(what, &e.to_string());
                Attempt::Failed
            }
            // Redis answered other calls while this one waited: it is up, and the wait was this
            // process's own (thousands of calls queued at once, the CPU busy). This call goes
            // on without it; the others keep using it. Only a Redis that answered nobody for a
            // whole timeout opens the breaker — else a burst of load would send every hold of
            // the next second to the database, which is slower still.
            Err(_) if self.answered_ms.load(Ordering::Relaxed) > started_ms => {
                self.bypassed.fetch_add(1, Ordering::Relaxed);
                Attempt::Failed
            }
            Err(_) => {
                self.trip(what, "timed out");
                Attempt::Failed
            }
        }
    }

    /// Opens the breaker and drops the connection: the first call after the pause connects
    /// afresh rather than waiting on a connection that may be half dead.
    fn trip(&self, what: &'static str, error: &str) {
        self.skip_until_ms.store(
            self.elapsed_ms() + RETRY_AFTER.as_millis() as u64,
            Ordering::Relaxed,
        );
        self.conn.write().expect("connection lock").take();
        let bypassed = self.bypassed.fetch_add(1, Ordering::Relaxed) + 1;
        if !self.degraded.swap(true, Ordering::Relaxed) {
            tracing::warn!(
                what,
                error,
                bypassed,
                "Redis unusable; going on without it until it answers again (holds go straight to the database, rate limits and live events stay in this process)"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_url_is_a_server_several_are_a_cluster() {
        assert_eq!(
            RedisTarget::parse("redis://127.0.0.1:6379", false),
            Ok(RedisTarget::Node("redis://127.0.0.1:6379".into()))
        );
        assert_eq!(
            RedisTarget::parse("redis://127.0.0.1:7000, 127.0.0.1:7001", false),
            Ok(RedisTarget::Cluster(vec![
                "redis://127.0.0.1:7000".into(),
                "redis://127.0.0.1:7001".into()
            ]))
        );
        assert_eq!(
            RedisTarget::parse("redis://10.0.0.1:7000", true),
            Ok(RedisTarget::Cluster(vec!["redis://10.0.0.1:7000".into()]))
        );
        assert!(RedisTarget::parse("http://x", false).is_err());
        assert!(RedisTarget::parse(" , ", false).is_err());
    }

    #[tokio::test]
    async fn an_unreachable_redis_is_bypassed_quickly_and_retried_after_a_pause() {
        // A port nothing listens on.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let link = RedisLink::new(
            RedisTarget::Node(format!("redis://127.0.0.1:{port}")),
            Duration::from_millis(200),
        );
        let ping =
            |mut c: Conn| async move { redis::cmd("PING").query_async::<String>(&mut c).await };
        let started = Instant::now();
        assert_eq!(link.run("ping", ping).await, None);
        assert!(link.is_degraded());
        // The breaker is open: the next call does not even try.
        let again = Instant::now();
        assert_eq!(link.run("ping", ping).await, None);
        assert!(again.elapsed() < Duration::from_millis(20));
        assert!(started.elapsed() < Duration::from_secs(2));
        assert_eq!(link.bypassed(), 2);
    }

    /// A call that waits past the timeout while Redis answers other calls (as when thousands
    /// arrive at once and queue in this process) goes on without Redis alone: the breaker stays
    /// shut. The control: the same wait with nobody answered meanwhile opens it.
    #[tokio::test]
    async fn a_call_kept_waiting_while_others_are_answered_does_not_open_the_breaker() {
        let url = std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
        let link = RedisLink::new(
            RedisTarget::parse(&url, false).unwrap(),
            Duration::from_millis(100),
        );
        let ping =
            |mut c: Conn| async move { redis::cmd("PING").query_async::<String>(&mut c).await };
        assert!(link.run("ping", ping).await.is_some(), "Redis at {url}");
        let queued = |_: Conn| async {
            tokio::time::sleep(Duration::from_millis(300)).await;
            Ok::<_, redis::RedisError>(())
        };
        let answered = async {
            for _ in 0..10 {
                tokio::time::sleep(Duration::from_millis(15)).await;
                assert!(link.run("ping", ping).await.is_some());
            }
        };
        let (kept_waiting, ()) = tokio::join!(link.run("queued", queued), answered);
        assert_eq!(kept_waiting, None);
        assert!(!link.is_degraded(), "Redis answered the others meanwhile");
        assert!(link.run("ping", ping).await.is_some());

        assert_eq!(link.run("queued", queued).await, None);
        assert!(
            link.is_degraded(),
            "nobody was answered for a whole timeout"
        );
    }
}
