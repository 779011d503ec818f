//! Check-in at the door: its transaction, written once for both dialects, and what a scan
//! came to.

use super::*;
use app::domain::SeatCode;

/// The answer of `CHECK_IN`, else `FIRST_SCAN`, with the seats in.
pub(super) fn scanned(
    admitted: Vec<SeatCode>,
    first: Option<(At, String)>,
    inside: i64,
) -> Result<Scanned, StoreError> {
    match (admitted.is_empty(), first) {
        (false, _) => Ok(Scanned::CheckedIn { admitted, inside }),
        (true, Some((at, gate))) => Ok(Scanned::Already(at.0, gate, inside)),
        (true, None) => Err(StoreError::Corrupt(
            "a check-in neither inserted nor found".into(),
        )),
    }
}

impl Store {
    /// Checks `asked` seats of a confirmed, unrefunded booking in, each once: the booking's seats
    /// as they are now, under its lock (`seats_to_admit`; shared on PostgreSQL, so a refund and a
    /// check-in of one booking go one after the other), then one row per seat. Of two scans of a
    /// seat at once, one inserts; the other does nothing (PostgreSQL: it waits for the first to
    /// commit; SQLite: the single writer). A scan that lets none in answers the first's time and
    /// gate.
    pub async fn check_in_ticket(
        &self,
        booking: BookingId,
        showtime: ShowtimeId,
        asked: &[SeatCode],
        gate: &str,
        staff: Option<i64>,
        at: At,
    ) -> Result<Scanned, StoreError> {
        let mut tx = self.begin().await?;
        let now = scannable(&mut tx, booking).await?;
        let seats = match seats_to_admit(now, asked) {
            Ok(seats) => seats,
            Err(answer) => return Ok(answer),
        };
        let mut admitted = Vec::new();
        for seat in &seats {
            if check_in_seat(&mut tx, booking, seat, showtime, gate, staff, at).await? {
                admitted.push(seat.clone());
            }
        }
        let first = match admitted.is_empty() {
            true => first_scan(&mut tx, booking, seats.first()).await?,
            false => None,
        };
        let inside = seats_in(&mut tx, booking).await?;
        tx.commit().await?;
        scanned(admitted, first, inside)
    }
}

/// Whether the booking is refunded (or its showtime cancelled), and its seats now, if it is a
/// confirmed booking. A check-in takes the booking's row (shared, on PostgreSQL): a refund of
/// it waits, or is waited for.
async fn scannable(
    tx: &mut Tx,
    booking: BookingId,
) -> Result<Option<(bool, SeatList)>, StoreError> {
    // What a scan may check in: a confirmed booking, refunded or not (or its showtime cancelled).
    let scannable = "select b.refunded_at is not null
                                or exists (select 1 from showtime st
                                            where st.id = b.showtime_id
                                              and st.cancelled_at is not null),
                                b.seats
                           from booking b where b.id = $1 and b.status = 'CONFIRMED'";
    let scannable = format!("{scannable} {}", tx.row_lock("for share of b"));
    Ok(on!(tx, c => {
        sqlx::query_as(&scannable).bind(booking.0).fetch_optional(c).await?
    }))
}

/// Checks one seat in; whether this scan was the first.
async fn check_in_seat(
    tx: &mut Tx,
    booking: BookingId,
    seat: &SeatCode,
    showtime: ShowtimeId,
    gate: &str,
    staff: Option<i64>,
    at: At,
) -> Result<bool, StoreError> {
    let check_in = "insert into seat_check_in (booking_id, seat_code, showtime_id, gate,
                                                   staff_id, checked_in_at)
                        values ($1, $2, $3, $4, $5, $6)
                        on conflict (booking_id, seat_code) do nothing returning seat_code";
    let inserted: Option<String> = on!(tx, c => {
        sqlx::query_scalar(check_in)
            .bind(booking.0)
            .bind(seat.as_str())
            .bind(showtime.get())
            .bind(gate)
            .bind(staff)
            .bind(at)
            .fetch_optional(c)
            .await?
    });
    Ok(inserted.is_some())
}

/// The first scan of `seat` of the booking: when and at which gate.
async fn first_scan(
    tx: &mut Tx,
    booking: BookingId,
    seat: Option<&SeatCode>,
) -> Result<Option<(At, String)>, StoreError> {
    // When and where seat `$2` (the booking's first seat, for the booking's code) was let in.
    let first_scan = "select checked_in_at, gate from seat_check_in
                           where booking_id = $1 and seat_code = $2";
    Ok(on!(tx, c => {
        sqlx::query_as(first_scan).bind(booking.0).bind(seat.map(SeatCode::as_str)).fetch_optional(c).await?
    }))
}

/// How many of the booking's seats are in.
async fn seats_in(tx: &mut Tx, booking: BookingId) -> Result<i64, StoreError> {
    let seats_in = "select cast(count(*) as bigint) from seat_check_in where booking_id = $1";
    Ok(on!(tx, c => {
        sqlx::query_scalar(seats_in).bind(booking.0).fetch_one(c).await?
    }))
}
