//! Staff: how sessions and sign-ins behave, and what every check of a staff secret shares —
//! guesses counted and slowed per account and address (never a lock a stranger can set off),
//! one check per name at a time, the hashing threads. Signing in and out is in `sign_in`, the
//! kiosk lock and supervisor PINs in `kiosk_lock`, accounts, API tokens and the audit log in
//! `accounts`.
//!
//! Session and API-token secrets are 32 random bytes (hex); only their SHA-256 is stored, so a
//! copy of the database opens no session. Times come from the engine's clock (the process's
//! own when no clock is injected), not the database's.

mod accounts;
mod devices;
mod kiosk_lock;
mod sign_in;

pub use accounts::Said;
pub use kiosk_lock::valid_pin;
pub use sign_in::{SignInFrom, SignedIn};

use super::*;
pub use crate::config::StaffPolicy;
use crate::staff::hashing::{Busy, Hasher};
pub use crate::staff::secret_hash;
use crate::staff::{name_key, StaffName};
use crate::store::{At, NewAuditEntry, NewStaffSession, StaffAccount, ThrottleRule, Throttled};
use app::domain::{ApiToken, AuditEntry, AuditFact, NewApiToken, StaffMember};
use app::engine::Actor;
use chrono::{DateTime, Utc};
use sha2::Sha256;

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

    /// A supervisor's PIN asked by one clerk: `lock_after` free tries, then growing waits up to
    /// an hour at least (a PIN has few digits).
    pub fn pin_per_clerk(&self) -> ThrottleRule {
        ThrottleRule {
            free: self.lock_after,
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

/// How an address is counted: IPv6 by its /56, as the hold limits count it.
fn address_key(address: Option<IpAddr>) -> String {
    address.map_or_else(|| "unknown".into(), |a| crate::net::bucket(a).to_string())
}

/// A rule that counts and never waits: tries counted on it are never refused (past the free
/// ones they need a proof of work instead; see `devices`).
const COUNTED_ONLY: ThrottleRule = ThrottleRule {
    free: u32::MAX,
    first: Duration::ZERO,
    max: Duration::ZERO,
};

/// The throttle key of a member's tries from a browser she signed in from before: that browser
/// alone, slowed by its own failures.
fn device_keys(policy: &StaffPolicy, name: &str, device: &str) -> Vec<Throttled> {
    vec![Throttled {
        key: format!("pw:{}@dev:{device}", name_key(name)),
        rule: policy.from_one_address(),
    }]
}

/// Failures from one address, whatever the names, before its tries from browsers no member
/// signed in on need a proof of work (made-up names cost the server a hash check each).
pub(super) const ADDRESS_FREE: u32 = 10;

/// The throttle keys of any other try of `name`: from this address, from anywhere, and from
/// this address whatever the name. Counted only, never refusing (the proof of work asked grows
/// with them). An operator's unlock clears `pw:<name>@…`.
fn stranger_keys(name: &str, address: Option<IpAddr>) -> Vec<Throttled> {
    let who = name_key(name);
    let from = address_key(address);
    vec![
        Throttled {
            key: format!("pw:{who}@{from}"),
            rule: COUNTED_ONLY,
        },
        Throttled {
            key: format!("pw:{who}@*"),
            rule: COUNTED_ONLY,
        },
        Throttled {
            key: format!("pw:*@{from}"),
            rule: COUNTED_ONLY,
        },
    ]
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

/// The throttle key of a supervisor's PIN given at a kiosk: per supervisor and per clerk asking.
/// Only a signed-in clerk can ask, so nobody else's wrong PINs — a clerk's session used from
/// sixty addresses, a kiosk next door — ever slow another clerk's approvals, and two approvals
/// naming one supervisor at once do not count against each other.
pub(super) fn approval_keys(policy: &StaffPolicy, name: &str, clerk: i64) -> Vec<Throttled> {
    vec![Throttled {
        key: format!("pin:{}@clerk:{clerk}", name_key(name)),
        rule: policy.pin_per_clerk(),
    }]
}

impl Engine {
    pub fn with_staff_policy(mut self, policy: StaffPolicy) -> Self {
        self.staff_policy = policy;
        self
    }

    pub fn staff_policy(&self) -> &StaffPolicy {
        &self.staff_policy
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
        if let Err(seconds) = self.throttle(keys, self.now_at()).await? {
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
    /// [`password_keys`]); a refusal unchecked is counted (not audited) and answered
    /// `SignInLocked`. An
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
                // Counted, not written one line each: strangers would bury the real lines.
                HoldMetrics::count(&self.metrics.sign_ins_refused);
                Err(InventoryError::SignInLocked(seconds))
            }
        }
    }
}

/// Whole seconds from `now` until `until`, rounded up (at least 1): a client that waits this
/// long is never early.
pub(super) fn seconds_until(now: DateTime<Utc>, until: DateTime<Utc>) -> u64 {
    let ms = (until - now).num_milliseconds().max(0);
    ((ms + 999) / 1000).max(1) as u64
}
