//! A server on a random port over a test database, and its clients.

use super::*;

/// A server started on a random port over a test database, with the demo data.
pub struct TestApp {
    pub base: String,
    pub engine: Arc<Engine>,
}

impl TestApp {
    /// Without Redis and without the hold rate limit (tests of the limit turn it on).
    pub async fn spawn(db: &TestDb, hold_ttl_seconds: &str) -> Self {
        Self::spawn_with(db, hold_ttl_seconds, &[]).await
    }

    /// With more configuration, e.g. `REDIS_URL` or `HOLD_RATE_PER_MINUTE`.
    pub async fn spawn_with(db: &TestDb, hold_ttl_seconds: &str, extra: &[(&str, &str)]) -> Self {
        let data_dir = std::env::temp_dir().join(format!("seats-app-{}", Uuid::new_v4().simple()));
        let mut vars: std::collections::HashMap<&str, String> = [
            ("DATABASE_URL", db.url.clone()),
            ("DATA_DIR", data_dir.display().to_string()),
            ("HOLD_TTL_SECONDS", hold_ttl_seconds.to_string()),
            ("SWEEP_INTERVAL_SECONDS", "1".to_string()),
            ("HOLD_RATE_PER_MINUTE", "0".to_string()),
            ("HOLD_RATE_PER_ADDRESS", "0".to_string()),
            ("HOLDS_PER_CUSTOMER", "0".to_string()),
            // Tests of other parts hold whatever seats they need; `seat_rules` turns it on.
            ("LONE_SEAT_RULE", "off".to_string()),
            ("HELD_SEATS_PER_ADDRESS", "0".to_string()),
            // Tests of other parts cancel and hold the same seats again; `gate` turns it on.
            ("HOLD_COOLDOWN_SECONDS", "0".to_string()),
            ("CHECKOUT_RATE_PER_MINUTE", "0".to_string()),
            ("CHECKOUT_RATE_PER_ADDRESS", "0".to_string()),
            ("PAYMENT_WEBHOOK_SECRET", SANDBOX_SECRET.to_string()),
            ("OPERATOR_PASSWORD", OPERATOR_PASSWORD.to_string()),
            ("SESSION_SECRET", SESSION_SECRET.to_string()),
            ("TICKET_KEYS", TICKET_KEYS.to_string()),
        ]
        .into_iter()
        .collect();
        vars.extend(extra.iter().map(|(k, v)| (*k, v.to_string())));
        let config = server::config::Config::from_lookup(|k| vars.get(k).cloned()).unwrap();
        let mut options = leptos::config::LeptosOptions::builder()
            .output_name("seats")
            .site_addr("127.0.0.1:0".parse::<std::net::SocketAddr>().unwrap())
            .build();
        if let Some(root) = vars.get("LEPTOS_SITE_ROOT") {
            options.site_root = root.as_str().into();
        }
        let app = server::startup::Application::build(config, Clock::Database, options)
            .await
            .unwrap();
        let base = format!("http://{}", app.local_addr());
        let engine = app.engine.clone();
        tokio::spawn(app.serve());
        Self { base, engine }
    }

    /// A session with its own cookie jar: one customer.
    pub fn customer(&self) -> Session {
        Session::new(&self.base)
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }
}

/// A WebSocket client of the live seat map.
pub type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Connects a live-map viewer of `showtime` to the server at `base` (`http://host:port`).
pub async fn viewer(base: &str, showtime: i64) -> Socket {
    let url = format!(
        "{}/showtimes/{showtime}/live",
        base.replace("http://", "ws://")
    );
    tokio_tungstenite::connect_async(url)
        .await
        .expect("websocket upgrade")
        .0
}

/// The id of the first showtime (in time order) on sale that the server at `base` lists and
/// that starts more than an hour from now (sales close at the start, and payment sessions end
/// two minutes before it: a showtime about to start would cut the tests' holds short).
pub async fn first_showtime(base: &str) -> i64 {
    let list: Vec<serde_json::Value> = reqwest::get(format!("{base}/showtimes"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let later = Utc::now() + chrono::Duration::hours(1);
    list.iter()
        .find(|s| {
            s["salesOpen"] == true
                && s["startsAt"]
                    .as_str()
                    .and_then(|t| t.parse::<chrono::DateTime<Utc>>().ok())
                    .is_some_and(|t| t > later)
        })
        .expect("a showtime on sale, more than an hour ahead")["id"]
        .as_i64()
        .unwrap()
}

/// The password of the staff account `operator` that test servers make at start.
pub const OPERATOR_PASSWORD: &str = "the tests' operator password";

/// A client of its own (a cookie jar) signed in as staff member `name`.
pub async fn signed_in(app: &TestApp, name: &str, password: &str) -> Session {
    let client = app.customer();
    let r = client
        .post(app.url("/api/staff_sign_in"))
        .json(&serde_json::json!({ "name": name, "password": password }))
        .send()
        .await
        .unwrap();
    let status = r.status();
    assert_eq!(status, 200, "{name} signs in: {}", r.text().await.unwrap());
    client
}

/// A client signed in as the operator.
pub async fn operator(app: &TestApp) -> Session {
    signed_in(app, "operator", OPERATOR_PASSWORD).await
}

/// The session secret of test servers (processes that share a database share it, as in
/// production).
pub const SESSION_SECRET: &str = "a shared session secret for every test server";

/// The ticket keys of test servers.
pub const TICKET_KEYS: &str = "t1:the ticket signing key of the test servers (32+ characters)";

/// The webhook secret the test sandboxes and servers share.
pub const SANDBOX_SECRET: &str = "the tests' payment webhook secret";

/// The body of a GET to `url` as text (any status).
pub async fn get_text(url: impl reqwest::IntoUrl) -> String {
    reqwest::get(url).await.unwrap().text().await.unwrap()
}

/// What a page said, for an assertion's message: its `<main>` without the markup, and the
/// streamed parts after it (out-of-order chunks and their scripts), each cut to 600 characters.
pub fn page_evidence(html: &str) -> String {
    let cut = |s: &str| s.chars().take(600).collect::<String>();
    let text = |s: &str| {
        let mut out = String::new();
        let mut tag = false;
        for c in s.chars() {
            match c {
                '<' => tag = true,
                '>' => {
                    tag = false;
                    out.push(' ');
                }
                c if !tag => out.push(c),
                _ => {}
            }
        }
        out.split_whitespace().collect::<Vec<_>>().join(" ")
    };
    let Some(start) = html.find("<main") else {
        return format!("no <main> in {} bytes: {}", html.len(), cut(html));
    };
    let end = html[start..]
        .find("</main>")
        .map_or(html.len(), |e| start + e);
    format!(
        "{} bytes; main: {}; after it: {}",
        html.len(),
        cut(&text(&html[start..end])),
        cut(&html[end..])
    )
}

/// The body of a GET to `url` read as JSON (any status).
pub async fn get_json<T: serde::de::DeserializeOwned>(url: impl reqwest::IntoUrl) -> T {
    reqwest::get(url).await.unwrap().json().await.unwrap()
}

/// Seat `code` of a seat map or live message (its `seats` array), as JSON.
pub fn seat<'a>(message: &'a serde_json::Value, code: &str) -> &'a serde_json::Value {
    message["seats"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["code"] == code)
        .unwrap_or_else(|| panic!("{code} in {message}"))
}

/// A staff sign-in of `name` by `client` (its cookies: a device it signed in on before, if any)
/// from `address` (the test servers that trust 127.0.0.1 as a proxy read it): when the server
/// asks a proof of work, it is solved and the sign-in sent again. The status, the error's kind,
/// and the bits of the proofs asked on the way.
pub async fn sign_in_solving(
    app: &TestApp,
    client: &Session,
    name: &str,
    password: &str,
    address: &str,
) -> (reqwest::StatusCode, String, Vec<u8>) {
    let mut proof = serde_json::Value::Null;
    let mut asked = Vec::new();
    loop {
        let r = client
            .post(app.url("/api/staff_sign_in"))
            .header("x-forwarded-for", address)
            .json(&serde_json::json!({ "name": name, "password": password, "proof": proof }))
            .send()
            .await
            .unwrap();
        let status = r.status();
        let body: serde_json::Value = r.json().await.unwrap_or(serde_json::Value::Null);
        let kind = body["kind"].as_str().unwrap_or_default().to_string();
        if kind != "ProofRequired" || asked.len() >= 12 {
            return (status, kind, asked);
        }
        let challenge = body["detail"]["challenge"].as_str().unwrap().to_string();
        let bits = body["detail"]["bits"].as_u64().unwrap() as u8;
        asked.push(bits);
        let nonce = app::domain::QueueProof::search(&challenge, bits, 0, u64::MAX).unwrap();
        proof = serde_json::json!({ "challenge": challenge, "nonce": nonce });
    }
}
