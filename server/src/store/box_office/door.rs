//! Check-in at the door: its transaction, written once for both dialects, and what a scan
//! came to.

use super::*;

/// The answer of `CHECK_IN`, else `FIRST_SCAN`, with the seats in.
pub(super) fn scanned(
    admitted: Vec<String>,
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

/// Checks `asked` seats of a booking in (see [`BoxOffice::check_in`]): the booking's seats as
/// they are now, under its lock (`seats_to_admit`), then one row per seat. Of two scans of a
/// seat at once, one inserts; the other does nothing (PostgreSQL: it waits for the first to
/// commit; SQLite: the single writer).
pub(super) async fn check_in<T: CounterSteps>(
    mut tx: T,
    booking: BookingId,
    showtime: ShowtimeId,
    asked: &[String],
    gate: &str,
    staff: Option<i64>,
    at: At,
) -> Result<Scanned, StoreError> {
    let now = tx.scannable(booking).await?;
    let seats = match seats_to_admit(now, asked) {
        Ok(seats) => seats,
        Err(answer) => return Ok(answer),
    };
    let mut admitted = Vec::new();
    for seat in &seats {
        let inserted = tx
            .check_in_seat(booking, seat, showtime, gate, staff, at)
            .await?;
        admitted.extend(inserted);
    }
    let first = match admitted.is_empty() {
        true => tx.first_scan(booking, seats.first()).await?,
        false => None,
    };
    let inside = tx.seats_in(booking).await?;
    tx.commit().await?;
    scanned(admitted, first, inside)
}
