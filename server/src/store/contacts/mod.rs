//! Customers beyond the cookie: the bookings an address was given for (to find one again by
//! its reference and that address), the bookings a customer found again and may see, and
//! addresses emptied once they are no longer needed.

mod postgres;
mod sqlite;

use super::*;

/// Bookings one address is looked up among at most (newest first): more than any customer has.
pub const BOOKINGS_PER_EMAIL: i64 = 200;

const BOOKINGS_WITH_EMAIL: &str =
    "select id from booking where email = $1 order by created_at desc limit $2";
const HAS_ACCESS: &str =
    "select count(*) from booking_access where booking_id = $1 and customer_id = $2";

#[async_trait::async_trait]
pub trait Contacts: Send + Sync {
    /// The bookings checked out with `email` (as [`app::domain::Email`] stores it), newest
    /// first, at most [`BOOKINGS_PER_EMAIL`].
    async fn bookings_with_email(&self, email: &str) -> Result<Vec<BookingId>, StoreError>;

    /// Lets `customer` see `booking` as their own (their "My bookings" lists it); once.
    async fn grant_booking_access(
        &self,
        booking: BookingId,
        customer: CustomerId,
        now: Now,
    ) -> Result<(), StoreError>;

    /// Whether `customer` was let see `booking` (it is not theirs).
    async fn has_booking_access(
        &self,
        booking: BookingId,
        customer: CustomerId,
    ) -> Result<bool, StoreError>;

    /// Empties the address of bookings whose showtime started more than `retention` before
    /// `now`; how many.
    async fn purge_emails(&self, now: Now, retention: chrono::Duration) -> Result<u64, StoreError>;
}
