//! Staff accounts: added once per name, listed, found by name for signing in, disabled (never
//! deleted, so what an account did stays attributable).

/// Every account by name, read through `$pool` (the same statement in both dialects).
macro_rules! list_staff {
    ($pool:expr) => {{
        let rows: Vec<StaffRow> = sqlx::query_as(&format!("{STAFF_COLUMNS} order by name"))
            .fetch_all($pool)
            .await?;
        Ok(rows.into_iter().map(StaffAccount::from).collect())
    }};
}

/// The account named `$name`, read through `$pool` (the same statement in both dialects).
macro_rules! find_staff {
    ($pool:expr, $name:expr) => {{
        let row: Option<StaffRow> = sqlx::query_as(&format!("{STAFF_COLUMNS} where name = $1"))
            .bind($name)
            .fetch_optional($pool)
            .await?;
        Ok(row.map(StaffAccount::from))
    }};
}

mod postgres;
mod sessions;
mod sqlite;
mod throttle;

pub use sessions::*;
pub use throttle::*;

use super::*;
use crate::staff::StaffName;
use app::domain::StaffRole;

/// An account to add; the password is already hashed.
#[derive(Debug, Clone)]
pub struct NewStaff {
    pub name: StaffName,
    pub role: StaffRole,
    pub password_hash: String,
}

/// A staff account as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StaffAccount {
    pub id: i64,
    pub name: String,
    pub role: StaffRole,
    pub password_hash: String,
    /// The kiosk PIN's hash, once the member set one.
    pub pin_hash: Option<String>,
    pub disabled_at: Option<DateTime<Utc>>,
    /// Too many failed sign-ins: no sign-in until then.
    pub locked_until: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
}

// Statements that read the same in both dialects.
const STAFF_COLUMNS: &str =
    "select id, name, role, password_hash, pin_hash, disabled_at, locked_until, created_at
       from staff_user";

/// `STAFF_COLUMNS` as both dialects read them.
#[derive(sqlx::FromRow)]
struct StaffRow {
    id: i64,
    name: String,
    #[sqlx(try_from = "String")]
    role: StaffRole,
    password_hash: String,
    pin_hash: Option<String>,
    disabled_at: Option<At>,
    locked_until: Option<At>,
    created_at: At,
}

impl From<StaffRow> for StaffAccount {
    fn from(row: StaffRow) -> Self {
        Self {
            id: row.id,
            name: row.name,
            role: row.role,
            password_hash: row.password_hash,
            pin_hash: row.pin_hash,
            disabled_at: row.disabled_at.map(|at| at.0),
            locked_until: row.locked_until.map(|at| at.0),
            created_at: row.created_at.0,
        }
    }
}

#[async_trait::async_trait]
pub trait StaffAccounts: Send + Sync {
    /// Adds the account; `None` (and nothing changed) when the name is taken.
    async fn add_staff(&self, new: &NewStaff) -> Result<Option<i64>, StoreError>;
    /// Every account, by name.
    async fn staff_list(&self) -> Result<Vec<StaffAccount>, StoreError>;
    async fn staff_named(&self, name: &str) -> Result<Option<StaffAccount>, StoreError>;
    /// Disables an active account; `false` when there is no such active account.
    async fn disable_staff(&self, name: &str) -> Result<bool, StoreError>;
}
