//! Staff: the first operator's password, sessions and sign-in limits.

use super::{Env, Secret};
use anyhow::bail;

#[derive(Clone, Debug)]
pub struct StaffConfig {
    /// The password of the first staff account, `operator`, made at start while there is no
    /// staff account. Unset: a random one kept in the data folder in the embedded mode; none with
    /// PostgreSQL (add accounts with `server staff add`).
    pub operator_password: Option<Secret>,
    /// Staff sessions (idle timeout, lifetime) and sign-in limits.
    pub policy: crate::engine::StaffPolicy,
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
            policy: crate::engine::StaffPolicy {
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
