//! A staff session locked at a kiosk left alone, and the member's PIN (4 to 8 digits) that
//! unlocks it without the password. While locked, the session does nothing but unlock or sign
//! out. Wrong PINs are counted per session, apart from password sign-ins (a stranger's wrong
//! passwords never touch a member's kiosk): after a few, each try waits longer, and after
//! [`UNLOCK_TRIES`] the session ends (its member signs in with the password again).

use super::*;

use crate::store::Throttled;
use app::engine::Actor;
use std::net::IpAddr;

/// Whether `pin` is a kiosk PIN: 4 to 8 digits.
pub fn valid_pin(pin: &str) -> bool {
    (4..=8).contains(&pin.len()) && pin.bytes().all(|b| b.is_ascii_digit())
}

impl Engine {
    /// Locks the session whose secret is `secret` (already locked: nothing changes); seats its
    /// member picked at the counter and did not sell go back on sale.
    pub async fn staff_lock(
        &self,
        secret: &str,
        address: Option<IpAddr>,
    ) -> Result<(), InventoryError> {
        let session = self.live_session(secret).await?;
        self.release_clerk_holds(session.member.id).await?;
        if self
            .store
            .lock_staff_session(&secret_hash(secret), self.now_at())
            .await?
        {
            let actor = Actor {
                member: session.member,
                address,
            };
            self.audit(&actor, "session_locked", ()).await;
        }
        Ok(())
    }

    /// Unlocks the session with the member's PIN.
    pub async fn staff_unlock(
        &self,
        secret: &str,
        pin: &str,
        address: Option<IpAddr>,
    ) -> Result<(), InventoryError> {
        let session = self.live_session(secret).await?;
        let actor = Actor {
            member: session.member.clone(),
            address,
        };
        if !session.locked {
            return Ok(());
        }
        let Some(hash) = session.pin_hash.clone() else {
            return Err(InventoryError::invalid("invalid.no_pin", &[]));
        };
        let token = secret_hash(secret);
        let key = Throttled {
            key: format!("unlock:{token}"),
            rule: self.staff_policy().from_one_address(),
        };
        let checked = match valid_pin(pin) {
            true => {
                self.checked_secret(
                    &actor.member.name,
                    std::slice::from_ref(&key),
                    Some(hash),
                    pin,
                )
                .await?
            }
            // Not a PIN at all: counted like a wrong one, never checked.
            false => self
                .throttle(std::slice::from_ref(&key), self.now_at())
                .await?
                .map(|()| false),
        };
        let now = self.now_at();
        match checked {
            Ok(true) => {
                // The session may have ended meanwhile (signed out, elsewhere): nothing unlocked.
                if !self.store.unlock_staff_session(&token, now).await? {
                    return Err(InventoryError::StaffSignInRequired);
                }
                self.audit(&actor, "session_unlocked", ()).await;
                Ok(())
            }
            Ok(false) => {
                let failures = self.store.throttle_failures(&key.key).await?;
                if failures >= UNLOCK_TRIES {
                    self.store.end_staff_session(&token, now).await?;
                    self.release_clerk_holds(actor.member.id).await?;
                    let detail = Said::new(
                        format!("wrong PIN {failures} times: session ended"),
                        vec![AuditFact::WrongPinSessionEnded(i64::from(failures))],
                    );
                    self.audit(&actor, "unlock_failed", detail).await;
                    return Err(InventoryError::StaffSignInRequired);
                }
                let said = Said::new("wrong PIN", vec![AuditFact::WrongPin]);
                self.audit(&actor, "unlock_failed", said).await;
                Err(InventoryError::WrongPin)
            }
            Err(seconds) => {
                let detail = Said::new(
                    format!("not checked: too many wrong PINs, wait {seconds} s"),
                    vec![AuditFact::TooManyFailures(seconds)],
                );
                self.audit(&actor, "unlock_refused", detail).await;
                Err(InventoryError::SignInLocked(seconds))
            }
        }
    }

    /// Whether a supervisor's PIN given at a kiosk by `clerk` approves: counted per supervisor
    /// and clerk before it is checked. Every refusal is the same `ApprovalRefused` — no such
    /// supervisor, no PIN, a wrong one, or too many lately — so the answer says nothing of the
    /// PIN.
    pub(in crate::engine) async fn pin_approves(
        &self,
        supervisor: &str,
        hash: Option<String>,
        pin: &str,
        clerk: i64,
    ) -> Result<(), InventoryError> {
        let keys = super::staff::approval_keys(self.staff_policy(), supervisor, clerk);
        let hash = hash.filter(|_| valid_pin(pin));
        match self.checked_secret(supervisor, &keys, hash, pin).await? {
            Ok(true) => Ok(()),
            Ok(false) | Err(_) => Err(InventoryError::ApprovalRefused),
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_pin_is_four_to_eight_digits() {
        for pin in ["1234", "12345678", "0000"] {
            assert!(super::valid_pin(pin), "{pin}");
        }
        for pin in ["123", "123456789", "12a4", " 1234", "１２３４", ""] {
            assert!(!super::valid_pin(pin), "{pin:?}");
        }
    }
}
