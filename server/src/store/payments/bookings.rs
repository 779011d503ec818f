//! Bookings: one per hold, made at checkout, and read back with their payments.

use super::*;

impl Store {
    /// The booking of `new.hold`, created PENDING by the first call; every later or concurrent
    /// call gets the same one. An address (and language) given again replaces the one before
    /// while the booking is PENDING, no payment of it was received and the ticket types are the
    /// same (other types are refused by the caller, which changes nothing then).
    pub async fn booking_for_hold(&self, new: &NewBooking) -> Result<BookingRow, StoreError> {
        let insert = "insert into booking (id, showtime_id, hold_id, customer_id, seats,
                                           amount_krw, created_at, updated_at, email, language,
                                           tickets)
             values ($1, $2, $3, $4, $5, $6, coalesce($7, current_timestamp),
                     coalesce($7, current_timestamp), $8, $9, $10)
             on conflict (hold_id) do update
                set email = coalesce(excluded.email, booking.email),
                    language = coalesce(excluded.language, booking.language)
              where booking.status = 'PENDING' and excluded.email is not null
                and (booking.tickets is null or booking.tickets = excluded.tickets)
                and not exists (select 1 from payment p
                                 where p.booking_id = booking.id and p.status = 'PAID')";
        let of_hold = "select id, status, amount_krw, tickets from booking where hold_id = $1";
        let seats = List(new.seats.clone());
        let row: StoredBookingOfHold = on!(&mut self.writer().await?, c => {
            sqlx::query(insert)
                .bind(new.id.0)
                .bind(new.hold.showtime_id().get())
                .bind(new.hold.as_uuid())
                .bind(new.customer.0)
                .bind(seats)
                .bind(new.amount)
                .bind(Moment(None))
                .bind(new.email.as_deref())
                .bind(new.language.as_deref())
                .bind(crate::store::write_list(&new.tickets))
                .execute(&mut *c)
                .await?;
            sqlx::query_as(of_hold).bind(new.hold.as_uuid()).fetch_one(&mut *c).await?
        });
        Ok(row.into())
    }

    /// Bookings with their payments (oldest first), newest first.
    pub async fn bookings(&self, filter: BookingFilter) -> Result<Vec<BookingRecord>, StoreError> {
        let payments = "select status, amount_krw, payment_url, session_expires_at, updated_at
                          from payment where booking_id = $1 order by created_at";
        let select = filter.select();
        on!(&mut self.reader().await?, c => {
            let rows: Vec<StoredBooking> =
                sqlx::query_as(&select).bind(filter.key()).fetch_all(&mut *c).await?;
            let mut out = Vec::with_capacity(rows.len());
            for row in rows {
                let paid = sqlx::query_as(payments).bind(row.id).fetch_all(&mut *c).await?;
                out.push(row.record(paid));
            }
            Ok(out)
        })
    }
}
