//! Signing in with a name and password, finding a session again, changing a password, signing
//! out.

use super::*;

/// Where a sign-in comes from, besides its name and password.
#[derive(Debug, Default)]
pub struct SignInFrom<'a> {
    pub address: Option<IpAddr>,
    /// The browser's device cookie, as it was sent.
    pub device: Option<&'a str>,
    /// The proof of work the page solved, when one was asked.
    pub proof: Option<app::domain::QueueProof>,
    /// The address failed too many sign-ins lately: a try from a browser the member never
    /// signed in from needs a proof of work at least (never a refusal).
    pub address_busy: bool,
}

/// A sign-in that worked.
#[derive(Debug)]
pub struct SignedIn {
    pub member: StaffMember,
    /// The session's secret (its cookie).
    pub secret: String,
    /// The browser's device cookie's value (the same device, or a new one).
    pub device: String,
}

impl Engine {
    /// Checks `name` and `password`; on success opens a session. Tries from a browser the
    /// member signed in from before are counted on that browser alone (its own failures slow
    /// it); any other try is counted per account and address and per account, and past their
    /// free tries needs a proof of work that grows with the failures — never a refusal a
    /// stranger could set off (`devices`).
    pub async fn staff_sign_in(
        &self,
        name: &str,
        password: &str,
        from: SignInFrom<'_>,
    ) -> Result<SignedIn, InventoryError> {
        let address = from.address;
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
        let device = from.device.and_then(|cookie| self.device_id(cookie));
        let known = match (&account, device) {
            (Some(account), Some(device)) => self.store.signed_in_on(account.id, device).await?,
            _ => false,
        };
        let hash = account.as_ref().map(|a| a.password_hash.clone());
        let checked = match (known, device) {
            (true, Some(device)) => {
                let keys = device_keys(&self.staff_policy, name, device);
                self.checked_secret(name, &keys, hash, password).await?
            }
            _ => {
                let keys = stranger_keys(name, address);
                let free = [
                    self.staff_policy.lock_after,
                    self.staff_policy.lock_after.saturating_mul(4),
                    super::ADDRESS_FREE,
                ];
                let mut counted = Vec::with_capacity(keys.len());
                for key in &keys {
                    let failures = self.store.throttle_failures(&key.key).await?;
                    counted.push((key.clone(), failures));
                }
                let mut bits = devices::sign_in_bits(&counted, &free);
                if from.address_busy {
                    bits = bits.max(devices::BUSY_ADDRESS_BITS);
                }
                if bits > 0 {
                    let proven = match &from.proof {
                        Some(proof) => self.proof_holds(name, proof, bits).await?,
                        None => false,
                    };
                    if !proven {
                        HoldMetrics::count(&self.metrics.sign_ins_challenged);
                        return Err(InventoryError::ProofRequired {
                            challenge: self.sign_in_challenge(name),
                            bits,
                        });
                    }
                }
                self.checked_secret(name, &keys, hash, password).await?
            }
        };
        let matches = match checked {
            Ok(matches) => matches,
            Err(seconds) => {
                HoldMetrics::count(&self.metrics.sign_ins_refused);
                return Err(InventoryError::SignInLocked(seconds));
            }
        };
        let now = self.now_at();
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
        // The browser keeps its device; one without (or with a cookie not ours) gets one.
        let device = match (device, from.device) {
            (Some(_), Some(cookie)) => cookie.to_string(),
            _ => self.new_device(),
        };
        let secret = new_secret();
        let hash = secret_hash(&secret);
        self.store
            .open_staff_session(&NewStaffSession {
                token_hash: &hash,
                staff_id: account.id,
                at: now,
                expires_at: now.after(self.staff_policy.lifetime),
                address: address_text.as_deref(),
                device: self.device_id(&device),
            })
            .await?;
        self.audit_sign_in(&account, address_text.as_deref(), now, "sign_in", ().into())
            .await;
        let member = StaffMember {
            id: account.id,
            name: account.name.clone(),
            role: account.role,
        };
        Ok(SignedIn {
            member,
            secret,
            device,
        })
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
        let now = self.now_at();
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
            .end_member_sessions(account.id, Some(&this), self.now_at())
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
        let now = self.now_at();
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
