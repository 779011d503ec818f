//! Staff: the first operator's password, sessions and sign-in limits.

use super::{Env, Secret};
use anyhow::bail;
use std::time::Duration;

#[derive(Clone, Debug)]
pub struct StaffConfig {
    /// The password of the first staff account, `operator`, made at start while there is no
    /// staff account. Unset: a random one kept in the data folder in the embedded mode; none with
    /// PostgreSQL (add accounts with `server staff add`).
    pub operator_password: Option<Secret>,
    /// Staff sessions (idle timeout, lifetime) and sign-in limits.
    pub policy: StaffPolicy,
}

impl StaffConfig {
    pub(super) fn from_env(env: &Env) -> anyhow::Result<Self> {
        Ok(Self {
            operator_password: match env.get("OPERATOR_PASSWORD").filter(|s| !s.is_empty()) {
                None => None,
                Some(p) => match crate::staff::password_problem(&p) {
                    None => Some(Secret::new(p.into_bytes())),
                    Some(problem) => bail!("OPERATOR_PASSWORD: {problem}"),
                },
            },
            policy: StaffPolicy {
                idle: env.seconds("STAFF_IDLE_SECONDS", 1800)?,
                lifetime: env.seconds("STAFF_SESSION_SECONDS", 12 * 3600)?,
                lock_after: match env.count("STAFF_LOCK_AFTER", 5)? {
                    0 => bail!("STAFF_LOCK_AFTER must be at least 1"),
                    n => n,
                },
                lock_for: env.seconds("STAFF_LOCK_SECONDS", 900)?,
                sign_in_from: env.ranges("STAFF_SIGN_IN_FROM")?,
            },
        })
    }
}

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
