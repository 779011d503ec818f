//! Staff sessions over HTTP. A signed-in staff member's browser carries the session's secret
//! in its own cookie (`seats_staff`: HttpOnly, SameSite=Strict, Secure behind https), separate
//! from the customer's. [`access`] puts the request's [`StaffAccess`] in every request; nothing
//! is looked up until a staff action asks — the staff server functions through
//! `app::engine::require_staff`, REST handlers through `StaffAccess::require` — so each action
//! states the roles it admits where it is written, not in a list of paths.
//!
//! Guessing is slowed per account and per address without a refusal a stranger could set off
//! (see `engine::staff::devices`): tries past the free ones from a browser the member never
//! signed in from need a proof of work, and so do tries from an address past
//! [`FAILURES_PER_MINUTE`] failed sign-ins a minute. State-changing requests,
//! signing in included, pass the cross-site check of `guard::cross_site` (Origin, JSON only).

use super::AppState;
use crate::engine::staff::SignInFrom;
use crate::engine::Engine;
use crate::gate::RateLimiter;
use app::domain::{QueueProof, StaffMember};
use app::engine::{ClientAddr, StaffAccess, StaffGate};
use app::error::InventoryError;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use std::net::IpAddr;
use std::sync::Arc;

pub const COOKIE_NAME: &str = "seats_staff";

/// The browser's device id (signed): its member's tries from it are counted on it alone.
pub const DEVICE_COOKIE: &str = "seats_device";
/// How long a browser keeps its device id: 400 days (what browsers allow at most).
const DEVICE_MAX_AGE: u64 = 400 * 86_400;

/// Failed sign-ins one address may make a minute (a burst of that many, refilled one every
/// 60/N s).
pub const FAILURES_PER_MINUTE: u32 = 10;

/// What every request's staff side shares: the count of failed sign-ins per address, and
/// whether cookies are `Secure`.
#[derive(Clone)]
pub struct StaffDoor {
    failures: Arc<RateLimiter>,
    secure: bool,
}

impl StaffDoor {
    /// `link`: Redis, where every instance counts the same addresses (none: this process).
    pub fn new(secure: bool, link: Option<Arc<crate::redis_link::RedisLink>>) -> Self {
        Self {
            failures: Arc::new(RateLimiter::keyed("sign-in", FAILURES_PER_MINUTE, link)),
            secure,
        }
    }
}

/// The staff side of one request.
struct RequestStaff {
    engine: Arc<Engine>,
    door: StaffDoor,
    secret: Option<String>,
    /// The device cookie, as sent.
    device: Option<String>,
    addr: Option<IpAddr>,
}

impl RequestStaff {
    fn cookie(&self, value: &str, max_age: u64) -> String {
        format!(
            "{COOKIE_NAME}={value}; Path=/; HttpOnly; SameSite=Strict; Max-Age={max_age}{}",
            if self.door.secure { "; Secure" } else { "" }
        )
    }
}

#[async_trait::async_trait]
impl StaffGate for RequestStaff {
    async fn staff_me(&self) -> Result<StaffMember, InventoryError> {
        match &self.secret {
            Some(secret) => self.engine.staff_session(secret).await,
            None => Err(InventoryError::StaffSignInRequired),
        }
    }

    async fn staff_sign_in(
        &self,
        name: &str,
        password: &str,
        proof: Option<QueueProof>,
    ) -> Result<(StaffMember, Vec<String>), InventoryError> {
        let key = self
            .addr
            .map_or_else(|| "unknown".into(), |a| crate::net::bucket(a).to_string());
        // Every attempt is counted before its password is looked at (so a burst of guesses
        // sent at once is counted too); a right password gives its attempt back. An address
        // past its allowance is never refused: its tries need a proof of work (unless they come
        // from a browser the member signed in from before).
        let address_busy = self.door.failures.check(&key).await.is_err();
        let from = SignInFrom {
            address: self.addr,
            device: self.device.as_deref(),
            proof,
            address_busy,
        };
        let signed = self.engine.staff_sign_in(name, password, from).await?;
        self.door.failures.refund(&key).await;
        let lifetime = self.engine.staff_policy().lifetime.as_secs();
        let device = format!(
            "{DEVICE_COOKIE}={}; Path=/; HttpOnly; SameSite=Strict; Max-Age={DEVICE_MAX_AGE}{}",
            signed.device,
            if self.door.secure { "; Secure" } else { "" }
        );
        Ok((
            signed.member,
            vec![self.cookie(&signed.secret, lifetime), device],
        ))
    }

    async fn staff_lock(&self) -> Result<(), InventoryError> {
        match &self.secret {
            Some(secret) => self.engine.staff_lock(secret, self.addr).await,
            None => Err(InventoryError::StaffSignInRequired),
        }
    }

    async fn staff_unlock(&self, pin: &str) -> Result<(), InventoryError> {
        match &self.secret {
            Some(secret) => self.engine.staff_unlock(secret, pin, self.addr).await,
            None => Err(InventoryError::StaffSignInRequired),
        }
    }

    async fn staff_change_password(&self, current: &str, new: &str) -> Result<(), InventoryError> {
        match &self.secret {
            Some(secret) => {
                self.engine
                    .staff_change_password(secret, current, new, self.addr)
                    .await
            }
            None => Err(InventoryError::StaffSignInRequired),
        }
    }

    async fn staff_sign_out(&self) -> Result<String, InventoryError> {
        if let Some(secret) = &self.secret {
            self.engine.staff_sign_out(secret, self.addr).await?;
        }
        Ok(self.cookie("", 0))
    }
}

/// The staff cookie's value, if the request has one.
fn secret_in(req: &Request) -> Option<String> {
    super::session::cookie(req, COOKIE_NAME)
        .filter(|value| !value.is_empty())
        .map(str::to_string)
}

/// Puts the request's [`StaffAccess`] in every request.
pub async fn access(State(state): State<AppState>, mut req: Request, next: Next) -> Response {
    let gate = RequestStaff {
        engine: state.engine.clone(),
        door: state.staff.clone(),
        secret: secret_in(&req),
        device: super::session::cookie(&req, DEVICE_COOKIE).map(str::to_string),
        addr: req.extensions().get::<ClientAddr>().map(|a| a.0),
    };
    req.extensions_mut().insert(StaffAccess(Arc::new(gate)));
    next.run(req).await
}
