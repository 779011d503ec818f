//! The payment gateway as the server sees it: a [`PaymentGateway`] trait in the terms every card
//! provider offers (a hosted payment session, its status, refunds), the wire types of the small
//! HTTP API the sandbox speaks (documented in docs/operating.md, "Payment gateway sandbox"), and
//! [`HttpGateway`], the adapter for that API. A real provider gets its own adapter behind the same
//! trait; nothing else in the server talks to a gateway.

use app::domain::Won;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// A payment session to create: the customer pays `amount` (in the currency's minor unit; the
/// won has none) on the gateway's hosted page before `expires_at`, then returns to `return_url`;
/// the gateway reports the outcome to `callback_url`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NewSession {
    pub amount: Won,
    pub currency: String,
    pub expires_at: DateTime<Utc>,
    pub return_url: String,
    pub callback_url: String,
    pub merchant_reference: String,
    /// Sandbox only: misbehave for this session (tests).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub faults: Option<Faults>,
}

/// Sandbox fault injection, per session or as the default for new sessions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Faults {
    /// Send the callback this many seconds late.
    #[serde(default)]
    pub callback_delay_seconds: u64,
    /// Send the callback twice, both at once.
    #[serde(default)]
    pub duplicate_callback: bool,
    /// Never send the callback (the status API still knows the outcome).
    #[serde(default)]
    pub drop_callback: bool,
    /// Answer session creation this many milliseconds late (set with `PUT /v1/faults`).
    #[serde(default)]
    pub session_delay_ms: u64,
    /// Answer refunds this many milliseconds late (set with `PUT /v1/faults`).
    #[serde(default)]
    pub refund_delay_ms: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum SessionStatus {
    /// Waiting for the customer.
    Open,
    Paid,
    Declined,
    /// Not paid before `expiresAt`.
    Expired,
}

/// A payment session as the gateway reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Session {
    pub session_id: String,
    /// The hosted page to send the customer to.
    pub payment_url: String,
    pub status: SessionStatus,
    pub amount: Won,
    pub currency: String,
    pub expires_at: DateTime<Utc>,
    pub merchant_reference: String,
    /// Set once paid: the provider's payment id (what refunds name).
    pub payment_id: Option<String>,
    /// Amount refunded so far.
    pub refunded: Won,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Refund {
    pub refund_id: String,
    pub payment_id: String,
    pub amount: Won,
    pub created_at: DateTime<Utc>,
}

/// The body of a callback (`POST` to the session's `callbackUrl`, signed; see `signature`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CallbackEvent {
    /// The same for every delivery of one event (duplicates carry the same id).
    pub event_id: String,
    /// `payment.succeeded` or `payment.declined`.
    #[serde(rename = "type")]
    pub kind: String,
    pub session_id: String,
    pub payment_id: Option<String>,
    pub merchant_reference: String,
    #[schema(value_type = i64)]
    pub amount: Won,
    pub currency: String,
    pub status: SessionStatus,
    pub occurred_at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GatewayError {
    /// Not reached, or no usable answer: worth retrying.
    #[error("payment gateway unreachable: {0}")]
    Unreachable(String),
    #[error("payment gateway has no such {0}")]
    NotFound(&'static str),
    /// The gateway refused the request as it stands (bad input, conflicting idempotency key,
    /// nothing left to refund…).
    #[error("payment gateway refused the request ({status}): {message}")]
    Refused { status: u16, message: String },
}

#[async_trait::async_trait]
pub trait PaymentGateway: Send + Sync + 'static {
    /// Creates a session; the same `idempotency_key` with the same request returns the same
    /// session instead of a second one.
    async fn create_session(
        &self,
        session: &NewSession,
        idempotency_key: &str,
    ) -> Result<Session, GatewayError>;
    /// The session's current state (reconciliation).
    async fn session(&self, session_id: &str) -> Result<Session, GatewayError>;
    /// Refunds `amount` of a payment; the same `refund_key` never refunds twice.
    async fn refund(
        &self,
        payment_id: &str,
        amount: Won,
        refund_key: &str,
    ) -> Result<Refund, GatewayError>;
}

/// The adapter for the sandbox's HTTP API (`PAYMENT_GATEWAY_URL`).
#[derive(Clone)]
pub struct HttpGateway {
    base: String,
    client: reqwest::Client,
}

impl HttpGateway {
    pub fn new(base: &str) -> Self {
        Self {
            base: base.trim_end_matches('/').to_string(),
            client: reqwest::Client::builder()
                .timeout(std::time::Duration::from_secs(10))
                .build()
                .expect("HTTP client"),
        }
    }

    async fn answer<T: serde::de::DeserializeOwned>(
        response: Result<reqwest::Response, reqwest::Error>,
        what: &'static str,
    ) -> Result<T, GatewayError> {
        let response = response.map_err(|e| GatewayError::Unreachable(e.to_string()))?;
        let status = response.status();
        if status.is_success() {
            return response
                .json()
                .await
                .map_err(|e| GatewayError::Unreachable(format!("unreadable answer: {e}")));
        }
        if status == reqwest::StatusCode::NOT_FOUND {
            return Err(GatewayError::NotFound(what));
        }
        let message = response
            .json::<serde_json::Value>()
            .await
            .ok()
            .and_then(|v| v["error"].as_str().map(str::to_string))
            .unwrap_or_default();
        if status.is_server_error() {
            return Err(GatewayError::Unreachable(format!("{status}: {message}")));
        }
        Err(GatewayError::Refused {
            status: status.as_u16(),
            message,
        })
    }
}

#[async_trait::async_trait]
impl PaymentGateway for HttpGateway {
    async fn create_session(
        &self,
        session: &NewSession,
        idempotency_key: &str,
    ) -> Result<Session, GatewayError> {
        let response = self
            .client
            .post(format!("{}/v1/sessions", self.base))
            .header("idempotency-key", idempotency_key)
            .json(session)
            .send()
            .await;
        Self::answer(response, "session").await
    }

    async fn session(&self, session_id: &str) -> Result<Session, GatewayError> {
        let response = self
            .client
            .get(format!("{}/v1/sessions/{session_id}", self.base))
            .send()
            .await;
        Self::answer(response, "session").await
    }

    async fn refund(
        &self,
        payment_id: &str,
        amount: Won,
        refund_key: &str,
    ) -> Result<Refund, GatewayError> {
        let response = self
            .client
            .post(format!("{}/v1/payments/{payment_id}/refunds", self.base))
            .header("idempotency-key", refund_key)
            .json(&serde_json::json!({ "amount": amount }))
            .send()
            .await;
        Self::answer(response, "payment").await
    }
}
