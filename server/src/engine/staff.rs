//! Staff sign-in and what staff sessions allow: checking a name and password (guesses slowed per
//! account and address, never a lock a stranger can set off), opening, finding and ending
//! sessions, changing passwords, API tokens for the reports, and the audit log every staff
//! action writes to.
//!
//! Session and API-token secrets are 32 random bytes (hex); only their SHA-256 is stored, so a
//! copy of the database opens no session. Times come from the engine's clock (the process's
//! own when no clock is injected), not the database's.

use super::*;
use crate::staff::hashing::{Busy, Hasher};
use crate::staff::StaffName;
use crate::store::{At, NewAuditEntry, NewStaffSession, StaffAccount, ThrottleRule, Throttled};
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
    /// Failed tries in a row (of one account from one address) that cost nothing…
    pub lock_after: u32,
    /// …after which each waits twice as long as the one before, up to this long.
    pub lock_for: Duration,
    /// Where staff may sign in from (none: anywhere).
    pub sign_in_from: Option<Vec<crate::net::IpNet>>,
}

impl Default for StaffPolicy {
    fn default() -> Self {
        Self {
            idle: Duration::from_secs(30 * 60),
            lifetime: Duration::from_secs(12 * 3600),
            lock_after: 5,
            lock_for: Duration::from_secs(15 * 60),
            sign_in_from: None,
        }
    }
}

/// Failed PINs in a row that end a locked session (its member signs in with the password).
pub const UNLOCK_TRIES: u32 = 10;

impl StaffPolicy {
    /// Tries of one account (or PIN) from one address: `lock_after` free, then growing waits.
    pub fn from_one_address(&self) -> ThrottleRule {
        ThrottleRule {
            free: self.lock_after,
            first: Duration::from_secs(1),
            max: self.lock_for,
        }
    }

    /// Tries of one account from every address it has not signed in from before: four times
    /// as many free (several people may mistype at once), then growing waits.
    pub fn from_anywhere(&self) -> ThrottleRule {
        ThrottleRule {
            free: self.lock_after.saturating_mul(4),
            ..self.from_one_address()
        }
    }

    /// A supervisor's PIN from any kiosk: a PIN has few digits, so twice the free tries of one
    /// address, then growing waits up to an hour at least.
    pub fn pin_anywhere(&self) -> ThrottleRule {
        ThrottleRule {
            free: self.lock_after.saturating_mul(2),
            first: Duration::from_secs(1),
            max: self.lock_for.max(Duration::from_secs(3600)),
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
/// a wrong password and does not tell which names exist (made once, on the hash threads).
async fn decoy_hash() -> Result<String, InventoryError> {
    static DECOY: tokio::sync::OnceCell<String> = tokio::sync::OnceCell::const_new();
    DECOY
        .get_or_try_init(|| Hasher::global().hash(new_secret()))
        .await
        .cloned()
        .map_err(|Busy| InventoryError::RateLimited(1))
}

/// Striped locks for [`Engine::staff_turn`].
pub(super) const STAFF_TURNS: usize = 256;

/// How a sign-in name is counted: trimmed, lower case, at most 64 characters (names that are
/// no account's are counted the same way, so the answers do not tell which names exist).
fn name_key(name: &str) -> String {
    match StaffName::parse(name) {
        Ok(name) => name.as_str().to_string(),
        // Not a name any account can have (a NUL byte, 10,000 characters…): counted under its
        // digest, so the key is always printable and short, and still the same for the same
        // input.
        Err(_) => format!("~{}", &secret_hash(name.trim())[..32]),
    }
}

/// How an address is counted: IPv6 by its /56, as the hold limits count it.
fn address_key(address: Option<IpAddr>) -> String {
    address.map_or_else(|| "unknown".into(), |a| crate::net::bucket(a).to_string())
}

/// The throttle keys of password tries of `name`: from this address, and (unless the member
/// signed in from here before) from anywhere. An operator's unlock clears `pw:<name>@…`.
fn password_keys(
    policy: &StaffPolicy,
    name: &str,
    address: Option<IpAddr>,
    known_address: bool,
) -> Vec<Throttled> {
    let who = name_key(name);
    let mut keys = vec![Throttled {
        key: format!("pw:{who}@{}", address_key(address)),
        rule: policy.from_one_address(),
    }];
    if !known_address {
        keys.push(Throttled {
            key: format!("pw:{who}@*"),
            rule: policy.from_anywhere(),
        });
    }
    keys
}

/// The throttle keys of a supervisor's PIN given at a kiosk: from this address, and from
/// anywhere.
pub(super) fn approval_keys(
    policy: &StaffPolicy,
    name: &str,
    address: Option<IpAddr>,
) -> Vec<Throttled> {
    let who = name_key(name);
    vec![
        Throttled {
            key: format!("pin:{who}@{}", address_key(address)),
            rule: policy.from_one_address(),
        },
        Throttled {
            key: format!("pin:{who}@*"),
            rule: policy.pin_anywhere(),
        },
    ]
}

/// The prefixes of every throttle key of `name` (`server staff unlock`).
pub fn throttle_prefixes(name: &str) -> Vec<String> {
    let who = name_key(name);
    vec![format!("pw:{who}@"), format!("pin:{who}@")]
}

impl Engine {
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

    /// One check of `name`'s secrets at a time in this process: tries sent together wait for
    /// each other (each was counted before it waits, see [`Self::throttle`]).
    pub(super) async fn staff_turn(&self, name: &str) -> tokio::sync::MutexGuard<'_, ()> {
        use std::hash::BuildHasher;
        static SEED: std::sync::LazyLock<std::collections::hash_map::RandomState> =
            std::sync::LazyLock::new(Default::default);
        let stripe = (SEED.hash_one(name_key(name)) % STAFF_TURNS as u64) as usize;
        self.staff_turns[stripe].lock().await
    }

    /// Counts a try on `keys` before its secret is checked; `Ok(Err(seconds))` while one of
    /// them must wait. A try that cannot be counted is not checked (503).
    pub(super) async fn throttle(
        &self,
        keys: &[Throttled],
        now: At,
    ) -> Result<Result<(), u64>, InventoryError> {
        Ok(self
            .store
            .throttle_attempt(keys, now)
            .await?
            .map_err(|until| seconds_until(now.0, until)))
    }

    /// A try's secret was right: its keys of one address start again, and the try is given
    /// back to the keys of every address.
    pub(super) async fn throttle_passed(&self, keys: &[Throttled]) {
        let (anywhere, here): (Vec<_>, Vec<_>) = keys
            .iter()
            .map(|k| k.key.clone())
            .partition(|k| k.ends_with("@*"));
        if let Err(e) = self.store.throttle_passed(&here, &anywhere).await {
            tracing::error!(error = %e, "could not forget a sign-in's failures");
        }
    }

    /// Whether `secret` is the one `hash` was made from, checked on the hash threads once the
    /// try is counted on `keys` (at most one check of `name` at a time in this process).
    /// Refused unchecked (`Err(seconds)` to wait) while a key waits.
    pub(super) async fn checked_secret(
        &self,
        name: &str,
        keys: &[Throttled],
        hash: Option<String>,
        secret: &str,
    ) -> Result<Result<bool, u64>, InventoryError> {
        if let Err(seconds) = self.throttle(keys, self.staff_now()).await? {
            return Ok(Err(seconds));
        }
        let _turn = self.staff_turn(name).await;
        let known = hash.is_some();
        let hash = match hash {
            Some(hash) => hash,
            None => decoy_hash().await?,
        };
        let verified = Hasher::global().verify(hash, secret.to_string()).await;
        let Ok(matches) = verified else {
            // Not checked (the hash threads were full): the try is given back, not a failure.
            let all: Vec<String> = keys.iter().map(|k| k.key.clone()).collect();
            if let Err(e) = self.store.throttle_passed(&[], &all).await {
                tracing::error!(error = %e, "could not give back an unchecked try");
            }
            return Err(InventoryError::RateLimited(1));
        };
        let matches = matches && known;
        if matches {
            self.throttle_passed(keys).await;
        }
        Ok(Ok(matches))
    }

    /// Whether `password` is `account`'s, counted and slowed like a sign-in (see
    /// [`password_keys`]); a refusal unchecked is audited and answered `SignInLocked`. An
    /// unknown name is checked against a decoy, so it takes as long.
    pub(super) async fn password_matches(
        &self,
        name: &str,
        account: Option<&StaffAccount>,
        password: &str,
        address: Option<IpAddr>,
    ) -> Result<bool, InventoryError> {
        // Known: she signed in from this address's bucket before (IPv6 privacy addresses and
        // renumbered homes stay known).
        let known = match (account, address) {
            (Some(account), Some(address)) => {
                let here = crate::net::bucket(address);
                self.store
                    .signed_in_from(account.id)
                    .await?
                    .iter()
                    .filter_map(|a| a.parse::<IpAddr>().ok())
                    .any(|a| crate::net::bucket(a) == here)
            }
            _ => false,
        };
        let keys = password_keys(&self.staff_policy, name, address, known);
        let hash = account.map(|a| a.password_hash.clone());
        match self.checked_secret(name, &keys, hash, password).await? {
            Ok(matches) => Ok(matches),
            Err(seconds) => {
                if let Some(account) = account {
                    let detail = format!("not checked: too many failures, wait {seconds} s");
                    let address = address.map(|a| a.to_string());
                    let now = self.staff_now();
                    self.audit_sign_in(
                        account,
                        address.as_deref(),
                        now,
                        "sign_in_refused",
                        &detail,
                    )
                    .await;
                }
                Err(InventoryError::SignInLocked(seconds))
            }
        }
    }

    /// Checks `name` and `password`; on success opens a session and returns its member and
    /// secret (for the cookie). Failures slow down further tries of the account from the same
    /// address (and, less, from addresses it never signed in from); they never lock it for
    /// everyone.
    pub async fn staff_sign_in(
        &self,
        name: &str,
        password: &str,
        address: Option<IpAddr>,
    ) -> Result<(StaffMember, String), InventoryError> {
        if let Some(allowed) = &self.staff_policy.sign_in_from {
            if !address.is_some_and(|a| allowed.iter().any(|r| r.contains(a))) {
                return Err(InventoryError::SignInNotAllowedHere);
            }
        }
        let account = match StaffName::parse(name) {
            Ok(name) => self.store.staff_named(name.as_str()).await?,
            Err(_) => None,
        };
        let account = account.filter(|a| a.disabled_at.is_none());
        let matches = self
            .password_matches(name, account.as_ref(), password, address)
            .await?;
        let now = self.staff_now();
        let address_text = address.map(|a| a.to_string());
        let Some(account) = account else {
            return Err(InventoryError::SignInFailed);
        };
        if !matches {
            self.audit_sign_in(
                &account,
                address_text.as_deref(),
                now,
                "sign_in_failed",
                "wrong password",
            )
            .await;
            return Err(InventoryError::SignInFailed);
        }
        let secret = new_secret();
        let hash = secret_hash(&secret);
        self.store
            .open_staff_session(&NewStaffSession {
                token_hash: &hash,
                staff_id: account.id,
                at: now,
                expires_at: now.after(self.staff_policy.lifetime),
                address: address_text.as_deref(),
            })
            .await?;
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

    /// Changes the password of the member of session `secret`, after checking the current one
    /// (counted like a sign-in); the member's other sessions end.
    pub async fn staff_change_password(
        &self,
        secret: &str,
        current: &str,
        new: &str,
        address: Option<IpAddr>,
    ) -> Result<(), InventoryError> {
        let session = self.live_session(secret).await?;
        if session.locked {
            return Err(InventoryError::StaffSessionLocked);
        }
        let actor = Actor {
            member: session.member,
            address,
        };
        if let Some(problem) = crate::staff::password_problem(new) {
            return Err(InventoryError::InvalidRequest(problem));
        }
        let account = self
            .store
            .staff_named(&actor.member.name)
            .await?
            .ok_or(InventoryError::StaffSignInRequired)?;
        if !self
            .password_matches(&account.name, Some(&account), current, address)
            .await?
        {
            self.audit(&actor, "password_change_failed", "wrong password".into())
                .await;
            return Err(InventoryError::SignInFailed);
        }
        let hash = Hasher::global()
            .hash(new.to_string())
            .await
            .map_err(|Busy| InventoryError::RateLimited(1))?;
        self.store.set_staff_password(account.id, &hash).await?;
        let this = secret_hash(secret);
        let ended = self
            .store
            .end_member_sessions(account.id, Some(&this), self.staff_now())
            .await?;
        self.audit(
            &actor,
            "password_changed",
            format!("{ended} other sessions ended"),
        )
        .await;
        Ok(())
    }

    /// Every staff account, for the operator's console.
    pub async fn staff_accounts(
        &self,
    ) -> Result<Vec<app::domain::StaffAccountView>, InventoryError> {
        Ok(self
            .store
            .staff_list()
            .await?
            .into_iter()
            .map(|a| app::domain::StaffAccountView {
                name: a.name,
                role: a.role,
                has_pin: a.pin_hash.is_some(),
                disabled: a.disabled_at.is_some(),
            })
            .collect())
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
        if app::domain::name_problem("a token's name", name, 80).is_some() {
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

/// Whole seconds from `now` until `until`, rounded up (at least 1): a client that waits this
/// long is never early.
pub(super) fn seconds_until(now: DateTime<Utc>, until: DateTime<Utc>) -> u64 {
    let ms = (until - now).num_milliseconds().max(0);
    ((ms + 999) / 1000).max(1) as u64
}
