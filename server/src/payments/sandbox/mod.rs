//! The payment-gateway sandbox (`payment-sandbox` binary): a stand-in for a card provider with
//! its own HTTP server and in-memory state. It serves the API of `gateway` (sessions, status,
//! refunds), a hosted payment page where a person pays or declines, and signed callbacks, with
//! fault injection (late, duplicated or lost callbacks) per session or for every new session.
//!
//! | request | answers |
//! |---|---|
//! | `POST /v1/sessions` + `Idempotency-Key`? | 201 session; same key and body → 200 the same session; same key, other body → 422 |
//! | `GET /v1/sessions/{id}` | 200 session (status OPEN, PAID, DECLINED or EXPIRED) |
//! | `POST /v1/payments/{paymentId}/refunds` + `Idempotency-Key` `{amount}` | 201 refund; same key → 200 the same refund; more than is left → 409 |
//! | `GET /v1/payments/{paymentId}` | 200 `{paymentId, sessionId, amount, refunded, refunds}` |
//! | `GET`/`PUT /v1/faults` | the faults every new session gets, and delays for creating sessions and refunds |
//! | `GET /pay/{id}` | the hosted page; its buttons post to `/pay/{id}/pay` and `/pay/{id}/decline`, which record the outcome, send the callback and redirect (303) to the return URL with `sessionId` and `status` |

use super::gateway::{Faults, NewSession, Refund, Session, SessionStatus};
use app::domain::Won;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use chrono::Utc;
use page::{decline, page, pay};
use serde_json::json;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Deliveries of one callback before the sandbox gives up (with 0.5, 1, 2, 4 s between them).
mod page;

const CALLBACK_ATTEMPTS: u32 = 5;

#[derive(Clone)]
pub struct SandboxConfig {
    /// Shared with the server as `PAYMENT_WEBHOOK_SECRET`.
    pub webhook_secret: Vec<u8>,
    /// Base of the hosted page's URL, as the customer's browser reaches the sandbox.
    pub public_url: String,
}

struct Record {
    session: Session,
    request: NewSession,
    faults: Faults,
}

#[derive(Default)]
struct Books {
    sessions: HashMap<String, Record>,
    /// Idempotency key → session id.
    keys: HashMap<String, String>,
    /// Payment id → session id.
    payments: HashMap<String, String>,
    /// (payment id, idempotency key) → refund.
    refunds: HashMap<(String, String), Refund>,
    faults: Faults,
}

#[derive(Clone)]
struct Sandbox {
    config: Arc<SandboxConfig>,
    books: Arc<Mutex<Books>>,
    http: reqwest::Client,
}

pub fn router(config: SandboxConfig) -> Router {
    let sandbox = Sandbox {
        config: Arc::new(config),
        books: Arc::default(),
        http: reqwest::Client::builder()
            .timeout(Duration::from_secs(10))
            .build()
            .expect("HTTP client"),
    };
    Router::new()
        .route("/health", get(|| async { Json(json!({ "status": "ok" })) }))
        .route("/v1/sessions", post(create_session))
        .route("/v1/sessions/{id}", get(get_session))
        .route("/v1/payments/{id}", get(get_payment))
        .route("/v1/payments/{id}/refunds", post(create_refund))
        .route("/v1/faults", get(get_faults).put(put_faults))
        .route("/pay/{id}", get(page))
        .route("/pay/{id}/pay", post(pay))
        .route("/pay/{id}/decline", post(decline))
        .fallback(|| async { error(StatusCode::NOT_FOUND, "no such resource") })
        .with_state(sandbox)
}

fn error(status: StatusCode, message: impl Into<String>) -> Response {
    (status, Json(json!({ "error": message.into() }))).into_response()
}

fn idempotency_key(headers: &HeaderMap) -> Option<String> {
    headers
        .get("idempotency-key")
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|k| !k.is_empty() && k.len() <= 200)
        .map(str::to_string)
}

fn is_http_url(url: &str) -> bool {
    (url.starts_with("http://") || url.starts_with("https://")) && url.len() <= 2000
}

fn validate(s: &NewSession) -> Result<(), String> {
    if s.amount <= Won::ZERO {
        return Err("amount must be greater than 0".into());
    }
    if s.currency.len() != 3 || !s.currency.chars().all(|c| c.is_ascii_uppercase()) {
        return Err("currency must be three capital letters (ISO 4217), e.g. KRW".into());
    }
    let now = Utc::now();
    if s.expires_at <= now || s.expires_at > now + chrono::Duration::hours(24) {
        return Err("expiresAt must be in the future, at most 24 hours ahead".into());
    }
    if !is_http_url(&s.return_url) || !is_http_url(&s.callback_url) {
        return Err("returnUrl and callbackUrl must be http(s) URLs".into());
    }
    if s.merchant_reference.is_empty() || s.merchant_reference.len() > 200 {
        return Err("merchantReference must be 1 to 200 characters".into());
    }
    Ok(())
}

/// The session with its status as of now (an open session past its expiry has expired).
fn current(record: &Record) -> Session {
    let mut session = record.session.clone();
    if session.status == SessionStatus::Open && session.expires_at <= Utc::now() {
        session.status = SessionStatus::Expired;
    }
    session
}

async fn create_session(
    State(sandbox): State<Sandbox>,
    headers: HeaderMap,
    body: Result<Json<NewSession>, axum::extract::rejection::JsonRejection>,
) -> Response {
    let Json(request) = match body {
        Ok(body) => body,
        Err(e) => return error(StatusCode::BAD_REQUEST, e.body_text()),
    };
    if let Err(message) = validate(&request) {
        return error(StatusCode::BAD_REQUEST, message);
    }
    let key = idempotency_key(&headers);
    let delay = sandbox.books.lock().expect("books").faults.session_delay_ms;
    if delay > 0 {
        tokio::time::sleep(Duration::from_millis(delay)).await;
    }
    let mut books = sandbox.books.lock().expect("books");
    if let Some(existing) = key.as_ref().and_then(|k| books.keys.get(k)) {
        let record = &books.sessions[existing];
        if record.request != request {
            return error(
                StatusCode::UNPROCESSABLE_ENTITY,
                "this Idempotency-Key was used with a different request",
            );
        }
        return (StatusCode::OK, Json(current(record))).into_response();
    }
    let id = format!("ps_{}", uuid::Uuid::new_v4().simple());
    let session = Session {
        session_id: id.clone(),
        payment_url: format!(
            "{}/pay/{id}",
            sandbox.config.public_url.trim_end_matches('/')
        ),
        status: SessionStatus::Open,
        amount: request.amount,
        currency: request.currency.clone(),
        expires_at: request.expires_at,
        merchant_reference: request.merchant_reference.clone(),
        payment_id: None,
        refunded: Won::ZERO,
    };
    let faults = request.faults.unwrap_or(books.faults);
    books.sessions.insert(
        id.clone(),
        Record {
            session: session.clone(),
            request,
            faults,
        },
    );
    if let Some(key) = key {
        books.keys.insert(key, id);
    }
    (StatusCode::CREATED, Json(session)).into_response()
}

async fn get_session(State(sandbox): State<Sandbox>, Path(id): Path<String>) -> Response {
    let books = sandbox.books.lock().expect("books");
    match books.sessions.get(&id) {
        Some(record) => Json(current(record)).into_response(),
        None => error(StatusCode::NOT_FOUND, "no such session"),
    }
}

fn refunds_of<'a>(books: &'a Books, payment: &str) -> Vec<&'a Refund> {
    let mut refunds: Vec<&Refund> = books
        .refunds
        .iter()
        .filter(|((p, _), _)| p == payment)
        .map(|(_, r)| r)
        .collect();
    refunds.sort_by_key(|r| r.created_at);
    refunds
}

async fn get_payment(State(sandbox): State<Sandbox>, Path(id): Path<String>) -> Response {
    let books = sandbox.books.lock().expect("books");
    let Some(record) = books.payments.get(&id).map(|s| &books.sessions[s]) else {
        return error(StatusCode::NOT_FOUND, "no such payment");
    };
    Json(json!({
        "paymentId": id,
        "sessionId": record.session.session_id,
        "amount": record.session.amount,
        "currency": record.session.currency,
        "refunded": record.session.refunded,
        "refunds": refunds_of(&books, &id),
    }))
    .into_response()
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct RefundBody {
    amount: Won,
}

async fn create_refund(
    State(sandbox): State<Sandbox>,
    Path(payment): Path<String>,
    headers: HeaderMap,
    body: Result<Json<RefundBody>, axum::extract::rejection::JsonRejection>,
) -> Response {
    let Some(key) = idempotency_key(&headers) else {
        return error(
            StatusCode::BAD_REQUEST,
            "a refund needs an Idempotency-Key header",
        );
    };
    let delay = sandbox.books.lock().expect("books").faults.refund_delay_ms;
    if delay > 0 {
        tokio::time::sleep(Duration::from_millis(delay)).await;
    }
    let Json(body) = match body {
        Ok(body) => body,
        Err(e) => return error(StatusCode::BAD_REQUEST, e.body_text()),
    };
    let mut books = sandbox.books.lock().expect("books");
    let Some(session_id) = books.payments.get(&payment).cloned() else {
        return error(StatusCode::NOT_FOUND, "no such payment");
    };
    if let Some(refund) = books.refunds.get(&(payment.clone(), key.clone())) {
        if refund.amount != body.amount {
            return error(
                StatusCode::UNPROCESSABLE_ENTITY,
                "this Idempotency-Key was used with a different amount",
            );
        }
        return (StatusCode::OK, Json(refund.clone())).into_response();
    }
    let record = books
        .sessions
        .get_mut(&session_id)
        .expect("payment's session");
    let left = record.session.amount - record.session.refunded;
    if body.amount <= Won::ZERO || body.amount > left {
        return error(
            StatusCode::CONFLICT,
            format!(
                "the amount must be between 1 and what is left to refund ({})",
                left.get()
            ),
        );
    }
    record.session.refunded += body.amount;
    let refund = Refund {
        refund_id: format!("re_{}", uuid::Uuid::new_v4().simple()),
        payment_id: payment.clone(),
        amount: body.amount,
        created_at: Utc::now(),
    };
    books.refunds.insert((payment, key), refund.clone());
    (StatusCode::CREATED, Json(refund)).into_response()
}

async fn get_faults(State(sandbox): State<Sandbox>) -> Json<Faults> {
    Json(sandbox.books.lock().expect("books").faults)
}

async fn put_faults(
    State(sandbox): State<Sandbox>,
    body: Result<Json<Faults>, axum::extract::rejection::JsonRejection>,
) -> Response {
    match body {
        Ok(Json(faults)) => {
            sandbox.books.lock().expect("books").faults = faults;
            Json(faults).into_response()
        }
        Err(e) => error(StatusCode::BAD_REQUEST, e.body_text()),
    }
}
