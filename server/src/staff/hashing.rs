//! Every argon2 check and hash of a password or PIN runs here, on a few threads of its own, so
//! their memory is bounded however many sign-ins, unlocks and approvals arrive at once: argon2id
//! takes about 19 MiB per check, and an unbounded number of them (one blocking task each) took a
//! server from 39 to 452 MB. The threads are as many as the cores and as memory allows
//! ([`workers_for`]; `HASH_THREADS` sets it), each reusing its own memory; a short queue waits
//! for them, and a request finding the queue full is refused at once (429), never queued
//! without end.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, SyncSender, TrySendError};
use std::sync::{Arc, Mutex, OnceLock};

/// Memory one check may take, with room to spare (argon2id's default is 19 MiB).
const MEMORY_PER_CHECK: u64 = 64 << 20;
/// Checks waiting for a thread at most, per thread.
const QUEUE_PER_WORKER: usize = 16;

type Job = Box<dyn FnOnce() + Send>;

/// The threads and their queue.
pub struct Hasher {
    queue: SyncSender<Job>,
    workers: usize,
    in_flight: Arc<AtomicUsize>,
    peak: Arc<AtomicUsize>,
}

/// The hash threads were all busy and their queue full: try again in a second.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Busy;

/// Threads for `cpus` cores and `memory` bytes: as many as the cores, at most one per
/// [`MEMORY_PER_CHECK`] of memory, at least one.
pub fn workers_for(cpus: usize, memory: Option<u64>) -> usize {
    let by_memory = memory.map_or(usize::MAX, |m| (m / MEMORY_PER_CHECK) as usize);
    cpus.min(by_memory).max(1)
}

/// The memory this process may use: the cgroup's limit when there is one, else the machine's.
fn memory_limit() -> Option<u64> {
    let cgroup = std::fs::read_to_string("/sys/fs/cgroup/memory.max")
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok());
    let total = std::fs::read_to_string("/proc/meminfo").ok().and_then(|s| {
        let line = s.lines().find(|l| l.starts_with("MemTotal:"))?;
        let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kib * 1024)
    });
    match (cgroup, total) {
        (Some(c), Some(t)) => Some(c.min(t)),
        (c, t) => c.or(t),
    }
}

impl Hasher {
    fn start(workers: usize) -> Self {
        let (queue, jobs) = sync_channel::<Job>(workers * QUEUE_PER_WORKER);
        let jobs = Arc::new(Mutex::new(jobs));
        for i in 0..workers {
            let jobs = jobs.clone();
            std::thread::Builder::new()
                .name(format!("argon2-{i}"))
                .spawn(move || loop {
                    let job = match jobs.lock() {
                        Ok(jobs) => jobs.recv(),
                        Err(_) => return,
                    };
                    match job {
                        Ok(job) => job(),
                        Err(_) => return,
                    }
                })
                .expect("a hash thread starts");
        }
        Self {
            queue,
            workers,
            in_flight: Arc::default(),
            peak: Arc::default(),
        }
    }

    /// The process's hasher, started on first use.
    pub fn global() -> &'static Hasher {
        static HASHER: OnceLock<Hasher> = OnceLock::new();
        HASHER.get_or_init(|| {
            let workers = std::env::var("HASH_THREADS")
                .ok()
                .and_then(|v| v.parse::<usize>().ok())
                .filter(|n| *n > 0)
                .unwrap_or_else(|| {
                    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
                    workers_for(cpus, memory_limit())
                });
            Hasher::start(workers)
        })
    }

    /// How many checks run at once at most.
    pub fn workers(&self) -> usize {
        self.workers
    }

    /// The most checks that ever ran at once in this process.
    pub fn peak(&self) -> usize {
        self.peak.load(Ordering::Relaxed)
    }

    /// Queues `work` for a hash thread now (refused at once when the queue is full), and gives
    /// a future of its answer.
    pub fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> impl std::future::Future<Output = Result<T, Busy>> + Send + 'static {
        let (answer, answered) = tokio::sync::oneshot::channel();
        let (in_flight, peak) = (self.in_flight.clone(), self.peak.clone());
        let job: Job = Box::new(move || {
            let now = in_flight.fetch_add(1, Ordering::Relaxed) + 1;
            peak.fetch_max(now, Ordering::Relaxed);
            let out = work();
            in_flight.fetch_sub(1, Ordering::Relaxed);
            let _ = answer.send(out);
        });
        let queued = match self.queue.try_send(job) {
            Ok(()) => Ok(answered),
            Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => Err(Busy),
        };
        async move { queued?.await.map_err(|_| Busy) }
    }

    /// Whether `secret` is the one `hash` was made from.
    pub async fn verify(&self, hash: String, secret: String) -> Result<bool, Busy> {
        self.run(move || super::verify_secret(&hash, &secret)).await
    }

    /// The argon2id hash of `secret`.
    pub async fn hash(&self, secret: String) -> Result<String, Busy> {
        self.run(move || super::hash_secret(&secret)).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_follow_the_cores_and_the_memory() {
        assert_eq!(workers_for(2, Some(24 << 30)), 2);
        assert_eq!(workers_for(16, Some(256 << 20)), 4);
        assert_eq!(workers_for(8, Some(10 << 20)), 1);
        assert_eq!(workers_for(3, None), 3);
    }

    #[tokio::test]
    async fn checks_run_on_the_threads_only_and_a_full_queue_refuses_at_once() {
        let hasher = Hasher::start(1);
        let (release, held) = std::sync::mpsc::channel::<()>();
        let first = hasher.run(move || held.recv().is_ok());
        while hasher.in_flight.load(Ordering::Relaxed) == 0 {
            tokio::time::sleep(std::time::Duration::from_millis(1)).await;
        }
        let queued: Vec<_> = (0..QUEUE_PER_WORKER)
            .map(|i| hasher.run(move || i))
            .collect();
        assert_eq!(hasher.run(|| 0).await, Err(Busy), "the queue is full");
        release.send(()).expect("the first check waits");
        assert_eq!(first.await, Ok(true));
        let done = futures_util::future::join_all(queued).await;
        assert_eq!(done, (0..QUEUE_PER_WORKER).map(Ok).collect::<Vec<_>>());
        assert_eq!(hasher.peak(), 1, "one thread: one check at a time");
    }
}
