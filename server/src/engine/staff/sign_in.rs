//! Signing in with a name and password, finding a session again, changing a password, signing
//! out.

use super::*;

impl Engine {
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
                Said::new("wrong password", vec![AuditFact::WrongPassword]),
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
        self.audit_sign_in(&account, address_text.as_deref(), now, "sign_in", ().into())
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
        if crate::staff::password_problem(new).is_some() {
            let length = new.chars().count().to_string();
            return Err(InventoryError::invalid(
                "invalid.password_length",
                &[("length", length)],
            ));
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
            let said = Said::new("wrong password", vec![AuditFact::WrongPassword]);
            self.audit(&actor, "password_change_failed", said).await;
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
            Said::new(
                format!("{ended} other sessions ended"),
                vec![AuditFact::SessionsEnded(ended as i64)],
            ),
        )
        .await;
        Ok(())
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
            self.audit(&actor, "sign_out", ()).await;
        }
        Ok(())
    }

    pub(super) async fn audit_sign_in(
        &self,
        account: &StaffAccount,
        address: Option<&str>,
        at: At,
        action: &str,
        said: Said,
    ) {
        self.record(NewAuditEntry {
            at,
            staff_id: Some(account.id),
            staff_name: &account.name,
            action,
            detail: &said.text,
            facts: crate::store::facts_json(&said.facts),
            address,
        })
        .await;
    }
}
