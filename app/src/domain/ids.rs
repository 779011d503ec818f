//! Identifiers. A hold id carries its showtime id, so the engine can route any statement about a
//! hold to its showtime (the shard key) without searching every showtime.

use serde::{Deserialize, Serialize};
use std::fmt;
use uuid::Uuid;

/// A showtime. Positive and below 2^48, so it fits inside a hold id. Made only through
/// [`TryFrom<i64>`] (JSON, path segments and database rows alike), so none is out of range.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "i64", into = "i64")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct ShowtimeId(i64);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("showtime id must be a whole number from 1 to {max}, not {0}", max = ShowtimeId::MAX)]
pub struct InvalidShowtimeId(pub i64);

impl TryFrom<i64> for ShowtimeId {
    type Error = InvalidShowtimeId;

    fn try_from(id: i64) -> Result<Self, Self::Error> {
        (1..=Self::MAX)
            .contains(&id)
            .then_some(Self(id))
            .ok_or(InvalidShowtimeId(id))
    }
}

impl From<ShowtimeId> for i64 {
    fn from(id: ShowtimeId) -> i64 {
        id.0
    }
}

impl ShowtimeId {
    pub const MAX: i64 = (1 << 48) - 1;

    pub const fn get(self) -> i64 {
        self.0
    }

    /// Parses a showtime id from a path segment; `None` when it is not a positive integer in range.
    pub fn parse(input: &str) -> Option<Self> {
        Self::try_from(input.parse::<i64>().ok()?).ok()
    }
}

impl fmt::Display for ShowtimeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A guest or signed-in customer. Issued by the server in a signed session cookie.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CustomerId(pub Uuid);

impl CustomerId {
    /// The customer id a clerk's holds carry: fixed per staff member and never a customer's
    /// (customer ids are random v4 UUIDs; these are version 8 with a fixed prefix).
    pub fn of_clerk(staff_id: i64) -> Self {
        let mut bytes = [0u8; 16];
        bytes[..8].copy_from_slice(b"seatsclk");
        bytes[8..].copy_from_slice(&staff_id.to_be_bytes());
        Self(uuid::Builder::from_custom_bytes(bytes).into_uuid())
    }
}

/// A booking (created when a payment confirms a hold).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct BookingId(pub Uuid);

impl BookingId {
    /// The short booking number printed on tickets and receipts: the id's first 8 hex digits,
    /// upper case (`21D6B008`). The box office finds a booking by it.
    pub fn reference(&self) -> String {
        self.0.simple().to_string()[..8].to_ascii_uppercase()
    }
}

/// A hold: a UUID version 8 whose first 48 bits are the showtime id and the remaining 74 free
/// bits random. It is as unguessable as a v4 UUID for a given showtime, and
/// [`HoldId::showtime_id`] needs no lookup. Read from JSON through [`TryFrom<Uuid>`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "Uuid", into = "Uuid")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct HoldId(Uuid);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0} is not a hold id")]
pub struct InvalidHoldId(pub Uuid);

impl TryFrom<Uuid> for HoldId {
    type Error = InvalidHoldId;

    fn try_from(uuid: Uuid) -> Result<Self, Self::Error> {
        Self::from_uuid(uuid).ok_or(InvalidHoldId(uuid))
    }
}

impl From<HoldId> for Uuid {
    fn from(id: HoldId) -> Uuid {
        id.0
    }
}

impl HoldId {
    /// Builds a hold id for `showtime` from 16 random bytes (the caller's random source).
    pub fn new(showtime: ShowtimeId, random: [u8; 16]) -> Self {
        let mut bytes = random;
        bytes[..6].copy_from_slice(&showtime.0.to_be_bytes()[2..]);
        Self(uuid::Builder::from_custom_bytes(bytes).into_uuid())
    }

    /// Parses a hold id; `None` when the text is not a UUID made by [`HoldId::new`].
    pub fn parse(input: &str) -> Option<Self> {
        Self::from_uuid(Uuid::try_parse(input).ok()?)
    }

    pub fn from_uuid(uuid: Uuid) -> Option<Self> {
        let id = Self(uuid);
        (uuid.get_version_num() == 8 && id.showtime_id().0 > 0).then_some(id)
    }

    pub fn showtime_id(&self) -> ShowtimeId {
        let mut be = [0u8; 8];
        be[2..].copy_from_slice(&self.0.as_bytes()[..6]);
        ShowtimeId(i64::from_be_bytes(be))
    }

    pub fn as_uuid(&self) -> Uuid {
        self.0
    }
}

impl fmt::Display for HoldId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clerk_s_customer_id_is_fixed_per_member_and_unlike_a_customer_id() {
        let clerk = CustomerId::of_clerk;
        assert_eq!(clerk(7), clerk(7));
        assert_ne!(clerk(7), clerk(8));
        assert_ne!(
            clerk(7).0.get_version_num(),
            uuid::Uuid::new_v4().get_version_num()
        );
    }

    #[test]
    fn a_hold_id_carries_its_showtime() {
        for showtime in [1, 42, 70_000, ShowtimeId::MAX] {
            let id = HoldId::new(ShowtimeId(showtime), [0xAB; 16]);
            assert_eq!(id.showtime_id(), ShowtimeId(showtime));
            assert_eq!(id.as_uuid().get_version_num(), 8);
            assert_eq!(HoldId::parse(&id.to_string()), Some(id));
        }
    }

    #[test]
    fn json_cannot_carry_an_id_out_of_range() {
        assert_eq!(
            serde_json::from_str::<ShowtimeId>("12").unwrap(),
            ShowtimeId(12)
        );
        for bad in ["0", "-3", "281474976710656", "\"12\""] {
            assert!(serde_json::from_str::<ShowtimeId>(bad).is_err(), "{bad}");
        }
        let hold = HoldId::new(ShowtimeId(5), [1; 16]);
        let text = serde_json::to_string(&hold).unwrap();
        assert_eq!(serde_json::from_str::<HoldId>(&text).unwrap(), hold);
        let v4 = "\"5f0c6f0e-1c7a-4f43-9a55-0d3cbb6d2b11\"";
        assert!(serde_json::from_str::<HoldId>(v4).is_err());
    }

    #[test]
    fn a_random_v4_uuid_is_not_a_hold_id() {
        assert_eq!(HoldId::parse("5f0c6f0e-1c7a-4f43-9a55-0d3cbb6d2b11"), None);
        assert_eq!(HoldId::parse("not-a-uuid"), None);
    }

    #[test]
    fn showtime_ids_out_of_range_do_not_parse() {
        assert_eq!(ShowtimeId::parse("0"), None);
        assert_eq!(ShowtimeId::parse("-3"), None);
        assert_eq!(ShowtimeId::parse("281474976710656"), None);
        assert_eq!(ShowtimeId::parse("12"), Some(ShowtimeId(12)));
    }
}
