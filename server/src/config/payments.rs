//! The payment gateway, its callbacks' secret, and reconciliation.

use super::{Env, Secret};
use anyhow::bail;
use std::time::Duration;

#[derive(Clone, Debug)]
pub struct PaymentsConfig {
    /// The payment gateway's API (the sandbox by default).
    pub gateway_url: String,
    /// Shared with the gateway; signs its callbacks.
    pub webhook_secret: Secret,
    /// Payments still PENDING this long after checkout are looked up at the gateway.
    pub reconcile_after: Duration,
    /// How often reconciliation runs.
    pub reconcile_interval: Duration,
}

impl PaymentsConfig {
    pub(super) fn from_env(env: &Env, production: bool) -> anyhow::Result<Self> {
        let gateway = env.url("PAYMENT_GATEWAY_URL")?;
        let gateway_configured = gateway.is_some();
        Ok(Self {
            gateway_url: gateway.unwrap_or_else(|| "http://127.0.0.1:3100".into()),
            webhook_secret: match env.get("PAYMENT_WEBHOOK_SECRET").filter(|s| !s.is_empty()) {
                Some(secret) if secret.len() >= 16 => Secret::new(secret.into_bytes()),
                Some(_) => bail!("PAYMENT_WEBHOOK_SECRET must be at least 16 characters"),
                // PostgreSQL means production, and a configured gateway may be a real one: a
                // known development secret would let anyone forge payment callbacks.
                None if production => bail!(
                    "PAYMENT_WEBHOOK_SECRET is required with PostgreSQL (the development secret is only for the embedded mode)"
                ),
                None if gateway_configured => bail!(
                    "PAYMENT_WEBHOOK_SECRET is required when PAYMENT_GATEWAY_URL is set (the development secret is only for the built-in sandbox)"
                ),
                None => Secret::new(
                    crate::payments::signature::DEVELOPMENT_SECRET
                        .as_bytes()
                        .to_vec(),
                ),
            },
            reconcile_after: env.seconds("RECONCILE_AFTER_SECONDS", 900)?,
            reconcile_interval: env.seconds("RECONCILE_INTERVAL_SECONDS", 60)?,
        })
    }
}
