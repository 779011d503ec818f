//! The box office's other reads and writes (shifts, prints, refunds owed), written once for
//! both dialects.

/// The methods that only differ by the pool they use and how a seat list is counted.
macro_rules! box_office_books {
    ($store:ty, write: $write:ident, read: $read:ident) => {
        #[async_trait::async_trait]
        impl BoxOfficeBooks for $store {
            async fn booking_events(
                &self,
                booking: BookingId,
            ) -> Result<Vec<EventRecord>, StoreError> {
                Ok(sqlx::query_as(BOOKING_EVENTS)
                    .bind(booking.0)
                    .fetch_all(&self.$read)
                    .await?)
            }

            async fn booking_of_seat(
                &self,
                showtime: ShowtimeId,
                seat: &str,
            ) -> Result<Option<BookingId>, StoreError> {
                let id: Option<Option<uuid::Uuid>> = sqlx::query_scalar(BOOKING_OF_SEAT)
                    .bind(showtime.get())
                    .bind(seat)
                    .fetch_optional(&self.$read)
                    .await?;
                Ok(id.flatten().map(BookingId))
            }

            async fn open_shift(
                &self,
                clerk: i64,
                register: &str,
                float: i64,
                at: At,
            ) -> Result<Option<i64>, StoreError> {
                Ok(sqlx::query_scalar(OPEN_SHIFT)
                    .bind(clerk)
                    .bind(register)
                    .bind(float)
                    .bind(at)
                    .fetch_optional(&self.$write)
                    .await?)
            }

            async fn shifts(&self, filter: ShiftFilter) -> Result<Vec<ShiftRecord>, StoreError> {
                let (sql, key) = filter.select();
                Ok(sqlx::query_as(&sql)
                    .bind(key)
                    .fetch_all(&self.$read)
                    .await?)
            }

            async fn shift_sums(
                &self,
                shift: i64,
            ) -> Result<(Vec<TenderSum>, Vec<TenderSum>), StoreError> {
                let sales = sqlx::query_as(SHIFT_SALES)
                    .bind(shift)
                    .fetch_all(&self.$read)
                    .await?;
                let refunds = sqlx::query_as(SHIFT_REFUNDS)
                    .bind(shift)
                    .fetch_all(&self.$read)
                    .await?;
                Ok((sales, refunds))
            }

            async fn shift_owed(&self, shift: i64) -> Result<(i64, i64), StoreError> {
                Ok(sqlx::query_as(SHIFT_OWED)
                    .bind(shift)
                    .fetch_one(&self.$read)
                    .await?)
            }

            async fn refunds_owed(&self) -> Result<Vec<OwedRefund>, StoreError> {
                Ok(sqlx::query_as(REFUNDS_OWED).fetch_all(&self.$read).await?)
            }

            async fn close_shift(
                &self,
                shift: i64,
                counted: i64,
                by: i64,
                at: At,
            ) -> Result<bool, StoreError> {
                let closed = sqlx::query(CLOSE_SHIFT)
                    .bind(shift)
                    .bind(at)
                    .bind(counted)
                    .bind(by)
                    .execute(&self.$write)
                    .await?;
                Ok(closed.rows_affected() == 1)
            }

            async fn seats_checked_in(
                &self,
                booking: BookingId,
            ) -> Result<Vec<String>, StoreError> {
                Ok(sqlx::query_scalar(SEATS_CHECKED_IN)
                    .bind(booking.0)
                    .fetch_all(&self.$read)
                    .await?)
            }

            async fn check_in_counts(&self) -> Result<Vec<(i64, i64)>, StoreError> {
                Ok(sqlx::query_as(CHECK_IN_COUNTS)
                    .fetch_all(&self.$read)
                    .await?)
            }

            async fn prints(&self, booking: BookingId) -> Result<i64, StoreError> {
                Ok(sqlx::query_scalar(PRINTS)
                    .bind(booking.0)
                    .fetch_one(&self.$read)
                    .await?)
            }

            async fn live_holds_of(
                &self,
                customer: CustomerId,
                at: At,
            ) -> Result<Vec<HoldId>, StoreError> {
                let ids: Vec<uuid::Uuid> = sqlx::query_scalar(LIVE_HOLDS_OF)
                    .bind(customer.0)
                    .bind(at)
                    .fetch_all(&self.$read)
                    .await?;
                ids.into_iter()
                    .map(|id| HoldId::try_from(id).map_err(|e| StoreError::Corrupt(e.to_string())))
                    .collect()
            }
        }
    };
}
