//! Staff: the people who run a venue, as the pages and the server functions see them.

use super::Won;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::fmt;

/// What a staff account may do. An operator may do everything; each staff action names the
/// other roles that may use it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StaffRole {
    /// Everything: halls, showtimes, prices, staff, reports, the audit log.
    Operator,
    /// The box office and its approvals (refunds, reprints, complimentary tickets).
    Supervisor,
    /// Counter sales.
    Clerk,
    /// Ticket scanning at the door only.
    Door,
}

impl StaffRole {
    pub const ALL: [StaffRole; 4] = [Self::Operator, Self::Supervisor, Self::Clerk, Self::Door];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Operator => "operator",
            Self::Supervisor => "supervisor",
            Self::Clerk => "clerk",
            Self::Door => "door",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.as_str() == text.trim())
    }

    /// Whether this role may use an action open to `allowed` (an operator may use every one).
    pub fn may(self, allowed: &[StaffRole]) -> bool {
        self == Self::Operator || allowed.contains(&self)
    }
}

impl fmt::Display for StaffRole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl TryFrom<String> for StaffRole {
    type Error = String;

    fn try_from(text: String) -> Result<Self, String> {
        Self::parse(&text).ok_or_else(|| format!("unknown staff role {text:?}"))
    }
}

/// A signed-in staff member.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StaffMember {
    pub id: i64,
    pub name: String,
    pub role: StaffRole,
}

/// A staff account as the operator's console lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StaffAccountView {
    pub name: String,
    pub role: StaffRole,
    /// Whether the member has a kiosk PIN.
    pub has_pin: bool,
    pub disabled: bool,
}

/// One line of the audit log: who did what, when, from where.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditEntry {
    #[serde(deserialize_with = "super::rfc3339::deserialize")]
    pub at: DateTime<Utc>,
    pub staff_name: String,
    /// A stable name: `sign_in`, `sign_in_failed`, `sign_out`, `api_token_created`, …
    pub action: String,
    /// What the line says beyond its action, in English, as it was written.
    pub detail: String,
    /// The same as facts the console says in the page's language (lines written before facts
    /// were kept have none: their `detail` is shown).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub facts: Vec<AuditFact>,
    pub address: Option<String>,
}

/// One fact of an audit line: what it is about (a showtime, seats, a booking, an amount…) or
/// why (a wrong password…). Times are RFC 3339 text, amounts whole won.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum AuditFact {
    Showtime(i64),
    Hall(i64),
    HallName(String),
    SeatCount(i64),
    Title(String),
    StartsAt(String),
    Minutes(i64),
    OnSaleFrom(String),
    OnSaleUntil(String),
    HotSale,
    /// A price per category code, where the showtime's differ from the hall's.
    Prices(Vec<(String, Won)>),
    Seats(Vec<String>),
    /// What the seats were made: `AVAILABLE`, `HOUSE` or `KILLED`.
    SeatsMade(String),
    AllSeats,
    /// For seats: an exchange's new seats.
    ForSeats(Vec<String>),
    HoldsReleased(i64),
    RefundsDue(i64),
    OwedBack(i64),
    WaitingRoom {
        on: bool,
        paused: bool,
        max_active: i64,
        per_minute: i64,
        drawn: bool,
        proof_bits: i64,
    },
    Booking(String),
    Shift(i64),
    Register(String),
    Float(Won),
    Clerk(String),
    ExpectedCash(Won),
    Counted(Won),
    Variance(Won),
    /// `cash`, `card` or `comp`.
    Tender(String),
    Amount(Won),
    ApprovedBy(String),
    Reprint(i64),
    Token(i64),
    TokenName(String),
    Member(String),
    Role(StaffRole),
    PinRemoved,
    SessionsEnded(i64),
    WrongPassword,
    WrongPin,
    /// The PIN was wrong this many times: the session ended.
    WrongPinSessionEnded(i64),
    /// Not checked: too many failures lately, this many seconds to wait.
    TooManyFailures(u64),
    /// A supervisor named at the counter whose approval was not accepted.
    NotAccepted(String),
    /// Made at the first start, there being no staff account.
    FirstAccount,
    /// Done with the `server staff` command.
    ByCommand,
}

/// A bearer token for API clients of the reports (the token itself is shown once, at creation).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiToken {
    pub id: i64,
    pub name: String,
    pub created_by: String,
    #[serde(deserialize_with = "super::rfc3339::deserialize")]
    pub created_at: DateTime<Utc>,
    #[serde(default, deserialize_with = "super::rfc3339::deserialize_option")]
    pub last_used_at: Option<DateTime<Utc>>,
    #[serde(default, deserialize_with = "super::rfc3339::deserialize_option")]
    pub revoked_at: Option<DateTime<Utc>>,
}

/// A token just created: its record and the secret, shown this once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NewApiToken {
    pub token: ApiToken,
    pub secret: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_parse_by_name_and_an_operator_may_do_everything() {
        for role in StaffRole::ALL {
            assert_eq!(StaffRole::parse(role.as_str()), Some(role));
            assert_eq!(StaffRole::try_from(role.to_string()), Ok(role));
        }
        assert_eq!(StaffRole::parse("admin"), None);
        assert_eq!(StaffRole::parse("Operator"), None);
        assert!(StaffRole::Operator.may(&[]));
        assert!(StaffRole::Supervisor.may(&[StaffRole::Supervisor, StaffRole::Clerk]));
        assert!(!StaffRole::Clerk.may(&[StaffRole::Supervisor]));
        assert!(!StaffRole::Door.may(&[]));
    }
}
