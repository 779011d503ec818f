//! The payment-gateway sandbox as a real separate process (the `payment-sandbox` binary), driven
//! through the server's `HttpGateway` adapter; its callbacks go to a small HTTP receiver in the
//! test, which checks their signatures.

use crate::support::{eventually, get_json, get_text};
use crate::support::{sandbox, Sandbox, SANDBOX_SECRET as SECRET};
use axum::body::Bytes;
use axum::http::{HeaderMap, StatusCode};
use chrono::Utc;
use serde_json::{json, Value};
use server::payments::gateway::{
    CallbackEvent, Faults, GatewayError, NewSession, PaymentGateway, SessionStatus,
};
use server::payments::signature;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One received callback: its signature header and raw body, and when it came.
#[derive(Clone)]
struct Delivery {
    signature: String,
    body: Bytes,
    at: Instant,
}

/// An HTTP receiver for callbacks that answers 500 to the first `fail_first` deliveries.
struct Receiver {
    url: String,
    deliveries: Arc<Mutex<Vec<Delivery>>>,
}

async fn receiver(fail_first: usize) -> Receiver {
    let deliveries: Arc<Mutex<Vec<Delivery>>> = Arc::default();
    let seen = deliveries.clone();
    let app = axum::Router::new().route(
        "/callback",
        axum::routing::post(move |headers: HeaderMap, body: Bytes| {
            let seen = seen.clone();
            async move {
                let mut seen = seen.lock().unwrap();
                seen.push(Delivery {
                    signature: headers
                        .get(signature::HEADER)
                        .and_then(|v| v.to_str().ok())
                        .unwrap_or_default()
                        .to_string(),
                    body,
                    at: Instant::now(),
                });
                if seen.len() <= fail_first {
                    StatusCode::INTERNAL_SERVER_ERROR
                } else {
                    StatusCode::OK
                }
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/callback", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    Receiver { url, deliveries }
}

impl Receiver {
    /// How many deliveries there are once `quiet` has passed (to show that no more come).
    async fn count_after(&self, quiet: Duration) -> usize {
        tokio::time::sleep(quiet).await;
        self.deliveries.lock().unwrap().len()
    }

    /// Waits up to `wait` for at least `n` deliveries; returns all so far.
    async fn wait_for(&self, n: usize, wait: Duration) -> Vec<Delivery> {
        eventually(
            wait,
            || async { self.deliveries.lock().unwrap().clone() },
            |got| got.len() >= n,
        )
        .await
    }
}

fn new_session(callback_url: &str, reference: &str, faults: Option<Faults>) -> NewSession {
    NewSession {
        amount: app::domain::Won::new(39_000),
        currency: "KRW".into(),
        expires_at: Utc::now() + chrono::Duration::minutes(8),
        return_url: "http://127.0.0.1:9/bookings/return?from=sandbox".into(),
        callback_url: callback_url.into(),
        merchant_reference: reference.into(),
        faults,
    }
}

/// Completes a session on the hosted page as a customer would (the page's form posts), without
/// following the redirect back to the shop. Returns the answer's status and `Location`.
async fn press(base: &str, session_id: &str, button: &str) -> (u16, Option<String>) {
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let r = client
        .post(format!("{base}/pay/{session_id}/{button}"))
        .send()
        .await
        .unwrap();
    let location = r
        .headers()
        .get("location")
        .map(|v| v.to_str().unwrap().to_string());
    (r.status().as_u16(), location)
}

/// A session for `receiver` (with `faults`), paid on the hosted page.
async fn paid(
    sandbox: &Sandbox,
    receiver: &Receiver,
    reference: &str,
    faults: Option<Faults>,
) -> server::payments::gateway::Session {
    let session = sandbox
        .gateway
        .create_session(&new_session(&receiver.url, reference, faults), reference)
        .await
        .unwrap();
    assert_eq!(
        press(&sandbox.base, &session.session_id, "pay").await.0,
        303
    );
    session
}

fn verified(delivery: &Delivery) -> CallbackEvent {
    signature::verify(
        SECRET.as_bytes(),
        &delivery.signature,
        &delivery.body,
        Utc::now().timestamp(),
    )
    .expect("the callback is signed with the shared secret");
    serde_json::from_slice(&delivery.body).unwrap()
}

#[tokio::test]
async fn paying_on_the_hosted_page_sends_one_signed_callback_and_the_status_says_paid() {
    let sandbox = sandbox().await;
    let receiver = receiver(0).await;
    let session = sandbox
        .gateway
        .create_session(
            &new_session(&receiver.url, "booking <b>42</b>", None),
            "key-1",
        )
        .await
        .unwrap();
    assert_eq!(session.status, SessionStatus::Open);
    assert!(session
        .payment_url
        .starts_with(&format!("{}/pay/ps_", sandbox.base)));

    let page = get_text(&session.payment_url).await;
    assert!(page.contains("39,000 KRW"), "{page}");
    assert!(
        page.contains("booking &lt;b&gt;42&lt;/b&gt;"),
        "the reference is escaped"
    );
    assert!(page.contains(&format!(r#"action="/pay/{}/pay""#, session.session_id)));

    let (status, location) = press(&sandbox.base, &session.session_id, "pay").await;
    assert_eq!(status, 303);
    assert_eq!(
        location.unwrap(),
        format!(
            "http://127.0.0.1:9/bookings/return?from=sandbox&sessionId={}&status=paid",
            session.session_id
        )
    );
    let deliveries = receiver.wait_for(1, Duration::from_secs(3)).await;
    assert_eq!(deliveries.len(), 1);
    let event = verified(&deliveries[0]);
    assert_eq!(event.kind, "payment.succeeded");
    assert_eq!(event.status, SessionStatus::Paid);
    assert_eq!(event.amount, app::domain::Won::new(39_000));
    assert_eq!(event.merchant_reference, "booking <b>42</b>");

    let now = sandbox.gateway.session(&session.session_id).await.unwrap();
    assert_eq!(now.status, SessionStatus::Paid);
    assert_eq!(now.payment_id, event.payment_id);
    // Paying twice is refused and sends nothing more.
    assert_eq!(
        press(&sandbox.base, &session.session_id, "pay").await.0,
        409
    );
    assert_eq!(receiver.count_after(Duration::from_millis(700)).await, 1);
}

#[tokio::test]
async fn a_session_is_created_once_per_idempotency_key() {
    let sandbox = sandbox().await;
    let request = new_session("http://127.0.0.1:9/cb", "booking 7", None);
    let (a, b) = tokio::join!(
        sandbox.gateway.create_session(&request, "same-key"),
        sandbox.gateway.create_session(&request, "same-key"),
    );
    let a = a.unwrap();
    assert_eq!(a.session_id, b.unwrap().session_id);
    let mut other = request.clone();
    other.amount = app::domain::Won::new(1);
    assert!(matches!(
        sandbox.gateway.create_session(&other, "same-key").await,
        Err(GatewayError::Refused { status: 422, .. })
    ));
    let fresh = sandbox
        .gateway
        .create_session(&request, "another-key")
        .await
        .unwrap();
    assert_ne!(fresh.session_id, a.session_id);
}

#[tokio::test]
async fn declined_and_expired_sessions() {
    let sandbox = sandbox().await;
    let receiver = receiver(0).await;
    let session = sandbox
        .gateway
        .create_session(&new_session(&receiver.url, "booking 8", None), "k")
        .await
        .unwrap();
    let (status, location) = press(&sandbox.base, &session.session_id, "decline").await;
    assert_eq!(status, 303);
    assert!(location.unwrap().ends_with("&status=declined"));
    let event = verified(&receiver.wait_for(1, Duration::from_secs(3)).await[0]);
    assert_eq!(event.kind, "payment.declined");
    assert_eq!(event.payment_id, None);
    let now = sandbox.gateway.session(&session.session_id).await.unwrap();
    assert_eq!(now.status, SessionStatus::Declined);
    assert_eq!(
        press(&sandbox.base, &session.session_id, "pay").await.0,
        409
    );

    let mut short = new_session(&receiver.url, "booking 9", None);
    short.expires_at = Utc::now() + chrono::Duration::milliseconds(800);
    let short = sandbox.gateway.create_session(&short, "k2").await.unwrap();
    tokio::time::sleep(Duration::from_millis(1000)).await;
    assert_eq!(
        sandbox
            .gateway
            .session(&short.session_id)
            .await
            .unwrap()
            .status,
        SessionStatus::Expired
    );
    assert_eq!(press(&sandbox.base, &short.session_id, "pay").await.0, 409);
    assert_eq!(
        receiver.count_after(Duration::from_millis(500)).await,
        1,
        "no callback for the expired session"
    );
}

#[tokio::test]
async fn injected_faults_duplicate_delay_or_drop_the_callback() {
    let sandbox = sandbox().await;
    let twice = receiver(0).await;
    paid(
        &sandbox,
        &twice,
        "dup",
        Some(Faults {
            duplicate_callback: true,
            ..Faults::default()
        }),
    )
    .await;
    let got = twice.wait_for(2, Duration::from_secs(3)).await;
    assert_eq!(got.len(), 2);
    assert_eq!(verified(&got[0]).event_id, verified(&got[1]).event_id);
    assert!(
        got[1].at.duration_since(got[0].at) < Duration::from_millis(200),
        "both at once"
    );

    let late = receiver(0).await;
    let pressed = Instant::now();
    paid(
        &sandbox,
        &late,
        "late",
        Some(Faults {
            callback_delay_seconds: 1,
            ..Faults::default()
        }),
    )
    .await;
    let got = late.wait_for(1, Duration::from_secs(4)).await;
    assert_eq!(got.len(), 1);
    assert!(got[0].at.duration_since(pressed) >= Duration::from_secs(1));

    // Globally: every new session loses its callback; the status API still knows.
    let r = reqwest::Client::new()
        .put(format!("{}/v1/faults", sandbox.base))
        .json(&json!({ "dropCallback": true }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let lost = receiver(0).await;
    let session = paid(&sandbox, &lost, "lost", None).await;
    assert_eq!(lost.count_after(Duration::from_millis(1500)).await, 0);
    assert_eq!(
        sandbox
            .gateway
            .session(&session.session_id)
            .await
            .unwrap()
            .status,
        SessionStatus::Paid
    );
}

#[tokio::test]
async fn a_refused_callback_is_retried_until_acknowledged() {
    let sandbox = sandbox().await;
    let receiver = receiver(2).await; // 500, 500, then 200
    paid(&sandbox, &receiver, "retry", None).await;
    let got = receiver.wait_for(3, Duration::from_secs(5)).await;
    assert_eq!(got.len(), 3);
    let ids: Vec<String> = got.iter().map(|d| verified(d).event_id).collect();
    assert!(ids.iter().all(|id| id == &ids[0]));
    assert_eq!(
        receiver.count_after(Duration::from_millis(1500)).await,
        3,
        "no delivery after the acknowledged one"
    );
}

#[tokio::test]
async fn refunds_are_idempotent_by_key_and_never_exceed_the_payment() {
    let sandbox = sandbox().await;
    let receiver = receiver(0).await;
    let session = paid(&sandbox, &receiver, "refund", None).await;
    let payment = verified(&receiver.wait_for(1, Duration::from_secs(3)).await[0])
        .payment_id
        .unwrap();

    let first = sandbox
        .gateway
        .refund(&payment, app::domain::Won::new(39_000), "refund-booking-1")
        .await
        .unwrap();
    let again = sandbox
        .gateway
        .refund(&payment, app::domain::Won::new(39_000), "refund-booking-1")
        .await
        .unwrap();
    assert_eq!(first, again, "the same key refunds once");
    assert!(matches!(
        sandbox
            .gateway
            .refund(&payment, app::domain::Won::new(39_000), "another-key")
            .await,
        Err(GatewayError::Refused { status: 409, .. })
    ));
    assert!(matches!(
        sandbox
            .gateway
            .refund("pay_nope", app::domain::Won::new(1), "k")
            .await,
        Err(GatewayError::NotFound(_))
    ));
    let record: Value = get_json(format!("{}/v1/payments/{payment}", sandbox.base)).await;
    assert_eq!(record["refunded"], 39_000);
    assert_eq!(record["refunds"].as_array().unwrap().len(), 1);
    assert_eq!(
        sandbox
            .gateway
            .session(&session.session_id)
            .await
            .unwrap()
            .refunded,
        app::domain::Won::new(39_000)
    );
}

#[tokio::test]
async fn bad_requests_get_a_4xx_with_a_json_error() {
    let sandbox = sandbox().await;
    let client = reqwest::Client::new();
    let good = serde_json::to_value(new_session("http://127.0.0.1:9/cb", "x", None)).unwrap();
    let mut cases = vec![
        (json!({"amount": 1}), 400),
        (Value::String("not an object".into()), 400),
    ];
    for (field, value) in [
        ("amount", json!(0)),
        ("currency", json!("won")),
        ("callbackUrl", json!("ftp://x")),
        ("merchantReference", json!("")),
        ("expiresAt", json!("2020-01-01T00:00:00Z")),
        ("surprise", json!(1)),
    ] {
        let mut body = good.clone();
        body[field] = value;
        cases.push((body, 400));
    }
    for (body, want) in cases {
        let r = client
            .post(format!("{}/v1/sessions", sandbox.base))
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), want, "{body}");
        let answer: Value = r.json().await.unwrap();
        assert!(
            answer["error"].as_str().is_some_and(|e| !e.is_empty()),
            "{body}"
        );
    }
    let r = client
        .post(format!("{}/v1/payments/pay_x/refunds", sandbox.base))
        .json(&json!({"amount": 1}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400, "a refund needs an idempotency key");
    let r = reqwest::get(format!("{}/v1/sessions/ps_nope", sandbox.base))
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
    assert!(r.json::<Value>().await.unwrap()["error"].is_string());
}
