//! Staff accounts: added once per name, listed, found by name for signing in, disabled (never
//! deleted, so what an account did stays attributable).

mod sessions;
mod throttle;

pub use sessions::*;
pub use throttle::*;

use super::dialect::on;
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

impl Store {
    /// Adds the account; `None` (and nothing changed) when the name is taken.
    pub async fn add_staff(&self, new: &NewStaff) -> Result<Option<i64>, StoreError> {
        let add = "insert into staff_user (name, role, password_hash, created_at)
                   values ($1, $2, $3, coalesce($4, current_timestamp))
                   on conflict (name) do nothing returning id";
        let id: Option<i64> = on!(&mut self.writer().await?, c => {
            sqlx::query_scalar(add)
                .bind(new.name.as_str())
                .bind(new.role.as_str())
                .bind(&new.password_hash)
                .bind(Moment(None))
                .fetch_optional(c)
                .await?
        });
        Ok(id)
    }

    /// Every account, by name.
    pub async fn staff_list(&self) -> Result<Vec<StaffAccount>, StoreError> {
        let list = format!("{STAFF_COLUMNS} order by name");
        let rows: Vec<StaffRow> = on!(&mut self.reader().await?, c => {
            sqlx::query_as(&list).fetch_all(c).await?
        });
        Ok(rows.into_iter().map(StaffAccount::from).collect())
    }

    pub async fn staff_named(&self, name: &str) -> Result<Option<StaffAccount>, StoreError> {
        let find = format!("{STAFF_COLUMNS} where name = $1");
        let row: Option<StaffRow> = on!(&mut self.reader().await?, c => {
            sqlx::query_as(&find).bind(name).fetch_optional(c).await?
        });
        Ok(row.map(StaffAccount::from))
    }

    /// Disables an active account; `false` when there is no such active account.
    pub async fn disable_staff(&self, name: &str) -> Result<bool, StoreError> {
        let disable = "update staff_user set disabled_at = coalesce($2, current_timestamp)
                        where name = $1 and disabled_at is null";
        let disabled = on!(&mut self.writer().await?, c => {
            sqlx::query(disable)
                .bind(name)
                .bind(Moment(None))
                .execute(c)
                .await?
                .rows_affected()
        });
        Ok(disabled == 1)
    }
}
