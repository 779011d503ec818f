//! Staff sign-in and what staff sessions allow: checking a name and password (with lockouts per
//! account and per address), opening, finding and ending sessions, API tokens for the reports,
//! and the audit log every staff action writes to.
//!
//! Session and API-token secrets are 32 random bytes (hex); only their SHA-256 is stored, so a
//! copy of the database opens no session. Times come from the engine's clock (the process's
//! own when no clock is injected), not the database's.

use super::*;
use crate::staff::{verify_secret, StaffName};
use crate::store::{At, NewAuditEntry, NewStaffSession, StaffAccount};
use app::domain::{ApiToken, AuditEntry, NewApiToken, StaffMember};
use app::engine::Actor;
use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};

/// How staff sessions and sign-ins behave.
#[derive(Debug, Clone)]
pub struct StaffPolicy {
    /// A session unused this long ends.
    pub idle: Duration,
    /// A session ends this long after sign-in, however busy.
    pub lifetime: Duration,
    /// Failed sign-ins in a row that lock an account…
    pub lock_after: u32,
    /// …for this long.
    pub lock_for: Duration,
}

impl Default for StaffPolicy {
    fn default() -> Self {
        Self {
            idle: Duration::from_secs(30 * 60),
            lifetime: Duration::from_secs(12 * 3600),
            lock_after: 5,
            lock_for: Duration::from_secs(15 * 60),
        }
    }
}

/// A session is marked used at most this often (not a write per request), or at half its idle
/// timeout when that is shorter, so that use always keeps a session alive.
const TOUCH_EVERY: chrono::TimeDelta = chrono::TimeDelta::seconds(60);

/// Audit-log lines an operator sees at most.
pub const AUDIT_PAGE: i64 = 500;

/// A new random secret (64 hex characters).
pub fn new_secret() -> String {
    hex::encode(rand::random::<[u8; 32]>())
}

/// The stored form of a session or token secret.
pub fn secret_hash(secret: &str) -> String {
    hex::encode(Sha256::digest(secret.as_bytes()))
}

/// A hash to check passwords of unknown names against, so that a wrong name takes as long as
/// a wrong password and does not tell which names exist.
fn decoy_hash() -> &'static str {
    static DECOY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DECOY.get_or_init(|| crate::staff::hash_secret(&new_secret()))
}

/// Failed sign-ins with names that have no (active) account, counted like an account's so that
/// the answers do not tell which names exist: the same lock after the same number of failures.
/// In this process's memory, forgotten when it grows past [`UNKNOWN_NAMES_KEPT`] names.
#[derive(Default)]
pub(super) struct UnknownNames(Mutex<HashMap<String, Failures>>);

/// Failures in a row, and the lock they led to.
type Failures = (u32, Option<DateTime<Utc>>);

const UNKNOWN_NAMES_KEPT: usize = 10_000;

fn name_key(name: &str) -> String {
    name.trim().to_ascii_lowercase().chars().take(64).collect()
}

impl Engine {
    /// Seconds left of the lock on an unknown name, if it is locked.
    fn unknown_name_locked(&self, name: &str, now: DateTime<Utc>) -> Option<u64> {
        let names = self.unknown_names.0.lock().expect("unknown names lock");
        match names.get(&name_key(name)) {
            Some((_, Some(until))) if *until > now => Some(seconds_until(now, *until)),
            _ => None,
        }
    }

    /// Counts a failure of an unknown name; the error to answer, as for an account.
    fn unknown_name_failed(&self, name: &str, now: DateTime<Utc>) -> InventoryError {
        let mut names = self.unknown_names.0.lock().expect("unknown names lock");
        if names.len() >= UNKNOWN_NAMES_KEPT {
            names.clear();
        }
        let entry = names.entry(name_key(name)).or_default();
        entry.0 += 1;
        if entry.0 >= self.staff_policy.lock_after {
            let lock_for = chrono::Duration::from_std(self.staff_policy.lock_for)
                .unwrap_or(chrono::Duration::MAX);
            let until = now
                .checked_add_signed(lock_for)
                .unwrap_or(DateTime::<Utc>::MAX_UTC);
            *entry = (0, Some(until));
            return InventoryError::SignInLocked(seconds_until(now, until));
        }
        InventoryError::SignInFailed
    }

    pub fn with_staff_policy(mut self, policy: StaffPolicy) -> Self {
        self.staff_policy = policy;
        self
    }

    pub fn staff_policy(&self) -> &StaffPolicy {
        &self.staff_policy
    }

    pub(super) fn staff_now(&self) -> At {
        At::or_now(self.clock.now())
    }

    /// Checks `name` and `password`; on success opens a session and returns its member and
    /// secret (for the cookie). A locked account is refused before its password is looked at;
    /// the failure that reaches the limit locks it and says so.
    pub async fn staff_sign_in(
        &self,
        name: &str,
        password: &str,
        address: Option<IpAddr>,
    ) -> Result<(StaffMember, String), InventoryError> {
        let now = self.staff_now();
        let account = match StaffName::parse(name) {
            Ok(name) => self.store.staff_named(name.as_str()).await?,
            Err(_) => None,
        };
        let account = account.filter(|a| a.disabled_at.is_none());
        if account.is_none() {
            if let Some(seconds) = self.unknown_name_locked(name, now.0) {
                return Err(InventoryError::SignInLocked(seconds));
            }
        }
        if let Some(until) = account.as_ref().and_then(|a| a.locked_until) {
            if until > now.0 {
                return Err(InventoryError::SignInLocked(seconds_until(now.0, until)));
            }
        }
        let hash = account
            .as_ref()
            .map_or_else(|| decoy_hash().to_string(), |a| a.password_hash.clone());
        let password = password.to_string();
        let matches = tokio::task::spawn_blocking(move || verify_secret(&hash, &password))
            .await
            .map_err(|_| InventoryError::Unavailable)?;
        let address_text = address.map(|a| a.to_string());
        let Some(account) = account else {
            return Err(self.unknown_name_failed(name, now.0));
        };
        if !matches {
            let policy = &self.staff_policy;
            let locked = self
                .store
                .sign_in_failed(
                    account.id,
                    policy.lock_after.min(i32::MAX as u32) as i32,
                    now.after(policy.lock_for),
                )
                .await?;
            let detail = match locked {
                Some(until) => format!("wrong password; account locked until {until}"),
                None => "wrong password".to_string(),
            };
            self.audit_sign_in(
                &account,
                address_text.as_deref(),
                now,
                "sign_in_failed",
                &detail,
            )
            .await;
            return Err(match locked {
                Some(until) => InventoryError::SignInLocked(seconds_until(now.0, until)),
                None => InventoryError::SignInFailed,
            });
        }
        let secret = new_secret();
        let hash = secret_hash(&secret);
        let opened = self
            .store
            .open_staff_session(&NewStaffSession {
                token_hash: &hash,
                staff_id: account.id,
                at: now,
                expires_at: now.after(self.staff_policy.lifetime),
                address: address_text.as_deref(),
            })
            .await?;
        if !opened {
            // Guesses sent at the same time locked the account while this one was checked.
            let until = self.store.staff_named(&account.name).await?;
            let until = until.and_then(|a| a.locked_until).unwrap_or(now.0);
            return Err(InventoryError::SignInLocked(seconds_until(now.0, until)));
        }
        self.audit_sign_in(&account, address_text.as_deref(), now, "sign_in", "")
            .await;
        let member = StaffMember {
            id: account.id,
            name: account.name.clone(),
            role: account.role,
        };
        Ok((member, secret))
    }

    /// The member of the live session whose secret is `secret`; `StaffSessionLocked` while it
    /// is locked.
    pub async fn staff_session(&self, secret: &str) -> Result<StaffMember, InventoryError> {
        let session = self.live_session(secret).await?;
        if session.locked {
            return Err(InventoryError::StaffSessionLocked);
        }
        Ok(session.member)
    }

    /// The live session whose secret is `secret`, locked or not, marked used.
    pub(super) async fn live_session(
        &self,
        secret: &str,
    ) -> Result<crate::store::LiveSession, InventoryError> {
        let now = self.staff_now();
        let idle =
            chrono::Duration::from_std(self.staff_policy.idle).unwrap_or(chrono::Duration::MAX);
        let idle_since = now
            .0
            .checked_sub_signed(idle)
            .unwrap_or(DateTime::<Utc>::MIN_UTC);
        let hash = secret_hash(secret);
        let session = self
            .store
            .live_staff_session(&hash, now, At(idle_since))
            .await?
            .ok_or(InventoryError::StaffSignInRequired)?;
        if now.0 - session.last_seen_at >= TOUCH_EVERY.min(idle / 2) {
            self.store.touch_staff_session(&hash, now).await?;
        }
        Ok(session)
    }

    /// Ends the session whose secret is `secret`, if it is live.
    pub async fn staff_sign_out(
        &self,
        secret: &str,
        address: Option<IpAddr>,
    ) -> Result<(), InventoryError> {
        // A locked session can be signed out of (the next member signs in at the kiosk).
        let member = match self.live_session(secret).await {
            Ok(session) => session.member,
            Err(InventoryError::StaffSignInRequired) => return Ok(()),
            Err(e) => return Err(e),
        };
        let now = self.staff_now();
        if self
            .store
            .end_staff_session(&secret_hash(secret), now)
            .await?
        {
            // Seats a clerk picked and did not sell go back on sale.
            self.release_clerk_holds(member.id).await?;
            let actor = Actor { member, address };
            self.audit(&actor, "sign_out", String::new()).await;
        }
        Ok(())
    }

    /// Adds a line to the audit log for `actor`'s action. A failure to write it is logged, not
    /// returned: the action itself has happened.
    pub async fn audit(&self, actor: &Actor, action: &str, detail: String) {
        let address = actor.address.map(|a| a.to_string());
        self.record(NewAuditEntry {
            at: self.staff_now(),
            staff_id: Some(actor.member.id),
            staff_name: &actor.member.name,
            action,
            detail: &detail,
            address: address.as_deref(),
        })
        .await;
    }

    async fn audit_sign_in(
        &self,
        account: &StaffAccount,
        address: Option<&str>,
        at: At,
        action: &str,
        detail: &str,
    ) {
        self.record(NewAuditEntry {
            at,
            staff_id: Some(account.id),
            staff_name: &account.name,
            action,
            detail,
            address,
        })
        .await;
    }

    async fn record(&self, entry: NewAuditEntry<'_>) {
        if let Err(e) = self.store.record_staff_action(&entry).await {
            tracing::error!(error = %e, action = entry.action, "could not write the audit log");
        }
    }

    pub(super) async fn audit_lines(&self) -> Result<Vec<AuditEntry>, InventoryError> {
        Ok(self.store.staff_audit(AUDIT_PAGE).await?)
    }

    pub(super) async fn list_api_tokens(&self) -> Result<Vec<ApiToken>, InventoryError> {
        Ok(self.store.api_tokens().await?)
    }

    pub(super) async fn new_api_token(
        &self,
        name: &str,
        by: &Actor,
    ) -> Result<NewApiToken, InventoryError> {
        let name = name.trim();
        if name.is_empty() || name.chars().count() > 80 || name.chars().any(char::is_control) {
            return Err(InventoryError::InvalidRequest(
                "a token's name is 1 to 80 characters (what or who it is for)".into(),
            ));
        }
        let secret = new_secret();
        let now = self.staff_now();
        let id = self
            .store
            .add_api_token(name, &secret_hash(&secret), by.member.id, now)
            .await?;
        self.audit(by, "api_token_created", format!("token {id} ({name})"))
            .await;
        let token = ApiToken {
            id,
            name: name.to_string(),
            created_by: by.member.name.clone(),
            created_at: now.0,
            last_used_at: None,
            revoked_at: None,
        };
        Ok(NewApiToken { token, secret })
    }

    pub(super) async fn end_api_token(&self, id: i64, by: &Actor) -> Result<(), InventoryError> {
        if !self.store.revoke_api_token(id, self.staff_now()).await? {
            return Err(InventoryError::ApiTokenNotFound);
        }
        self.audit(by, "api_token_revoked", format!("token {id}"))
            .await;
        Ok(())
    }

    /// Whether `secret` is a live API token (and marks it used).
    pub async fn api_token_admits(&self, secret: &str) -> Result<bool, InventoryError> {
        let now = self.staff_now();
        Ok(self
            .store
            .use_api_token(&secret_hash(secret), now)
            .await?
            .is_some())
    }
}

pub(super) fn seconds_until(now: DateTime<Utc>, until: DateTime<Utc>) -> u64 {
    (until - now).num_seconds().max(1) as u64
}
