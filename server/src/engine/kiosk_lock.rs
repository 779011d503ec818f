//! A staff session locked at a kiosk left alone, and the member's PIN (4 to 8 digits) that
//! unlocks it without the password. While locked, the session does nothing but unlock or sign
//! out. A wrong PIN counts as a failed sign-in of the account: the failure that locks the
//! account also ends the session, so a PIN cannot be guessed past the password's lockout.

use super::staff::{seconds_until, secret_hash};
use super::*;
use crate::staff::{hash_secret, verify_secret};
use app::engine::Actor;
use std::net::IpAddr;

/// Whether `pin` is a kiosk PIN: 4 to 8 digits.
pub fn valid_pin(pin: &str) -> bool {
    (4..=8).contains(&pin.len()) && pin.bytes().all(|b| b.is_ascii_digit())
}

/// Whether `pin` is a PIN and the one `hash` was made from (argon2, off the async threads).
pub(super) async fn pin_matches(hash: String, pin: &str) -> Result<bool, InventoryError> {
    let pin = pin.to_string();
    tokio::task::spawn_blocking(move || valid_pin(&pin) && verify_secret(&hash, &pin))
        .await
        .map_err(|_| InventoryError::Unavailable)
}

impl Engine {
    /// Counts a wrong PIN as a failed sign-in of account `staff`: until when it is locked, if
    /// this failure locked it.
    pub(super) async fn pin_failed(
        &self,
        staff: i64,
        now: crate::store::At,
    ) -> Result<Option<chrono::DateTime<chrono::Utc>>, InventoryError> {
        let policy = self.staff_policy();
        Ok(self
            .store
            .sign_in_failed(
                staff,
                policy.lock_after.min(i32::MAX as u32) as i32,
                now.after(policy.lock_for),
            )
            .await?)
    }

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
            .lock_staff_session(&secret_hash(secret), self.staff_now())
            .await?
        {
            let actor = Actor {
                member: session.member,
                address,
            };
            self.audit(&actor, "session_locked", String::new()).await;
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
            return Err(InventoryError::InvalidRequest(
                "you have no PIN: sign out and sign in with your password".into(),
            ));
        };
        let matches = pin_matches(hash, pin).await?;
        let now = self.staff_now();
        if matches
            && self
                .store
                .unlock_staff_session(&secret_hash(secret), actor.member.id, now)
                .await?
        {
            self.audit(&actor, "session_unlocked", String::new()).await;
            return Ok(());
        }
        let locked = match matches {
            // The right PIN, but guesses locked the account meanwhile.
            true => self
                .store
                .staff_named(&actor.member.name)
                .await?
                .and_then(|a| a.locked_until),
            false => self.pin_failed(actor.member.id, now).await?,
        };
        match locked {
            Some(until) => {
                self.store
                    .end_staff_session(&secret_hash(secret), now)
                    .await?;
                let detail = format!("wrong PIN; account locked until {until}, session ended");
                self.audit(&actor, "unlock_failed", detail).await;
                Err(InventoryError::SignInLocked(seconds_until(now.0, until)))
            }
            None => {
                self.audit(&actor, "unlock_failed", "wrong PIN".into())
                    .await;
                Err(InventoryError::WrongPin)
            }
        }
    }

    /// Sets the signed-in member's PIN, after checking their password.
    pub async fn staff_set_pin(
        &self,
        actor: &Actor,
        password: &str,
        pin: &str,
    ) -> Result<(), InventoryError> {
        if !valid_pin(pin) {
            return Err(InventoryError::InvalidRequest(
                "a PIN is 4 to 8 digits".into(),
            ));
        }
        let account = self
            .store
            .staff_named(&actor.member.name)
            .await?
            .ok_or(InventoryError::StaffSignInRequired)?;
        let (hash, password, pin) = (account.password_hash, password.to_string(), pin.to_string());
        let pin_hash = tokio::task::spawn_blocking(move || {
            verify_secret(&hash, &password).then(|| hash_secret(&pin))
        })
        .await
        .map_err(|_| InventoryError::Unavailable)?
        .ok_or(InventoryError::SignInFailed)?;
        self.store
            .set_staff_pin(account.id, Some(&pin_hash))
            .await?;
        self.audit(actor, "pin_set", String::new()).await;
        Ok(())
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
