//! Signing in: staff sessions, passwords and PINs, API tokens and the audit log.
//! Every statement is given its time (the engine's clock), so both dialects run the same text.

use super::dialect::on;
use super::*;
use app::domain::{ApiToken, AuditEntry, StaffMember};

/// A session to open (the caller made the token and keeps it; only its hash is stored).
#[derive(Debug, Clone)]
pub struct NewStaffSession<'a> {
    pub token_hash: &'a str,
    pub staff_id: i64,
    pub at: At,
    pub expires_at: At,
    pub address: Option<&'a str>,
    /// The browser's device id (its signed cookie), if it has one.
    pub device: Option<&'a str>,
}

/// A line to add to the audit log.
#[derive(Debug, Clone)]
pub struct NewAuditEntry<'a> {
    pub at: At,
    pub staff_id: Option<i64>,
    pub staff_name: &'a str,
    pub action: &'a str,
    pub detail: &'a str,
    /// The line's facts as JSON (none: `None`).
    pub facts: Option<String>,
    pub address: Option<&'a str>,
}

/// A live session's member, and when the session was last used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveSession {
    pub member: StaffMember,
    pub last_seen_at: DateTime<Utc>,
    /// Locked: only the member's PIN (or signing in again) opens it.
    pub locked: bool,
    /// The hash of the member's kiosk PIN, if they have one.
    pub pin_hash: Option<String>,
}

#[derive(sqlx::FromRow)]
struct SessionRow {
    id: i64,
    name: String,
    #[sqlx(try_from = "String")]
    role: StaffRole,
    last_seen_at: At,
    locked: bool,
    pin_hash: Option<String>,
}

impl From<SessionRow> for LiveSession {
    fn from(row: SessionRow) -> Self {
        Self {
            member: StaffMember {
                id: row.id,
                name: row.name,
                role: row.role,
            },
            last_seen_at: row.last_seen_at.0,
            locked: row.locked,
            pin_hash: row.pin_hash,
        }
    }
}

#[derive(sqlx::FromRow)]
struct AuditRow {
    at: At,
    staff_name: String,
    action: String,
    detail: String,
    address: Option<String>,
    facts: Option<String>,
}

impl From<AuditRow> for AuditEntry {
    fn from(row: AuditRow) -> Self {
        Self {
            at: row.at.0,
            staff_name: row.staff_name,
            action: row.action,
            detail: row.detail,
            // Facts this version cannot read are left out: the detail still says it all.
            facts: row
                .facts
                .and_then(|json| serde_json::from_str(&json).ok())
                .unwrap_or_default(),
            address: row.address,
        }
    }
}

#[derive(sqlx::FromRow)]
struct TokenRow {
    id: i64,
    name: String,
    creator: String,
    created_at: At,
    last_used_at: Option<At>,
    revoked_at: Option<At>,
}

impl From<TokenRow> for ApiToken {
    fn from(row: TokenRow) -> Self {
        Self {
            id: row.id,
            name: row.name,
            created_by: row.creator,
            created_at: row.created_at.0,
            last_used_at: row.last_used_at.map(|at| at.0),
            revoked_at: row.revoked_at.map(|at| at.0),
        }
    }
}

impl Store {
    /// Opens a session.
    pub async fn open_staff_session(
        &self,
        session: &NewStaffSession<'_>,
    ) -> Result<(), StoreError> {
        let open = "insert into staff_session
                        (token_hash, staff_id, created_at, last_seen_at, expires_at, address, device)
                    values ($1, $2, $3, $3, $4, $5, $6)";
        on!(&mut self.writer().await?, c => {
            sqlx::query(open)
                .bind(session.token_hash)
                .bind(session.staff_id)
                .bind(session.at)
                .bind(session.expires_at)
                .bind(session.address)
                .bind(session.device)
                .execute(c)
                .await?;
        });
        Ok(())
    }

    /// The session of `token_hash` if it is live at `at`: not ended, not past its lifetime,
    /// used after `idle_since`, its account not disabled.
    pub async fn live_staff_session(
        &self,
        token_hash: &str,
        at: At,
        idle_since: At,
    ) -> Result<Option<LiveSession>, StoreError> {
        let live = "select u.id, u.name, u.role, s.last_seen_at,
                           s.locked_at is not null as locked, u.pin_hash
                      from staff_session s join staff_user u on u.id = s.staff_id
                     where s.token_hash = $1 and s.ended_at is null and s.expires_at > $2
                       and s.last_seen_at > $3 and u.disabled_at is null";
        let row: Option<SessionRow> = on!(&mut self.reader().await?, c => {
            sqlx::query_as(live)
                .bind(token_hash)
                .bind(at)
                .bind(idle_since)
                .fetch_optional(c)
                .await?
        });
        Ok(row.map(LiveSession::from))
    }

    /// Marks the session used at `at`.
    pub async fn touch_staff_session(&self, token_hash: &str, at: At) -> Result<(), StoreError> {
        let touch = "update staff_session set last_seen_at = $2 where token_hash = $1";
        self.write_with_token(touch, token_hash, at).await?;
        Ok(())
    }

    /// Ends the session; `false` when it had ended already (or never existed).
    pub async fn end_staff_session(&self, token_hash: &str, at: At) -> Result<bool, StoreError> {
        let end = "update staff_session set ended_at = $2
                    where token_hash = $1 and ended_at is null";
        Ok(self.write_with_token(end, token_hash, at).await? == 1)
    }

    /// Locks a live session; `false` when it was locked or ended already.
    pub async fn lock_staff_session(&self, token_hash: &str, at: At) -> Result<bool, StoreError> {
        let lock = "update staff_session set locked_at = $2
                     where token_hash = $1 and ended_at is null and locked_at is null";
        Ok(self.write_with_token(lock, token_hash, at).await? == 1)
    }

    /// Unlocks a live session; `false` when it was not locked or has ended.
    pub async fn unlock_staff_session(&self, token_hash: &str, at: At) -> Result<bool, StoreError> {
        let unlock = "update staff_session set locked_at = null, last_seen_at = $2
                       where token_hash = $1 and ended_at is null and locked_at is not null";
        Ok(self.write_with_token(unlock, token_hash, at).await? == 1)
    }

    /// `statement` with a token's hash as `$1` and a time as `$2`; the rows it changed.
    async fn write_with_token(
        &self,
        statement: &str,
        token_hash: &str,
        at: At,
    ) -> Result<u64, StoreError> {
        let changed = on!(&mut self.writer().await?, c => {
            sqlx::query(statement)
                .bind(token_hash)
                .bind(at)
                .execute(c)
                .await?
                .rows_affected()
        });
        Ok(changed)
    }

    /// Ends every live session of the member but `except` (a password change keeps the one
    /// it was made in); how many.
    pub async fn end_member_sessions(
        &self,
        staff_id: i64,
        except: Option<&str>,
        at: At,
    ) -> Result<u64, StoreError> {
        let end = "update staff_session set ended_at = $3
                    where staff_id = $1 and ended_at is null and token_hash <> coalesce($2, '')";
        let ended = on!(&mut self.writer().await?, c => {
            sqlx::query(end)
                .bind(staff_id)
                .bind(except)
                .bind(at)
                .execute(c)
                .await?
                .rows_affected()
        });
        Ok(ended)
    }

    /// Sets the member's password hash.
    pub async fn set_staff_password(
        &self,
        staff_id: i64,
        password_hash: &str,
    ) -> Result<(), StoreError> {
        let set = "update staff_user set password_hash = $2 where id = $1";
        on!(&mut self.writer().await?, c => {
            sqlx::query(set).bind(staff_id).bind(password_hash).execute(c).await?;
        });
        Ok(())
    }

    /// Sets (or with `None` removes) the member's kiosk PIN hash.
    pub async fn set_staff_pin(
        &self,
        staff_id: i64,
        pin_hash: Option<&str>,
    ) -> Result<(), StoreError> {
        let set = "update staff_user set pin_hash = $2 where id = $1";
        on!(&mut self.writer().await?, c => {
            sqlx::query(set).bind(staff_id).bind(pin_hash).execute(c).await?;
        });
        Ok(())
    }

    pub async fn record_staff_action(&self, entry: &NewAuditEntry<'_>) -> Result<(), StoreError> {
        on!(&mut self.writer().await?, c => {
            sqlx::query(RECORD_ACTION)
                .bind(entry.at)
                .bind(entry.staff_id)
                .bind(entry.staff_name)
                .bind(entry.action)
                .bind(entry.detail)
                .bind(entry.address)
                .bind(entry.facts.as_deref())
                .execute(c)
                .await?;
        });
        Ok(())
    }

    /// The newest `limit` lines of the audit log, newest first.
    pub async fn staff_audit(&self, limit: i64) -> Result<Vec<AuditEntry>, StoreError> {
        let audit = "select at, staff_name, action, detail, address, facts from staff_audit
                      order by at desc, id desc limit $1";
        let rows: Vec<AuditRow> = on!(&mut self.reader().await?, c => {
            sqlx::query_as(audit).bind(limit).fetch_all(c).await?
        });
        Ok(rows.into_iter().map(AuditEntry::from).collect())
    }

    /// Adds a token (by the hash of its secret); its id.
    pub async fn create_api_token(
        &self,
        name: &str,
        token_hash: &str,
        created_by: i64,
        at: At,
    ) -> Result<i64, StoreError> {
        let add = "insert into api_token (name, token_hash, created_by, created_at)
                   values ($1, $2, $3, $4) returning id";
        let id: i64 = on!(&mut self.writer().await?, c => {
            sqlx::query_scalar(add)
                .bind(name)
                .bind(token_hash)
                .bind(created_by)
                .bind(at)
                .fetch_one(c)
                .await?
        });
        Ok(id)
    }

    /// Every token, newest first.
    pub async fn api_tokens(&self) -> Result<Vec<ApiToken>, StoreError> {
        let tokens = "select t.id, t.name, u.name as creator, t.created_at, t.last_used_at,
                             t.revoked_at
                        from api_token t join staff_user u on u.id = t.created_by
                       order by t.created_at desc, t.id desc";
        let rows: Vec<TokenRow> = on!(&mut self.reader().await?, c => {
            sqlx::query_as(tokens).fetch_all(c).await?
        });
        Ok(rows.into_iter().map(ApiToken::from).collect())
    }

    /// Revokes a token; `false` when there is no such token that is not revoked.
    pub async fn revoke_api_token(&self, id: i64, at: At) -> Result<bool, StoreError> {
        let revoke = "update api_token set revoked_at = $2 where id = $1 and revoked_at is null";
        let revoked = on!(&mut self.writer().await?, c => {
            sqlx::query(revoke)
                .bind(id)
                .bind(at)
                .execute(c)
                .await?
                .rows_affected()
        });
        Ok(revoked == 1)
    }

    /// The id of the token of `token_hash` if it is not revoked and the operator who made it is
    /// not disabled, marking it used at `at`.
    pub async fn use_api_token(&self, token_hash: &str, at: At) -> Result<Option<i64>, StoreError> {
        let used = "update api_token set last_used_at = $2
                     where token_hash = $1 and revoked_at is null
                       and created_by in (select id from staff_user where disabled_at is null)
                     returning id";
        let id: Option<i64> = on!(&mut self.writer().await?, c => {
            sqlx::query_scalar(used)
                .bind(token_hash)
                .bind(at)
                .fetch_optional(c)
                .await?
        });
        Ok(id)
    }
}
