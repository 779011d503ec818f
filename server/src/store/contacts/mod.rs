//! Customers beyond the cookie: the bookings an address was given for (to find one again by
//! its reference and that address), the bookings a customer found again and may see, and
//! addresses emptied once they are no longer needed.

/// The booking of `$email` with `$reference`, read through `$pool` (the same statement in both
/// dialects).
macro_rules! booking_with_reference {
    ($pool:expr, $email:expr, $reference:expr) => {{
        let Some((low, high)) = reference_range($reference) else {
            return Ok(None);
        };
        let id: Option<uuid::Uuid> = sqlx::query_scalar(BOOKING_WITH_REFERENCE)
            .bind($email)
            .bind(low)
            .bind(high)
            .fetch_optional($pool)
            .await?;
        Ok(id.map(BookingId))
    }};
}

/// What `$customer` was let do with `$booking`, read through `$pool` (the same statement in
/// both dialects).
macro_rules! has_booking_access {
    ($pool:expr, $booking:expr, $customer:expr) => {{
        let can_cancel: Option<bool> = sqlx::query_scalar(HAS_ACCESS)
            .bind($booking.0)
            .bind($customer.0)
            .fetch_optional($pool)
            .await?;
        Ok(can_cancel.map(|can_cancel| match can_cancel {
            true => Access::Mailbox,
            false => Access::Found,
        }))
    }};
}

mod postgres;
mod sqlite;

use super::*;

/// The booking with `email` whose id starts with the reference's 8 hexadecimal digits: the ids
/// between the reference followed by zeros and followed by `f`s (UUIDs and SQLite's 16-byte
/// blobs both order as their bytes), so no number of other bookings with the address hides it.
const BOOKING_WITH_REFERENCE: &str = "select id from booking
     where email = $1 and id between $2 and $3 order by created_at desc limit 1";

/// The first and last UUID whose first 8 hexadecimal digits are `reference` (none when it is
/// not 8 hexadecimal digits).
pub fn reference_range(reference: &str) -> Option<(uuid::Uuid, uuid::Uuid)> {
    if reference.len() != 8 || !reference.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let prefix = u32::from_str_radix(reference, 16).ok()?;
    let low = u128::from(prefix) << 96;
    Some((
        uuid::Uuid::from_u128(low),
        uuid::Uuid::from_u128(low | (u128::MAX >> 32)),
    ))
}
const HAS_ACCESS: &str =
    "select can_cancel from booking_access where booking_id = $1 and customer_id = $2";

/// Why a session that did not buy a booking may see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// It found the booking by its number and address: it sees it.
    Found,
    /// It opened the booking's e-mailed link and confirmed: it proved the mailbox, and may
    /// cancel as the buyer may.
    Mailbox,
}

#[async_trait::async_trait]
pub trait Contacts: Send + Sync {
    /// The booking checked out with `email` (as [`app::domain::Email`] stores it) whose
    /// reference (the first 8 hexadecimal digits of its id, upper case) is `reference`.
    async fn booking_with_reference(
        &self,
        email: &str,
        reference: &str,
    ) -> Result<Option<BookingId>, StoreError>;

    /// Lets `customer` see `booking` as their own (their "My bookings" lists it), and cancel it
    /// when they proved the mailbox; a grant never loses what an earlier one gave.
    async fn grant_booking_access(
        &self,
        booking: BookingId,
        customer: CustomerId,
        access: Access,
        now: Now,
    ) -> Result<(), StoreError>;

    /// What `customer` was let do with `booking` (it is not theirs); `None`: nothing.
    async fn has_booking_access(
        &self,
        booking: BookingId,
        customer: CustomerId,
    ) -> Result<Option<Access>, StoreError>;

    /// Empties the address of bookings whose showtime started more than `retention` before
    /// `now`; how many.
    async fn purge_emails(&self, now: Now, retention: chrono::Duration) -> Result<u64, StoreError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reference_covers_exactly_the_ids_that_start_with_it() {
        let (low, high) = reference_range("21D6B008").unwrap();
        assert_eq!(low.to_string(), "21d6b008-0000-0000-0000-000000000000");
        assert_eq!(high.to_string(), "21d6b008-ffff-ffff-ffff-ffffffffffff");
        let id = BookingId(uuid::Uuid::parse_str("21d6b008-1234-4abc-8def-0123456789ab").unwrap());
        assert_eq!(id.reference(), "21D6B008");
        assert!(low <= id.0 && id.0 <= high);
        assert_eq!(reference_range("21D6B00"), None);
        assert_eq!(reference_range("21D6B00G"), None);
        assert_eq!(reference_range("+1D6B008"), None);
    }
}
