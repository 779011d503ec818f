//! Customers beyond the cookie: the bookings an address was given for (to find one again by
//! its reference and that address), the bookings a customer found again and may see, and
//! addresses emptied once they are no longer needed.

use super::dialect::on;
use super::*;

/// Why a session that did not buy a booking may see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// It found the booking by its number and address: it sees it.
    Found,
    /// It opened the booking's e-mailed link and confirmed: it proved the mailbox, and may
    /// cancel as the buyer may.
    Mailbox,
}

impl Store {
    /// The booking checked out with `email` (as [`app::domain::Email`] stores it) whose
    /// reference (the first 8 hexadecimal digits of its id, upper case) is `reference`: the
    /// newest of the ids between the reference followed by zeros and followed by `f`s (UUIDs and
    /// SQLite's 16-byte blobs both order as their bytes), so no number of other bookings with
    /// the address hides it.
    pub async fn booking_with_reference(
        &self,
        email: &str,
        reference: &str,
    ) -> Result<Option<BookingId>, StoreError> {
        let Some((low, high)) = reference_range(reference) else {
            return Ok(None);
        };
        let find = "select id from booking
                     where email = $1 and id between $2 and $3 order by created_at desc limit 1";
        let id: Option<uuid::Uuid> = on!(&mut self.reader().await?, c => {
            sqlx::query_scalar(find)
                .bind(email)
                .bind(low)
                .bind(high)
                .fetch_optional(c)
                .await?
        });
        Ok(id.map(BookingId))
    }

    /// The bookings checked out with `email` (as [`app::domain::Email`] stores it), newest
    /// first, at most `limit` (the console's search by address).
    pub async fn bookings_of_address(
        &self,
        email: &str,
        limit: i64,
    ) -> Result<Vec<BookingId>, StoreError> {
        let find = "select id from booking where email = $1
                     order by created_at desc, id limit $2";
        let ids: Vec<uuid::Uuid> = on!(&mut self.reader().await?, c => {
            sqlx::query_scalar(find).bind(email).bind(limit).fetch_all(c).await?
        });
        Ok(ids.into_iter().map(BookingId).collect())
    }

    /// Lets `customer` see `booking` as their own (their "My bookings" lists it), and cancel it
    /// when they proved the mailbox; a grant never loses what an earlier one gave.
    pub async fn grant_booking_access(
        &self,
        booking: BookingId,
        customer: CustomerId,
        access: Access,
        now: Now,
    ) -> Result<(), StoreError> {
        let grant = "insert into booking_access (booking_id, customer_id, granted_at, can_cancel)
                     values ($1, $2, coalesce($3, current_timestamp), $4)
                     on conflict (customer_id, booking_id)
                     do update set can_cancel = booking_access.can_cancel or excluded.can_cancel";
        on!(&mut self.writer().await?, c => {
            sqlx::query(grant)
                .bind(booking.0)
                .bind(customer.0)
                .bind(Moment(now))
                .bind(access == Access::Mailbox)
                .execute(c)
                .await?;
        });
        Ok(())
    }

    /// What `customer` was let do with `booking` (it is not theirs); `None`: nothing.
    pub async fn has_booking_access(
        &self,
        booking: BookingId,
        customer: CustomerId,
    ) -> Result<Option<Access>, StoreError> {
        let read = "select can_cancel from booking_access
                     where booking_id = $1 and customer_id = $2";
        let can_cancel: Option<bool> = on!(&mut self.reader().await?, c => {
            sqlx::query_scalar(read)
                .bind(booking.0)
                .bind(customer.0)
                .fetch_optional(c)
                .await?
        });
        Ok(can_cancel.map(|can_cancel| match can_cancel {
            true => Access::Mailbox,
            false => Access::Found,
        }))
    }

    /// Empties the address of bookings whose showtime started more than `retention` before
    /// `now`, [`PURGE_BATCH`] rows per statement; how many.
    pub async fn purge_emails(
        &self,
        now: Now,
        retention: chrono::Duration,
    ) -> Result<u64, StoreError> {
        let purge = "update booking set email = null
                      where id in (select b.id from booking b join showtime s on s.id = b.showtime_id
                                    where b.email is not null
                                      and s.starts_at < coalesce($1, current_timestamp) - $2
                                    limit $3)";
        let mut emptied = 0;
        loop {
            let n = on!(&mut self.writer().await?, c => {
                sqlx::query(purge)
                    .bind(Moment(now))
                    .bind(Span(retention))
                    .bind(PURGE_BATCH)
                    .execute(c)
                    .await?
                    .rows_affected()
            });
            emptied += n;
            if n < PURGE_BATCH as u64 {
                return Ok(emptied);
            }
        }
    }
}

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
