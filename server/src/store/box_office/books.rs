//! The box office's other reads and writes: booking numbers, a booking's events, shifts, prints,
//! check-in counts, refunds owed, a clerk's live holds.

use super::*;

impl Store {
    /// The bookings whose id starts with the 8 hex digits `number` (lower case): the booking
    /// number printed on tickets. Normally one.
    pub async fn bookings_numbered(&self, number: &str) -> Result<Vec<BookingId>, StoreError> {
        // The id's text begins with the number (SQLite keeps the id as 16 bytes).
        let id_text = match &self.db {
            Dialect::Postgres(_) => "id::text",
            Dialect::Sqlite(_) => "lower(hex(id))",
        };
        let numbered = format!("select id from booking where {id_text} like $1 || '%' limit 5");
        let ids: Vec<uuid::Uuid> = on!(&mut self.reader().await?, c => {
            sqlx::query_scalar(&numbered).bind(number).fetch_all(c).await?
        });
        Ok(ids.into_iter().map(BookingId).collect())
    }

    /// A booking's events in the outbox, oldest first: type, written, published.
    pub async fn booking_events(&self, booking: BookingId) -> Result<Vec<EventRecord>, StoreError> {
        Ok(on!(&mut self.reader().await?, c => {
            sqlx::query_as(BOOKING_EVENTS).bind(booking.0).fetch_all(c).await?
        }))
    }

    /// The booking that seat `seat` of `showtime` is sold to, if it is sold.
    pub async fn booking_of_seat(
        &self,
        showtime: ShowtimeId,
        seat: &str,
    ) -> Result<Option<BookingId>, StoreError> {
        let id: Option<Option<uuid::Uuid>> = on!(&mut self.reader().await?, c => {
            sqlx::query_scalar(BOOKING_OF_SEAT)
                .bind(showtime.get())
                .bind(seat)
                .fetch_optional(c)
                .await?
        });
        Ok(id.flatten().map(BookingId))
    }

    /// Opens a shift; `None` when the clerk or the register has an open one.
    pub async fn open_shift(
        &self,
        clerk: i64,
        register: &str,
        float: i64,
        at: At,
    ) -> Result<Option<i64>, StoreError> {
        Ok(on!(&mut self.writer().await?, c => {
            sqlx::query_scalar(OPEN_SHIFT)
                .bind(clerk)
                .bind(register)
                .bind(float)
                .bind(at)
                .fetch_optional(c)
                .await?
        }))
    }

    pub async fn shifts(&self, filter: ShiftFilter) -> Result<Vec<ShiftRecord>, StoreError> {
        let (shifts, key) = filter.select();
        Ok(on!(&mut self.reader().await?, c => {
            sqlx::query_as(&shifts).bind(key).fetch_all(c).await?
        }))
    }

    /// A shift's sales per tender and refunds per method.
    pub async fn shift_sums(
        &self,
        shift: i64,
    ) -> Result<(Vec<TenderSum>, Vec<TenderSum>), StoreError> {
        Ok(on!(&mut self.reader().await?, c => {
            (
                sqlx::query_as(SHIFT_SALES).bind(shift).fetch_all(&mut *c).await?,
                sqlx::query_as(SHIFT_REFUNDS).bind(shift).fetch_all(&mut *c).await?,
            )
        }))
    }

    /// How many of a shift's sales are owed back (their showtime cancelled) and not given back
    /// yet, and how much.
    pub async fn shift_owed(&self, shift: i64) -> Result<(i64, i64), StoreError> {
        Ok(on!(&mut self.reader().await?, c => {
            sqlx::query_as(SHIFT_OWED).bind(shift).fetch_one(c).await?
        }))
    }

    /// Counter sales owed back and not given back yet, oldest first.
    pub async fn refunds_owed(&self) -> Result<Vec<OwedRefund>, StoreError> {
        Ok(on!(&mut self.reader().await?, c => {
            sqlx::query_as(REFUNDS_OWED).fetch_all(c).await?
        }))
    }

    /// Closes an open shift; `false` when it was closed already.
    pub async fn close_shift(
        &self,
        shift: i64,
        counted: i64,
        by: i64,
        at: At,
    ) -> Result<bool, StoreError> {
        let closed = on!(&mut self.writer().await?, c => {
            sqlx::query(CLOSE_SHIFT)
                .bind(shift)
                .bind(at)
                .bind(counted)
                .bind(by)
                .execute(c)
                .await?
                .rows_affected()
        });
        Ok(closed == 1)
    }

    /// The seats of a booking that are checked in.
    pub async fn seats_checked_in(&self, booking: BookingId) -> Result<Vec<String>, StoreError> {
        Ok(on!(&mut self.reader().await?, c => {
            sqlx::query_scalar(SEATS_CHECKED_IN).bind(booking.0).fetch_all(c).await?
        }))
    }

    /// Tickets checked in per showtime.
    pub async fn check_in_counts(&self) -> Result<Vec<(i64, i64)>, StoreError> {
        Ok(on!(&mut self.reader().await?, c => {
            sqlx::query_as(CHECK_IN_COUNTS).fetch_all(c).await?
        }))
    }

    /// How many times a booking's ticket was printed.
    pub async fn prints(&self, booking: BookingId) -> Result<i64, StoreError> {
        Ok(on!(&mut self.reader().await?, c => {
            sqlx::query_scalar(PRINTS).bind(booking.0).fetch_one(c).await?
        }))
    }

    /// The live holds of a customer (a clerk's), in every showtime.
    pub async fn live_holds_of(
        &self,
        customer: CustomerId,
        at: At,
    ) -> Result<Vec<HoldId>, StoreError> {
        let ids: Vec<uuid::Uuid> = on!(&mut self.reader().await?, c => {
            sqlx::query_scalar(LIVE_HOLDS_OF).bind(customer.0).bind(at).fetch_all(c).await?
        });
        ids.into_iter()
            .map(|id| HoldId::try_from(id).map_err(|e| StoreError::Corrupt(e.to_string())))
            .collect()
    }
}
