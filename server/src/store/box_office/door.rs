//! Check-in at the door: its transaction, written once for both dialects, and what a scan
//! came to.

use super::*;
use app::domain::SeatCode;

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
            let inserted = check_in_seat(&mut tx, booking, seat, showtime, gate, staff, at).await?;
            admitted.extend(inserted);
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
