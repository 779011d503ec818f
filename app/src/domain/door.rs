//! The door: what a scan sends, and what the door is told about the ticket.

use super::{BookingId, ShowtimeId, StaffRole};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// Who may scan tickets at the door (and an operator).
pub const DOOR_ROLES: [StaffRole; 3] = [StaffRole::Door, StaffRole::Clerk, StaffRole::Supervisor];

/// What the door is told about a scanned ticket.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub enum CheckInResult {
    Ok,
    AlreadyCheckedIn,
    WrongShowtime,
    Refunded,
    /// The scanned seat was exchanged at the counter for another: its ticket is no longer one
    /// (the booking's new ticket names the seat it has now).
    Exchanged,
    /// Its showtime was cancelled (its money goes back, or went back).
    Cancelled,
    NotFound,
}

impl CheckInResult {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Ok => "OK",
            Self::AlreadyCheckedIn => "ALREADY_CHECKED_IN",
            Self::WrongShowtime => "WRONG_SHOWTIME",
            Self::Refunded => "REFUNDED",
            Self::Exchanged => "EXCHANGED",
            Self::Cancelled => "CANCELLED",
            Self::NotFound => "NOT_FOUND",
        }
    }

    /// Whether the holder goes in.
    pub fn admits(self) -> bool {
        self == Self::Ok
    }
}

/// A scan's answer: the result and, when the ticket is ours, what it is for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct CheckIn {
    pub result: CheckInResult,
    pub booking_id: Option<BookingId>,
    pub showtime_id: Option<ShowtimeId>,
    pub movie_title: Option<String>,
    pub hall_name: Option<String>,
    #[serde(default, deserialize_with = "super::rfc3339::deserialize_option")]
    pub starts_at: Option<DateTime<Utc>>,
    /// The booking's seats.
    #[serde(default)]
    pub seats: Vec<String>,
    /// The seats the scanned code is for: one seat's ticket, that seat (in the booking or not);
    /// the booking's code, the booking's seats. The door names these in its verdict.
    #[serde(default)]
    pub scanned: Vec<String>,
    /// The seats this scan let in (one seat's ticket: that seat; the booking's code: every seat
    /// not in yet).
    #[serde(default)]
    pub admitted: Vec<String>,
    /// How many of the booking's seats are in now.
    #[serde(default)]
    pub checked_in: usize,
    /// For `ALREADY_CHECKED_IN`: when and at which gate the first scan was.
    #[serde(default, deserialize_with = "super::rfc3339::deserialize_option")]
    pub first_scan_at: Option<DateTime<Utc>>,
    pub first_scan_gate: Option<String>,
    /// Seats let in now at a ticket type whose holder shows proof (an ID card, a senior's or
    /// disability card): the door checks it.
    #[serde(default)]
    pub check_id: Vec<super::SoldSeat>,
}

impl CheckIn {
    pub fn not_found() -> Self {
        Self {
            result: CheckInResult::NotFound,
            booking_id: None,
            showtime_id: None,
            movie_title: None,
            hall_name: None,
            starts_at: None,
            seats: Vec::new(),
            scanned: Vec::new(),
            admitted: Vec::new(),
            checked_in: 0,
            first_scan_at: None,
            first_scan_gate: None,
            check_id: Vec::new(),
        }
    }
}

/// What the door sends with a scan: its gate, and the showtime it admits (none: a showtime whose
/// doors are open now: from two hours before its start to its end). Unknown fields are refused,
/// so a misspelt `showtime_id` is not taken for "any".
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct ScanAt {
    #[serde(default)]
    pub gate: Option<String>,
    #[serde(default)]
    pub showtime_id: Option<ShowtimeId>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_read_as_their_names() {
        for r in [
            CheckInResult::Ok,
            CheckInResult::AlreadyCheckedIn,
            CheckInResult::WrongShowtime,
            CheckInResult::Refunded,
            CheckInResult::Exchanged,
            CheckInResult::Cancelled,
            CheckInResult::NotFound,
        ] {
            assert_eq!(
                serde_json::to_string(&r).unwrap(),
                format!("\"{}\"", r.as_str())
            );
        }
        assert!(CheckInResult::Ok.admits() && !CheckInResult::Refunded.admits());
    }
}
