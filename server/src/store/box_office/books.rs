//! The box office's other reads and writes: booking numbers, a booking's events, shifts, prints,
//! check-in counts, seats refunded, refunds owed, a clerk's live holds.

use super::*;
use app::domain::{SeatCode, Won};

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
        // A booking's events, oldest first, and when the relay published each.
        let booking_events = "select event_type, created_at, published_at from outbox
     where aggregate_id = $1 order by id";
        Ok(on!(&mut self.reader().await?, c => {
            sqlx::query_as(booking_events).bind(booking.0).fetch_all(c).await?
        }))
    }

    /// The booking that seat `seat` of `showtime` is sold to, if it is sold.
    pub async fn booking_of_seat(
        &self,
        showtime: ShowtimeId,
        seat: &str,
    ) -> Result<Option<BookingId>, StoreError> {
        // The booking a sold seat belongs to.
        let booking_of_seat = "select booking_id from show_seat
     where showtime_id = $1 and seat_code = $2 and status = 'BOOKED'";
        let id: Option<Option<uuid::Uuid>> = on!(&mut self.reader().await?, c => {
            sqlx::query_scalar(booking_of_seat)
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
        float: Won,
        at: At,
    ) -> Result<Option<i64>, StoreError> {
        let open_shift = "insert into shift (clerk_id, register, float_krw, opened_at)
                          values ($1, $2, $3, $4) on conflict do nothing returning id";
        Ok(on!(&mut self.writer().await?, c => {
            sqlx::query_scalar(open_shift)
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
        let shift_refunds = "select method as kind, cast(count(*) as bigint) as count,
                                    cast(0 as bigint) as seats,
                                    cast(coalesce(sum(amount_krw), 0) as bigint) as amount
                               from counter_refund where shift_id = $1 group by method";
        // Sums cast to bigint: PostgreSQL sums a bigint column as numeric.
        let shift_sales = "select tender as kind, cast(count(*) as bigint) as count,
                                  cast(coalesce(sum(seat_count), 0) as bigint) as seats,
                                  cast(coalesce(sum(amount_krw), 0) as bigint) as amount
                             from counter_sale where shift_id = $1 group by tender";
        Ok(on!(&mut self.reader().await?, c => {
            (
                sqlx::query_as(shift_sales).bind(shift).fetch_all(&mut *c).await?,
                sqlx::query_as(shift_refunds).bind(shift).fetch_all(&mut *c).await?,
            )
        }))
    }

    const SHIFT_OWED: &str =
        "select cast(count(*) as bigint), cast(coalesce(sum(amount_krw), 0) as bigint)
                            from counter_refund_owed where sale_shift = $1 and paid_at is null";

    /// How many of a shift's sales are owed back (their showtime cancelled) and not given back
    /// yet, and how much.
    pub async fn shift_owed(&self, shift: i64) -> Result<(i64, Won), StoreError> {
        Ok(on!(&mut self.reader().await?, c => {
            sqlx::query_as(Self::SHIFT_OWED).bind(shift).fetch_one(c).await?
        }))
    }

    /// Counter sales owed back and not given back yet, oldest first.
    pub async fn refunds_owed(&self) -> Result<Vec<OwedRefund>, StoreError> {
        let refunds_owed = "select o.booking_id, o.showtime_id, st.movie_title, st.starts_at,
                                   o.method, o.amount_krw, o.owed_at, c.name as clerk
                              from counter_refund_owed o
                              join showtime st on st.id = o.showtime_id
                              join shift sh on sh.id = o.sale_shift
                              join staff_user c on c.id = sh.clerk_id
                             where o.paid_at is null
                             order by o.owed_at, o.booking_id limit 500";
        Ok(on!(&mut self.reader().await?, c => {
            sqlx::query_as(refunds_owed).fetch_all(c).await?
        }))
    }

    /// Closes an open shift; `false` when it was closed already.
    pub async fn close_shift(
        &self,
        shift: i64,
        counted: Won,
        by: i64,
        at: At,
    ) -> Result<bool, StoreError> {
        let close_shift = "update shift set closed_at = $2, counted_krw = $3, closed_by = $4
                            where id = $1 and closed_at is null";
        let closed = on!(&mut self.writer().await?, c => {
            sqlx::query(close_shift)
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

    const SEATS_CHECKED_IN: &str =
        "select seat_code from seat_check_in where booking_id = $1 order by seat_code";

    /// The seats of a booking that are checked in.
    pub async fn seats_checked_in(&self, booking: BookingId) -> Result<Vec<SeatCode>, StoreError> {
        let codes: Vec<String> = on!(&mut self.reader().await?, c => {
            sqlx::query_scalar(Self::SEATS_CHECKED_IN).bind(booking.0).fetch_all(c).await?
        });
        codes.into_iter().map(stored_seat).collect()
    }

    /// The seats given back at the counter from a booking, by all its refunds (a seat that left
    /// the booking and is not among them was exchanged).
    pub async fn seats_refunded(&self, booking: BookingId) -> Result<Vec<SeatCode>, StoreError> {
        let refunded = "select seats from counter_refund where booking_id = $1";
        let lists: Vec<SeatList> = on!(&mut self.reader().await?, c => {
            sqlx::query_scalar(refunded).bind(booking.0).fetch_all(c).await?
        });
        Ok(lists.into_iter().flat_map(|l| l.0).collect())
    }

    /// Tickets checked in per showtime.
    pub async fn check_in_counts(&self) -> Result<Vec<(i64, i64)>, StoreError> {
        let check_in_counts = "select showtime_id, cast(count(*) as bigint) from seat_check_in
                                group by showtime_id order by showtime_id";
        Ok(on!(&mut self.reader().await?, c => {
            sqlx::query_as(check_in_counts).fetch_all(c).await?
        }))
    }

    /// How many times a booking's ticket was printed.
    pub async fn prints(&self, booking: BookingId) -> Result<i64, StoreError> {
        let prints = "select cast(count(*) as bigint) from ticket_print where booking_id = $1";
        Ok(on!(&mut self.reader().await?, c => {
            sqlx::query_scalar(prints).bind(booking.0).fetch_one(c).await?
        }))
    }

    const LIVE_HOLDS_OF: &str =
        "select hold_id from seat_hold where customer_id = $1 and expires_at >= $2";

    /// The live holds of a customer (a clerk's), in every showtime.
    pub async fn live_holds_of(
        &self,
        customer: CustomerId,
        at: At,
    ) -> Result<Vec<HoldId>, StoreError> {
        let ids: Vec<uuid::Uuid> = on!(&mut self.reader().await?, c => {
            sqlx::query_scalar(Self::LIVE_HOLDS_OF).bind(customer.0).bind(at).fetch_all(c).await?
        });
        ids.into_iter()
            .map(|id| HoldId::try_from(id).map_err(|e| StoreError::Corrupt(e.to_string())))
            .collect()
    }
}
