//! Staff accounts and their PINs, API tokens, and the audit log every staff action writes to.

use super::*;
use app::engine::StaffAccounts;

#[async_trait::async_trait]
impl StaffAccounts for Engine {
    /// Every staff account, for the operator's console.
    async fn staff_accounts(&self) -> Result<Vec<app::domain::StaffAccountView>, InventoryError> {
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

    async fn approvers(&self) -> Result<Vec<String>, InventoryError> {
        let mut names: Vec<String> = self
            .store
            .staff_list()
            .await?
            .into_iter()
            .filter(|a| {
                a.pin_hash.is_some()
                    && a.disabled_at.is_none()
                    && a.role.may(&app::domain::APPROVER_ROLES)
            })
            .map(|a| a.name)
            .collect();
        names.sort();
        Ok(names)
    }

    /// Sets the signed-in member's PIN, after checking their password (counted and slowed like
    /// a sign-in from the member's address).
    async fn staff_set_pin(
        &self,
        actor: &Actor,
        password: &str,
        pin: &str,
    ) -> Result<(), InventoryError> {
        if !valid_pin(pin) {
            return Err(InventoryError::invalid("invalid.pin_digits", &[]));
        }
        let account = self
            .store
            .staff_named(&actor.member.name)
            .await?
            .ok_or(InventoryError::StaffSignInRequired)?;
        if !self
            .password_matches(&account.name, Some(&account), password, actor.address)
            .await?
        {
            let said = Said::new("wrong password", vec![AuditFact::WrongPassword]);
            self.audit(actor, "pin_set_failed", said).await;
            return Err(InventoryError::SignInFailed);
        }
        let pin_hash = Hasher::global()
            .hash(pin.to_string())
            .await
            .map_err(|Busy| InventoryError::RateLimited(1))?;
        self.store
            .set_staff_pin(account.id, Some(&pin_hash))
            .await?;
        self.audit(actor, "pin_set", ()).await;
        Ok(())
    }

    /// An operator sets (or removes) `member`'s PIN, e.g. for a supervisor who forgot hers;
    /// the member's failed PIN tries are forgotten.
    async fn staff_reset_pin(
        &self,
        member: &str,
        pin: Option<&str>,
        by: &Actor,
    ) -> Result<(), InventoryError> {
        if pin.is_some_and(|p| !valid_pin(p)) {
            return Err(InventoryError::invalid("invalid.pin_digits", &[]));
        }
        let unknown = || InventoryError::invalid("invalid.no_member", &[("name", member.into())]);
        let name = crate::staff::StaffName::parse(member).map_err(|_| unknown())?;
        let account = self
            .store
            .staff_named(name.as_str())
            .await?
            .ok_or_else(unknown)?;
        let pin_hash = match pin {
            Some(pin) => Some(
                Hasher::global()
                    .hash(pin.to_string())
                    .await
                    .map_err(|Busy| InventoryError::RateLimited(1))?,
            ),
            None => None,
        };
        self.store
            .set_staff_pin(account.id, pin_hash.as_deref())
            .await?;
        let prefix = format!("pin:{}@", account.name);
        self.store.throttle_clear(&[prefix]).await?;
        let what = if pin.is_some() { "set" } else { "removed" };
        let mut facts = vec![AuditFact::Member(account.name.clone())];
        if pin.is_none() {
            facts.push(AuditFact::PinRemoved);
        }
        self.audit(
            by,
            "pin_reset",
            Said::new(format!("{what} the PIN of {}", account.name), facts),
        )
        .await;
        Ok(())
    }

    /// An operator hires: the name as sign-in takes it, a password of the length staff
    /// passwords have.
    async fn add_member(
        &self,
        name: &str,
        role: app::domain::StaffRole,
        password: &str,
        by: &Actor,
    ) -> Result<(), InventoryError> {
        let name = StaffName::parse(name)
            .map_err(|_| InventoryError::invalid("invalid.staff_name", &[]))?;
        if crate::staff::password_problem(password).is_some() {
            let length = password.chars().count().to_string();
            return Err(InventoryError::invalid(
                "invalid.password_length",
                &[("length", length)],
            ));
        }
        let taken =
            || InventoryError::invalid("invalid.member_taken", &[("name", name.to_string())]);
        if self.store.staff_named(name.as_str()).await?.is_some() {
            return Err(taken());
        }
        let password_hash = Hasher::global()
            .hash(password.to_string())
            .await
            .map_err(|Busy| InventoryError::RateLimited(1))?;
        let new = crate::store::NewStaff {
            name: name.clone(),
            role,
            password_hash,
        };
        self.store.add_staff(&new).await?.ok_or_else(taken)?;
        let facts = vec![AuditFact::Member(name.to_string()), AuditFact::Role(role)];
        let said = Said::new(format!("added {name} with role {role}"), facts);
        self.audit(by, "staff_added", said).await;
        Ok(())
    }

    /// An operator lets a member go: never themselves (the console would lose its operator).
    async fn disable_member(&self, name: &str, by: &Actor) -> Result<(), InventoryError> {
        let unknown = || InventoryError::invalid("invalid.no_member", &[("name", name.into())]);
        let name = StaffName::parse(name).map_err(|_| unknown())?;
        let account = self
            .store
            .staff_named(name.as_str())
            .await?
            .filter(|a| a.disabled_at.is_none())
            .ok_or_else(unknown)?;
        if account.id == by.member.id {
            return Err(InventoryError::invalid("invalid.disable_self", &[]));
        }
        self.store.disable_staff(name.as_str()).await?;
        self.store
            .end_member_sessions(account.id, None, self.now_at())
            .await?;
        let facts = vec![AuditFact::Member(account.name.clone())];
        let said = Said::new(format!("disabled {}", account.name), facts);
        self.audit(by, "staff_disabled", said).await;
        Ok(())
    }

    async fn audit_log(&self) -> Result<Vec<AuditEntry>, InventoryError> {
        Ok(self.store.staff_audit(AUDIT_PAGE).await?)
    }

    async fn api_tokens(&self) -> Result<Vec<ApiToken>, InventoryError> {
        Ok(self.store.api_tokens().await?)
    }

    async fn create_api_token(
        &self,
        name: &str,
        by: &Actor,
    ) -> Result<NewApiToken, InventoryError> {
        let name = name.trim();
        if let Some(why) = app::domain::name_problem("invalid.what.token_name", name, 80) {
            return Err(InventoryError::Invalid(vec![why]));
        }
        let secret = new_secret();
        let now = self.now_at();
        let id = self
            .store
            .create_api_token(name, &secret_hash(&secret), by.member.id, now)
            .await?;
        let facts = vec![AuditFact::Token(id), AuditFact::TokenName(name.to_string())];
        self.audit(
            by,
            "api_token_created",
            Said::new(format!("token {id} ({name})"), facts),
        )
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

    async fn revoke_api_token(&self, id: i64, by: &Actor) -> Result<(), InventoryError> {
        if !self.store.revoke_api_token(id, self.now_at()).await? {
            return Err(InventoryError::ApiTokenNotFound);
        }
        let said = Said::new(format!("token {id}"), vec![AuditFact::Token(id)]);
        self.audit(by, "api_token_revoked", said).await;
        Ok(())
    }
}

/// What an audit line says: in English as it is kept (`detail`), and as facts the console
/// says in the page's language.
#[derive(Debug, Clone, Default)]
pub struct Said {
    pub text: String,
    pub facts: Vec<AuditFact>,
}

impl Said {
    pub fn new(text: impl Into<String>, facts: Vec<AuditFact>) -> Self {
        Self {
            text: text.into(),
            facts,
        }
    }
}

/// Nothing to say beyond the action.
impl From<()> for Said {
    fn from(_: ()) -> Self {
        Self::default()
    }
}

impl Engine {
    /// Adds a line to the audit log for `actor`'s action. A failure to write it is logged, not
    /// returned: the action itself has happened.
    pub async fn audit(&self, actor: &Actor, action: &str, said: impl Into<Said>) {
        let said = said.into();
        let address = actor.address.map(|a| a.to_string());
        self.record(NewAuditEntry {
            at: self.now_at(),
            staff_id: Some(actor.member.id),
            staff_name: &actor.member.name,
            action,
            detail: &said.text,
            facts: crate::store::facts_json(&said.facts),
            address: address.as_deref(),
        })
        .await;
    }

    pub(in crate::engine) async fn record(&self, entry: NewAuditEntry<'_>) {
        if let Err(e) = self.store.record_staff_action(&entry).await {
            tracing::error!(error = %e, action = entry.action, "could not write the audit log");
        }
    }

    /// Whether `secret` is a live API token (and marks it used).
    pub async fn api_token_admits(&self, secret: &str) -> Result<bool, InventoryError> {
        let now = self.now_at();
        Ok(self
            .store
            .use_api_token(&secret_hash(secret), now)
            .await?
            .is_some())
    }
}
