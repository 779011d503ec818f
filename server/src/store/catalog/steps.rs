//! The statements of the catalog's transactions (making a hall, scheduling a showtime,
//! taking seats off sale, cancelling a showtime), one step each, in the dialect's transaction. The transactions (`changes.rs`) are
//! written once over them; each dialect implements them with `catalog_steps!` (the same SQL
//! text, its own locks) and its own outbox append.

use super::*;

/// A dialect's catalog transaction.
pub(super) trait CatalogSteps: Send + Sized {
    /// Inserts a hall; its id, or `None` when a hall has its name.
    async fn insert_hall(&mut self, hall: &NewHall) -> Result<Option<i64>, StoreError>;
    async fn insert_category(
        &mut self,
        hall: i64,
        category: &PriceCategory,
    ) -> Result<(), StoreError>;
    /// Inserts the hall's seats (the dialect's own way: arrays, or one statement each).
    async fn insert_hall_seats(
        &mut self,
        hall: i64,
        seats: &[LayoutSeat],
    ) -> Result<(), StoreError>;
    /// Inserts a showtime's row; its id.
    async fn insert_showtime(&mut self, new: &NewShowtime) -> Result<i64, StoreError>;
    async fn insert_price(
        &mut self,
        showtime: i64,
        category: &str,
        price: i64,
    ) -> Result<(), StoreError>;
    /// The showtime's prices of the ticket types it sells besides adult (its own, else its
    /// hall's defaults).
    async fn insert_ticket_prices(
        &mut self,
        new: &NewShowtime,
        showtime: i64,
    ) -> Result<(), StoreError>;
    /// The showtime's seats, one per seat of its hall.
    async fn insert_show_seats(&mut self, showtime: i64, hall: i64) -> Result<(), StoreError>;
    /// Whether seat `code` is free at `now` (its row locked, in PostgreSQL).
    async fn seat_free(
        &mut self,
        showtime: ShowtimeId,
        code: &str,
        now: At,
    ) -> Result<bool, StoreError>;
    /// Puts a free seat on (`None`) or off (`Some(house | killed)`) public sale; its version.
    async fn set_blocked(
        &mut self,
        showtime: ShowtimeId,
        code: &str,
        blocked: Option<&str>,
    ) -> Result<i64, StoreError>;
    /// Marks the showtime cancelled at `at`; false when it was already (or does not exist).
    async fn mark_cancelled(&mut self, showtime: ShowtimeId, at: At) -> Result<bool, StoreError>;
    async fn showtime_exists(&mut self, showtime: ShowtimeId) -> Result<bool, StoreError>;
    /// Frees every seat held in the showtime: `(code, version, blocked)` of each.
    async fn release_held(
        &mut self,
        showtime: ShowtimeId,
    ) -> Result<Vec<(String, i64, Option<String>)>, StoreError>;
    /// The showtime's bookings paid online.
    async fn paid_sales(&mut self, showtime: ShowtimeId) -> Result<Vec<PaidSale>, StoreError>;
    /// CONFIRMED → REFUND for the payment; false when it is not CONFIRMED any more.
    async fn mark_refund(&mut self, payment_id: &str) -> Result<bool, StoreError>;
    /// The showtime's cash and card sales at the counter not refunded (their bookings locked,
    /// in PostgreSQL).
    async fn owed_sales(&mut self, showtime: ShowtimeId) -> Result<Vec<OwedSale>, StoreError>;
    /// Records a counter sale as owed back at the counter.
    async fn owe_refund(
        &mut self,
        sale: &OwedSale,
        showtime: ShowtimeId,
        at: At,
    ) -> Result<(), StoreError>;
    /// Writes a booking event to the outbox.
    async fn append_event(&mut self, event: &Envelope) -> Result<(), StoreError>;
    async fn commit(self) -> Result<(), StoreError>;
    async fn rollback(self) -> Result<(), StoreError>;
}

/// The steps whose statements both dialects run alike, for a newtype over the dialect's
/// transaction (`self.0`); `$seat_lock` and `$booking_lock` are the dialect's row locks. Only
/// statements and their bindings: every decision is in `changes.rs`.
macro_rules! catalog_steps {
    (seat_lock: $seat_lock:literal, booking_lock: $booking_lock:literal) => {
        async fn insert_hall(&mut self, hall: &NewHall) -> Result<Option<i64>, StoreError> {
            Ok(sqlx::query_scalar(
                "insert into hall (name, best_seat) values ($1, $2)
                 on conflict do nothing returning id",
            )
            .bind(&hall.name)
            .bind(&hall.best_seat)
            .fetch_optional(&mut *self.0)
            .await?)
        }

        async fn insert_category(
            &mut self,
            hall: i64,
            category: &PriceCategory,
        ) -> Result<(), StoreError> {
            sqlx::query(NEW_CATEGORY)
                .bind(hall)
                .bind(&category.code)
                .bind(&category.name)
                .bind(category.price)
                .execute(&mut *self.0)
                .await?;
            for (ticket_type, price) in category.ticket_prices.iter() {
                sqlx::query(NEW_HALL_TICKET_PRICE)
                    .bind(hall)
                    .bind(&category.code)
                    .bind(ticket_type.as_str())
                    .bind(price)
                    .execute(&mut *self.0)
                    .await?;
            }
            Ok(())
        }

        async fn insert_ticket_prices(
            &mut self,
            new: &NewShowtime,
            showtime: i64,
        ) -> Result<(), StoreError> {
            let categories: Vec<CategoryRow> = sqlx::query_as(CATEGORIES)
                .bind(new.hall_id)
                .fetch_all(&mut *self.0)
                .await?;
            let mut categories: Vec<PriceCategory> =
                categories.into_iter().map(CategoryRow::category).collect();
            let defaults = sqlx::query_as(HALL_TICKET_PRICES).bind(new.hall_id);
            priced(&mut categories, defaults.fetch_all(&mut *self.0).await?);
            // The engine refused a schedule whose table is incomplete; here it is the table.
            let table = new
                .ticket_price_table(&categories)
                .map_err(|r| StoreError::Corrupt(format!("ticket prices: {r}")))?;
            for (category, ticket_type, price) in table {
                sqlx::query(NEW_TICKET_PRICE)
                    .bind(showtime)
                    .bind(category)
                    .bind(ticket_type.as_str())
                    .bind(price)
                    .execute(&mut *self.0)
                    .await?;
            }
            Ok(())
        }

        async fn insert_showtime(&mut self, new: &NewShowtime) -> Result<i64, StoreError> {
            Ok(sqlx::query_scalar(NEW_SHOWTIME)
                .bind(new.hall_id)
                .bind(new.title.trim())
                .bind(At(new.starts_at))
                .bind(new.duration_minutes)
                .bind(new.sales_open_at.map(At))
                .bind(new.sales_close_at.map(At))
                .bind(new.hot_sale)
                .bind(new.accessible_release_at.map(At))
                .fetch_one(&mut *self.0)
                .await?)
        }

        async fn insert_price(
            &mut self,
            showtime: i64,
            category: &str,
            price: i64,
        ) -> Result<(), StoreError> {
            let row = sqlx::query(NEW_PRICE)
                .bind(showtime)
                .bind(category)
                .bind(price);
            row.execute(&mut *self.0).await?;
            Ok(())
        }

        async fn insert_show_seats(&mut self, showtime: i64, hall: i64) -> Result<(), StoreError> {
            let seats = sqlx::query(NEW_SHOW_SEATS).bind(showtime).bind(hall);
            seats.execute(&mut *self.0).await?;
            Ok(())
        }

        async fn seat_free(
            &mut self,
            showtime: ShowtimeId,
            code: &str,
            now: At,
        ) -> Result<bool, StoreError> {
            let free: Option<bool> = sqlx::query_scalar(concat!(
                "select status = 'AVAILABLE' or (status = 'HELD' and hold_expires_at < $3)
                   from show_seat where showtime_id = $1 and seat_code = $2 ",
                $seat_lock
            ))
            .bind(showtime.get())
            .bind(code)
            .bind(now)
            .fetch_optional(&mut *self.0)
            .await?;
            Ok(free == Some(true))
        }

        async fn set_blocked(
            &mut self,
            showtime: ShowtimeId,
            code: &str,
            blocked: Option<&str>,
        ) -> Result<i64, StoreError> {
            Ok(sqlx::query_scalar(
                "update show_seat
                    set status = 'AVAILABLE', hold_id = null, customer_id = null,
                        hold_expires_at = null, blocked = $3, version = version + 1
                  where showtime_id = $1 and seat_code = $2
              returning version",
            )
            .bind(showtime.get())
            .bind(code)
            .bind(blocked)
            .fetch_one(&mut *self.0)
            .await?)
        }

        async fn mark_cancelled(
            &mut self,
            showtime: ShowtimeId,
            at: At,
        ) -> Result<bool, StoreError> {
            let marked: Option<i64> = sqlx::query_scalar(MARK_CANCELLED)
                .bind(showtime.get())
                .bind(at)
                .fetch_optional(&mut *self.0)
                .await?;
            Ok(marked.is_some())
        }

        async fn showtime_exists(&mut self, showtime: ShowtimeId) -> Result<bool, StoreError> {
            let known: Option<i64> = sqlx::query_scalar("select id from showtime where id = $1")
                .bind(showtime.get())
                .fetch_optional(&mut *self.0)
                .await?;
            Ok(known.is_some())
        }

        async fn release_held(
            &mut self,
            showtime: ShowtimeId,
        ) -> Result<Vec<(String, i64, Option<String>)>, StoreError> {
            Ok(sqlx::query_as(RELEASE_HELD)
                .bind(showtime.get())
                .fetch_all(&mut *self.0)
                .await?)
        }

        async fn paid_sales(&mut self, showtime: ShowtimeId) -> Result<Vec<PaidSale>, StoreError> {
            Ok(sqlx::query_as(PAID_SALES)
                .bind(showtime.get())
                .fetch_all(&mut *self.0)
                .await?)
        }

        async fn mark_refund(&mut self, payment_id: &str) -> Result<bool, StoreError> {
            let outcome = sqlx::query(OUTCOME_REFUND).bind(payment_id);
            Ok(outcome.execute(&mut *self.0).await?.rows_affected() == 1)
        }

        async fn owed_sales(&mut self, showtime: ShowtimeId) -> Result<Vec<OwedSale>, StoreError> {
            Ok(sqlx::query_as(concat!(
                "select b.id as booking_id, cs.tender as method, b.amount_krw as amount,
                        cs.shift_id
                   from booking b join counter_sale cs on cs.booking_id = b.id
                  where b.showtime_id = $1 and b.status = 'CONFIRMED' and b.refunded_at is null
                    and cs.tender in ('cash', 'card') and b.amount_krw > 0
                  order by b.id ",
                $booking_lock
            ))
            .bind(showtime.get())
            .fetch_all(&mut *self.0)
            .await?)
        }

        async fn owe_refund(
            &mut self,
            sale: &OwedSale,
            showtime: ShowtimeId,
            at: At,
        ) -> Result<(), StoreError> {
            sqlx::query(OWE_REFUND)
                .bind(sale.booking_id)
                .bind(showtime.get())
                .bind(sale.shift_id)
                .bind(&sale.method)
                .bind(sale.amount)
                .bind(at)
                .execute(&mut *self.0)
                .await?;
            Ok(())
        }

        async fn append_event(&mut self, event: &Envelope) -> Result<(), StoreError> {
            append_event(&mut self.0, event).await
        }

        async fn commit(self) -> Result<(), StoreError> {
            Ok(self.0.commit().await?)
        }

        async fn rollback(self) -> Result<(), StoreError> {
            Ok(self.0.rollback().await?)
        }
    };
}
