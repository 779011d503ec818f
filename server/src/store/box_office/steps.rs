//! The statements of the box office's transactions, one step each, in the dialect's
//! transaction. The transactions (`counter.rs`, `returns.rs`, `door.rs`) are written once over
//! these steps; each dialect implements them with `counter_steps!` (the same SQL text and
//! bindings, with its own locks) and adds what it does its own way: the fenced confirm and the
//! outbox append.

use super::*;

/// A dialect's box-office transaction.
pub(super) trait CounterSteps: Send + Sized {
    /// The time a sale is judged at, as the dialect binds it (see `FENCE_NOW`).
    type Fence: Copy + Send + Sync;

    /// Whether shift `shift` is open (its row shared until commit, in PostgreSQL: closing the
    /// shift waits for the sales in flight).
    async fn shift_open(&mut self, shift: i64) -> Result<bool, StoreError>;
    /// Whether the showtime starts more than `cutoff` after `fence` (the database's clock, or
    /// the injected one): a customer may still cancel.
    async fn before_cutoff(
        &mut self,
        showtime: i64,
        fence: Self::Fence,
        cutoff: chrono::Duration,
    ) -> Result<bool, StoreError>;
    /// Whether the showtime is cancelled, and whether its sales are open at `fence` (its row
    /// shared, in PostgreSQL: a cancellation and this transaction go one after the other).
    async fn showtime_state(
        &mut self,
        showtime: i64,
        fence: Self::Fence,
    ) -> Result<Option<(bool, bool)>, StoreError>;
    /// Inserts the sale's booking, CONFIRMED; false when the hold has one already.
    async fn insert_booking(&mut self, sale: &CounterSaleRow, at: At) -> Result<bool, StoreError>;
    /// The fenced confirm of `hold` for `booking`: every seat it holds unexpired at `fence`, or
    /// none.
    async fn confirm(
        &mut self,
        hold: HoldId,
        booking: BookingId,
        fence: Self::Fence,
    ) -> Result<Vec<(String, i64)>, StoreError>;
    async fn insert_sale(&mut self, sale: &CounterSaleRow, at: At) -> Result<(), StoreError>;
    /// Writes a booking event to the outbox.
    async fn append_event(&mut self, event: &Envelope) -> Result<(), StoreError>;
    /// Records print `n` of the booking; false when that print is recorded already.
    async fn insert_print(
        &mut self,
        booking: BookingId,
        n: i64,
        approved_by: Option<i64>,
        audit: &AuditLine,
    ) -> Result<bool, StoreError>;
    /// Writes an audit line (in the transaction of the action it records).
    async fn record_audit(&mut self, line: &AuditLine) -> Result<(), StoreError>;
    /// The booking's facts for a refund or an exchange, its row locked (PostgreSQL).
    async fn refund_facts(&mut self, booking: BookingId)
        -> Result<Option<RefundFacts>, StoreError>;
    /// Whether any seat of the booking was checked in (read after the booking's lock).
    async fn checked_in(&mut self, booking: BookingId) -> Result<bool, StoreError>;
    /// The online payment of the booking, if it was paid online and confirmed: its id and the
    /// amount paid (its row locked, in PostgreSQL, against a cancellation refunding it too).
    async fn paid_online(
        &mut self,
        booking: BookingId,
    ) -> Result<Option<(String, i64)>, StoreError>;
    /// Frees `seats` of the booking: `(code, version, blocked)` of each seat freed.
    async fn release_booked(
        &mut self,
        showtime: i64,
        booking: BookingId,
        seats: &[String],
    ) -> Result<Vec<(String, i64, Option<String>)>, StoreError>;
    /// The booking's seats and amount now (`refunded`: none is left).
    /// The booking's seats now, `amount` less, refunded when `refunded`, and its seats' types
    /// and prices when given (`None`: as they were).
    async fn set_booking_seats(
        &mut self,
        booking: BookingId,
        seats: &[String],
        amount: i64,
        refunded: bool,
        at: At,
        tickets: Option<&[SoldSeat]>,
    ) -> Result<(), StoreError>;
    async fn insert_refund(
        &mut self,
        refund: &CounterRefundRow,
        seats: &[String],
        method: &str,
        amount: i64,
        at: At,
    ) -> Result<(), StoreError>;
    /// Marks a refund owed (a cancelled showtime's counter sale) paid, in `shift`.
    async fn pay_owed(&mut self, booking: BookingId, at: At, shift: i64) -> Result<(), StoreError>;
    /// CONFIRMED → REFUND for the payment; false when it is not CONFIRMED (being refunded).
    async fn mark_payment_refund(&mut self, payment_id: &str) -> Result<bool, StoreError>;
    /// Deletes a hold used up by an exchange.
    async fn delete_hold(&mut self, hold: HoldId) -> Result<(), StoreError>;
    /// Whether the booking is refunded (or its showtime cancelled), and its seats now, if it is
    /// a confirmed booking (its row shared, in PostgreSQL: a refund of it waits).
    async fn scannable(
        &mut self,
        booking: BookingId,
    ) -> Result<Option<(bool, SeatList)>, StoreError>;
    /// Checks one seat in; its code if this scan was the first.
    async fn check_in_seat(
        &mut self,
        booking: BookingId,
        seat: &str,
        showtime: ShowtimeId,
        gate: &str,
        staff: Option<i64>,
        at: At,
    ) -> Result<Option<String>, StoreError>;
    /// The first scan of `seat` of the booking: when and at which gate.
    async fn first_scan(
        &mut self,
        booking: BookingId,
        seat: Option<&String>,
    ) -> Result<Option<(At, String)>, StoreError>;
    /// How many of the booking's seats are in.
    async fn seats_in(&mut self, booking: BookingId) -> Result<i64, StoreError>;
    async fn commit(self) -> Result<(), StoreError>;
    async fn rollback(self) -> Result<(), StoreError>;
}

/// The steps whose statements both dialects run alike, for a newtype over the dialect's
/// transaction (`self.0`); `$seat_in` is the dialect's "seat code is in list `$3`". Only
/// statements and their bindings: every decision is in the transactions that call them.
macro_rules! counter_steps {
    (seat_in: $seat_in:literal) => {
        async fn shift_open(&mut self, shift: i64) -> Result<bool, StoreError> {
            let open: Option<i64> = sqlx::query_scalar(&format!("{SHIFT_OPEN}{LOCK_SHIFT}"))
                .bind(shift)
                .fetch_optional(&mut *self.0)
                .await?;
            Ok(open.is_some())
        }

        async fn before_cutoff(
            &mut self,
            showtime: i64,
            fence: Self::Fence,
            cutoff: chrono::Duration,
        ) -> Result<bool, StoreError> {
            let before: Option<bool> = sqlx::query_scalar(&format!(
                "select starts_at > {CUTOFF_NOW} from showtime where id = $1"
            ))
            .bind(showtime)
            .bind(fence)
            .bind(cutoff.num_milliseconds())
            .fetch_optional(&mut *self.0)
            .await?;
            Ok(before.unwrap_or(false))
        }

        async fn showtime_state(
            &mut self,
            showtime: i64,
            fence: Self::Fence,
        ) -> Result<Option<(bool, bool)>, StoreError> {
            Ok(sqlx::query_as(&format!(
                "select cancelled_at is not null, coalesce(sales_close_at, starts_at) > {FENCE_NOW}
                   from showtime where id = $1{LOCK_SHOWTIME}"
            ))
            .bind(showtime)
            .bind(fence)
            .fetch_optional(&mut *self.0)
            .await?)
        }

        async fn insert_booking(
            &mut self,
            sale: &CounterSaleRow,
            at: At,
        ) -> Result<bool, StoreError> {
            let inserted: Option<uuid::Uuid> = sqlx::query_scalar(INSERT_BOOKING)
                .bind(sale.booking.0)
                .bind(sale.hold.showtime_id().get())
                .bind(sale.hold.as_uuid())
                .bind(sale.customer.0)
                .bind(SeatList(sale.seats.clone()))
                .bind(sale.amount)
                .bind(at)
                .bind(crate::store::write_tickets(&sale.tickets))
                .bind(sale.email.as_deref())
                .bind(sale.language.as_deref())
                .fetch_optional(&mut *self.0)
                .await?;
            Ok(inserted.is_some())
        }

        async fn insert_sale(&mut self, sale: &CounterSaleRow, at: At) -> Result<(), StoreError> {
            sqlx::query(INSERT_SALE)
                .bind(sale.booking.0)
                .bind(sale.shift)
                .bind(sale.tender.as_str())
                .bind(sale.amount)
                .bind(sale.tendered)
                .bind(sale.card_reference.as_deref())
                .bind(sale.approved_by)
                .bind(at)
                .bind(sale.seats.len() as i32)
                .execute(&mut *self.0)
                .await?;
            Ok(())
        }

        async fn insert_print(
            &mut self,
            booking: BookingId,
            n: i64,
            approved_by: Option<i64>,
            audit: &AuditLine,
        ) -> Result<bool, StoreError> {
            let inserted: Option<i32> = sqlx::query_scalar(RECORD_PRINT)
                .bind(booking.0)
                .bind(i32::try_from(n).unwrap_or(i32::MAX))
                .bind(audit.staff_id)
                .bind(approved_by)
                .bind(audit.at)
                .fetch_optional(&mut *self.0)
                .await?;
            Ok(inserted.is_some())
        }

        async fn record_audit(&mut self, line: &AuditLine) -> Result<(), StoreError> {
            sqlx::query(RECORD_ACTION)
                .bind(line.at)
                .bind(line.staff_id)
                .bind(&line.staff_name)
                .bind(line.action)
                .bind(&line.detail)
                .bind(line.address.as_deref())
                .bind(crate::store::facts_json(&line.facts))
                .execute(&mut *self.0)
                .await?;
            Ok(())
        }

        async fn refund_facts(
            &mut self,
            booking: BookingId,
        ) -> Result<Option<RefundFacts>, StoreError> {
            Ok(sqlx::query_as(&format!("{REFUND_FACTS}{LOCK_BOOKING}"))
                .bind(booking.0)
                .fetch_optional(&mut *self.0)
                .await?)
        }

        async fn checked_in(&mut self, booking: BookingId) -> Result<bool, StoreError> {
            Ok(sqlx::query_scalar(CHECKED_IN)
                .bind(booking.0)
                .fetch_one(&mut *self.0)
                .await?)
        }

        async fn paid_online(
            &mut self,
            booking: BookingId,
        ) -> Result<Option<(String, i64)>, StoreError> {
            Ok(sqlx::query_as(&format!("{PAID_ONLINE}{LOCK_PAYMENT}"))
                .bind(booking.0)
                .fetch_optional(&mut *self.0)
                .await?)
        }

        async fn release_booked(
            &mut self,
            showtime: i64,
            booking: BookingId,
            seats: &[String],
        ) -> Result<Vec<(String, i64, Option<String>)>, StoreError> {
            Ok(sqlx::query_as(&format!(
                "{RELEASE_BOOKED} and seat_code {} {RETURNING}",
                $seat_in
            ))
            .bind(showtime)
            .bind(booking.0)
            .bind(SeatList(seats.to_vec()))
            .fetch_all(&mut *self.0)
            .await?)
        }

        async fn set_booking_seats(
            &mut self,
            booking: BookingId,
            seats: &[String],
            amount: i64,
            refunded: bool,
            at: At,
            tickets: Option<&[SoldSeat]>,
        ) -> Result<(), StoreError> {
            sqlx::query(SET_BOOKING_SEATS)
                .bind(booking.0)
                .bind(SeatList(seats.to_vec()))
                .bind(amount)
                .bind(refunded)
                .bind(at)
                .bind(tickets.and_then(crate::store::write_tickets))
                .execute(&mut *self.0)
                .await?;
            Ok(())
        }

        async fn insert_refund(
            &mut self,
            refund: &CounterRefundRow,
            seats: &[String],
            method: &str,
            amount: i64,
            at: At,
        ) -> Result<(), StoreError> {
            sqlx::query(INSERT_REFUND)
                .bind(refund.booking.0)
                .bind(refund.shift)
                .bind(SeatList(seats.to_vec()))
                .bind(method)
                .bind(amount)
                .bind(refund.approved_by)
                .bind(at)
                .execute(&mut *self.0)
                .await?;
            Ok(())
        }

        async fn pay_owed(
            &mut self,
            booking: BookingId,
            at: At,
            shift: i64,
        ) -> Result<(), StoreError> {
            sqlx::query(PAY_OWED)
                .bind(booking.0)
                .bind(at)
                .bind(shift)
                .execute(&mut *self.0)
                .await?;
            Ok(())
        }

        async fn mark_payment_refund(&mut self, payment_id: &str) -> Result<bool, StoreError> {
            let marked = sqlx::query(
                "update payment set outcome = 'REFUND'
                  where provider_payment_id = $1 and outcome = 'CONFIRMED'",
            )
            .bind(payment_id)
            .execute(&mut *self.0)
            .await?;
            Ok(marked.rows_affected() == 1)
        }

        async fn delete_hold(&mut self, hold: HoldId) -> Result<(), StoreError> {
            sqlx::query("delete from seat_hold where showtime_id = $1 and hold_id = $2")
                .bind(hold.showtime_id().get())
                .bind(hold.as_uuid())
                .execute(&mut *self.0)
                .await?;
            Ok(())
        }

        async fn scannable(
            &mut self,
            booking: BookingId,
        ) -> Result<Option<(bool, SeatList)>, StoreError> {
            Ok(sqlx::query_as(&format!("{SCANNABLE}{LOCK_SCANNED}"))
                .bind(booking.0)
                .fetch_optional(&mut *self.0)
                .await?)
        }

        async fn check_in_seat(
            &mut self,
            booking: BookingId,
            seat: &str,
            showtime: ShowtimeId,
            gate: &str,
            staff: Option<i64>,
            at: At,
        ) -> Result<Option<String>, StoreError> {
            Ok(sqlx::query_scalar(CHECK_IN)
                .bind(booking.0)
                .bind(seat)
                .bind(showtime.get())
                .bind(gate)
                .bind(staff)
                .bind(at)
                .fetch_optional(&mut *self.0)
                .await?)
        }

        async fn first_scan(
            &mut self,
            booking: BookingId,
            seat: Option<&String>,
        ) -> Result<Option<(At, String)>, StoreError> {
            Ok(sqlx::query_as(FIRST_SCAN)
                .bind(booking.0)
                .bind(seat)
                .fetch_optional(&mut *self.0)
                .await?)
        }

        async fn seats_in(&mut self, booking: BookingId) -> Result<i64, StoreError> {
            Ok(sqlx::query_scalar(SEATS_IN)
                .bind(booking.0)
                .fetch_one(&mut *self.0)
                .await?)
        }

        async fn commit(self) -> Result<(), StoreError> {
            Ok(self.0.commit().await?)
        }

        async fn rollback(self) -> Result<(), StoreError> {
            Ok(self.0.rollback().await?)
        }
    };
}
