//! A check-in's transaction, as both dialects run it.

/// A check-in of `$seats` of a booking in `$tx` (see [`BoxOffice::check_in`]).
macro_rules! check_in {
    ($tx:ident, $booking:expr, $showtime:expr, $seats:expr, $gate:expr, $staff:expr, $at:expr) => {{
        let booking: BookingId = $booking;
        let asked: &[String] = $seats;
        let facts: Option<(bool, SeatList)> =
            sqlx::query_as(&format!("{SCANNABLE}{}", LOCK_SCANNED))
                .bind(booking.0)
                .fetch_optional(&mut *$tx)
                .await?;
        // The booking's seats as they are now, under its lock: a seat refunded or exchanged
        // since the caller read the booking is not let in.
        let seats: Vec<String> = match facts {
            None => return Ok(Scanned::NotFound),
            Some((true, _)) => return Ok(Scanned::Refunded),
            Some((false, now)) => asked
                .iter()
                .filter(|s| now.0.contains(s))
                .cloned()
                .collect(),
        };
        if seats.is_empty() {
            return Ok(Scanned::Refunded);
        }
        let seats = &seats[..];
        // Of two scans of a seat at once, one inserts; the other does nothing (PostgreSQL: it
        // waits for the first to commit; SQLite: the single writer).
        let mut admitted = Vec::new();
        for seat in seats {
            let inserted: Option<String> = sqlx::query_scalar(CHECK_IN)
                .bind(booking.0)
                .bind(seat)
                .bind($showtime.get())
                .bind($gate)
                .bind($staff)
                .bind($at)
                .fetch_optional(&mut *$tx)
                .await?;
            admitted.extend(inserted);
        }
        let first: Option<(At, String)> = match admitted.is_empty() {
            true => {
                sqlx::query_as(FIRST_SCAN)
                    .bind(booking.0)
                    .bind(seats.first())
                    .fetch_optional(&mut *$tx)
                    .await?
            }
            false => None,
        };
        let inside: i64 = sqlx::query_scalar(SEATS_IN)
            .bind(booking.0)
            .fetch_one(&mut *$tx)
            .await?;
        $tx.commit().await?;
        scanned(admitted, first, inside)
    }};
}
