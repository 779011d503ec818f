//! Real processes a test starts: the server binary, Redis, the payment sandbox, SMTP.

use super::*;

/// A free TCP port on 127.0.0.1.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A child process that is killed when dropped.
pub struct Running(pub std::process::Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Redis for tests: `REDIS_URL` (the test command starts a throwaway one), else the local one.
pub fn redis_url() -> String {
    std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into())
}

/// Starts the `server` binary (a real second process) and waits until `/health` answers.
/// `extra` adds or overrides environment variables.
pub async fn server_process(
    database_url: &str,
    redis_url: &str,
    hold_ttl: &str,
    extra: &[(&str, &str)],
) -> (Running, String) {
    use std::process::{Command, Stdio};
    let port = free_port();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap();
    let data = std::env::temp_dir().join(format!("seats-proc-{port}"));
    let mut command = Command::new(env!("CARGO_BIN_EXE_server"));
    command
        .current_dir(root)
        .env("DATABASE_URL", database_url)
        .env("REDIS_URL", redis_url)
        .env("LEPTOS_SITE_ADDR", format!("127.0.0.1:{port}"))
        .env("DATA_DIR", data)
        .env("HOLD_TTL_SECONDS", hold_ttl)
        .env("SWEEP_INTERVAL_SECONDS", "1")
        .env("LONE_SEAT_RULE", "off")
        .env("HOLD_RATE_PER_MINUTE", "0")
        .env("HOLD_RATE_PER_ADDRESS", "0")
        .env("HOLDS_PER_CUSTOMER", "0")
        .env("HELD_SEATS_PER_ADDRESS", "0")
        .env("PAYMENT_WEBHOOK_SECRET", SANDBOX_SECRET)
        .env("SESSION_SECRET", SESSION_SECRET)
        .env("TICKET_KEYS", TICKET_KEYS)
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null());
    for (k, v) in extra {
        command.env(k, v);
    }
    let running = Running(command.spawn().expect("start the server binary"));
    let base = format!("http://127.0.0.1:{port}");
    let healthy = eventually(
        Duration::from_secs(30),
        || async {
            reqwest::get(format!("{base}/health"))
                .await
                .is_ok_and(|r| r.status() == reqwest::StatusCode::OK)
        },
        |healthy| *healthy,
    )
    .await;
    assert!(healthy, "server on {port} did not become healthy");
    (running, base)
}

/// A Redis server of the test's own on `port`, so that it can be stopped and started again.
pub fn own_redis(port: u16) -> Running {
    let child = std::process::Command::new("redis-server")
        .args([
            "--port",
            &port.to_string(),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
        ])
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("redis-server on PATH (scripts/test.sh installs it)");
    wait_for_redis(port);
    Running(child)
}

fn wait_for_redis(port: u16) {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            std::time::Instant::now() < deadline,
            "redis-server on {port} did not start"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A 3-master Redis Cluster of the test's own on local ports (`redis-server --cluster-enabled
/// yes` three times, then `redis-cli --cluster create`); stopped when dropped.
pub struct OwnCluster {
    pub ports: Vec<u16>,
    _nodes: Vec<Running>,
    dir: std::path::PathBuf,
}

impl OwnCluster {
    pub fn start() -> Self {
        use std::process::{Command, Stdio};
        let dir = std::env::temp_dir().join(format!("seats-cluster-{}", Uuid::new_v4().simple()));
        std::fs::create_dir_all(&dir).unwrap();
        // Each node also needs its port + 10000 free for the cluster bus.
        let mut ports: Vec<u16> = Vec::new();
        while ports.len() < 3 {
            let port = 20000 + rand_port_offset();
            let free = |p: u16| std::net::TcpListener::bind(("127.0.0.1", p)).is_ok();
            if !ports.contains(&port) && free(port) && free(port + 10000) {
                ports.push(port);
            }
        }
        let nodes = ports
            .iter()
            .map(|port| {
                let child = Command::new("redis-server")
                    .args([
                        "--port",
                        &port.to_string(),
                        "--bind",
                        "127.0.0.1",
                        "--cluster-enabled",
                        "yes",
                        "--cluster-config-file",
                        &format!("nodes-{port}.conf"),
                        "--dir",
                        dir.to_str().unwrap(),
                        "--save",
                        "",
                        "--appendonly",
                        "no",
                    ])
                    .stdout(Stdio::null())
                    .spawn()
                    .expect("redis-server on PATH");
                wait_for_redis(*port);
                Running(child)
            })
            .collect();
        let addresses: Vec<String> = ports.iter().map(|p| format!("127.0.0.1:{p}")).collect();
        let created = Command::new("redis-cli")
            .args(["--cluster", "create"])
            .args(&addresses)
            .args(["--cluster-replicas", "0", "--cluster-yes"])
            .stdout(Stdio::null())
            .status()
            .expect("redis-cli on PATH");
        assert!(created.success(), "redis-cli --cluster create failed");
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        for port in &ports {
            loop {
                let info = Command::new("redis-cli")
                    .args(["-p", &port.to_string(), "cluster", "info"])
                    .output()
                    .unwrap();
                if String::from_utf8_lossy(&info.stdout).contains("cluster_state:ok") {
                    break;
                }
                assert!(
                    std::time::Instant::now() < deadline,
                    "cluster never became ok"
                );
                std::thread::sleep(Duration::from_millis(100));
            }
        }
        Self {
            ports,
            _nodes: nodes,
            dir,
        }
    }

    /// `REDIS_URL` for the cluster: every node, comma-separated.
    pub fn url(&self) -> String {
        self.ports
            .iter()
            .map(|p| format!("redis://127.0.0.1:{p}"))
            .collect::<Vec<_>>()
            .join(",")
    }
}

impl Drop for OwnCluster {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn rand_port_offset() -> u16 {
    (Uuid::new_v4().as_u128() % 9000) as u16
}

/// The payment-gateway sandbox as a real process on a free port.
pub struct Sandbox {
    _process: Running,
    pub base: String,
    pub gateway: server::payments::gateway::HttpGateway,
}

pub async fn sandbox() -> Sandbox {
    let port = free_port();
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_payment-sandbox"))
        .env("SANDBOX_ADDR", format!("127.0.0.1:{port}"))
        .env("PAYMENT_WEBHOOK_SECRET", SANDBOX_SECRET)
        .env("RUST_LOG", "error")
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("start payment-sandbox");
    let process = Running(child);
    let base = format!("http://127.0.0.1:{port}");
    let up = eventually(
        Duration::from_secs(20),
        || async { reqwest::get(format!("{base}/health")).await.is_ok() },
        |up| *up,
    )
    .await;
    assert!(up, "sandbox did not start");
    Sandbox {
        _process: process,
        gateway: server::payments::gateway::HttpGateway::new(&base),
        base,
    }
}

/// A real SMTP server in its own process (Debian's `python3-aiosmtpd`), keeping every message it
/// receives in a maildir.
pub struct SmtpSink {
    _process: Running,
    pub port: u16,
    dir: std::path::PathBuf,
}

impl SmtpSink {
    pub async fn start() -> Self {
        Self::start_on(free_port()).await
    }

    /// On `port` (to start it again where a server already points).
    pub async fn start_on(port: u16) -> Self {
        let dir = std::env::temp_dir().join(format!("seats-smtp-{}", Uuid::new_v4().simple()));
        let python =
            std::env::var("SMTP_SINK_PYTHON").unwrap_or_else(|_| "/usr/bin/python3".into());
        let child = std::process::Command::new(python)
            .args(["-m", "aiosmtpd", "-n", "-l"])
            .arg(format!("127.0.0.1:{port}"))
            .args(["-c", "aiosmtpd.handlers.Mailbox"])
            .arg(&dir)
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("start aiosmtpd (apt install python3-aiosmtpd)");
        let process = Running(child);
        let up = eventually(
            Duration::from_secs(15),
            || async {
                tokio::net::TcpStream::connect(("127.0.0.1", port))
                    .await
                    .is_ok()
            },
            |up| *up,
        )
        .await;
        assert!(up, "the SMTP server did not start on {port}");
        Self {
            _process: process,
            port,
            dir,
        }
    }

    pub fn url(&self) -> String {
        format!("smtp://127.0.0.1:{}", self.port)
    }

    /// Every message received so far, as sent.
    pub fn messages(&self) -> Vec<Vec<u8>> {
        let Ok(entries) = std::fs::read_dir(self.dir.join("new")) else {
            return Vec::new();
        };
        // In the order they arrived (maildir names do not sort so within a second).
        let mut files: Vec<_> = entries
            .filter_map(|e| e.ok())
            .map(|e| {
                let at = e.metadata().and_then(|m| m.modified()).ok();
                (at, e.path())
            })
            .collect();
        files.sort();
        let files = files.into_iter().map(|(_, path)| path);
        files
            .into_iter()
            .filter_map(|f| std::fs::read(f).ok())
            .collect()
    }

    /// Waits until `n` messages arrived (at most `within`); all of them.
    pub async fn received(&self, n: usize, within: Duration) -> Vec<Vec<u8>> {
        eventually(within, || async { self.messages() }, |m| m.len() >= n).await
    }
}
