//! The door: a ticket checked in once per seat, even from two doors at once.

use super::*;

/// How long before its start a showtime's doors open (a door naming no showtime admits it
/// from then to its end).
pub const DOORS_OPEN_BEFORE: chrono::TimeDelta = chrono::TimeDelta::hours(2);

/// Whether the doors of `layout`'s showtime are open at `now`: from [`DOORS_OPEN_BEFORE`] before
/// the start to the end of its running time.
fn doors_open(layout: &crate::store::Layout, now: chrono::DateTime<chrono::Utc>) -> bool {
    let ends = layout.starts_at + chrono::TimeDelta::minutes(i64::from(layout.duration_minutes));
    (layout.starts_at - DOORS_OPEN_BEFORE..=ends).contains(&now)
}

#[async_trait::async_trait]
impl Door for Engine {
    /// Checks a ticket in at the door: each seat once, even from two doors at once. A seat's
    /// ticket lets that seat in; the booking's code lets in every seat not in yet. A door that
    /// names no showtime admits the showtimes whose doors are open: from [`DOORS_OPEN_BEFORE`]
    /// before the start to the end.
    async fn check_in_ticket(
        &self,
        by: &Actor,
        code: &str,
        at: &ScanAt,
    ) -> Result<CheckIn, InventoryError> {
        let staff = Some(by.member.id);
        let gate = at
            .gate
            .as_deref()
            .map(str::trim)
            .filter(|g| !g.is_empty())
            .unwrap_or("main");
        if let Some(why) = app::domain::name_problem("invalid.what.gate", gate, 40) {
            return Err(InventoryError::Invalid(vec![why]));
        }
        let Some(ticket) = self.verify_ticket_ref(code) else {
            return Ok(CheckIn::not_found());
        };
        let booking = ticket.booking;
        let Some(record) = self
            .store
            .bookings(BookingFilter::One(booking))
            .await?
            .pop()
            .filter(|r| r.status == BookingStatus::Confirmed)
        else {
            return Ok(CheckIn::not_found());
        };
        let layout = self.layout(record.showtime).await?;
        let mut answer = CheckIn {
            result: CheckInResult::Ok,
            booking_id: Some(booking),
            showtime_id: Some(record.showtime),
            movie_title: Some(layout.movie_title.clone()),
            hall_name: Some(layout.hall_name.clone()),
            starts_at: Some(layout.starts_at),
            seats: crate::store::seat_texts(&record.seats),
            // What the code is for, whatever became of it: the door names it.
            scanned: match &ticket.seat {
                Some(seat) => vec![seat.clone()],
                None => crate::store::seat_texts(&record.seats),
            },
            ..CheckIn::not_found()
        };
        if record.showtime_cancelled {
            answer.result = CheckInResult::Cancelled;
            return Ok(answer);
        }
        if record.refunded_at.is_some() {
            answer.result = CheckInResult::Refunded;
            return Ok(answer);
        }
        let seats = match &ticket.seat {
            Some(seat) => match record.seats.iter().find(|s| s.as_str() == seat) {
                Some(code) => vec![code.clone()],
                // A seat given back or exchanged since: its ticket is no longer one.
                None => {
                    answer.result = self.seat_left(booking, seat).await?;
                    return Ok(answer);
                }
            },
            None => record.seats.clone(),
        };
        let now = self.clock.now().unwrap_or_else(chrono::Utc::now);
        let admits = match at.showtime_id {
            Some(showtime) => showtime == record.showtime,
            None => doors_open(&layout, now),
        };
        if !admits {
            answer.result = CheckInResult::WrongShowtime;
            return Ok(answer);
        }
        match self
            .store
            .check_in_ticket(booking, record.showtime, &seats, gate, staff, self.now_at())
            .await?
        {
            Scanned::CheckedIn { admitted, inside } => {
                answer.check_id = record
                    .tickets
                    .iter()
                    .filter(|t| {
                        t.ticket_type.needs_proof() && admitted.iter().any(|a| a.as_str() == t.seat)
                    })
                    .cloned()
                    .collect();
                answer.admitted = crate::store::seat_texts(&admitted);
                answer.checked_in = inside.max(0) as usize;
            }
            Scanned::Already(first_at, first_gate, inside) => {
                answer.result = CheckInResult::AlreadyCheckedIn;
                answer.first_scan_at = Some(first_at);
                answer.first_scan_gate = Some(first_gate);
                answer.checked_in = inside.max(0) as usize;
            }
            // Refunded (or cancelled) since it was read above.
            Scanned::Refunded => answer.result = CheckInResult::Refunded,
            Scanned::NotFound => return Ok(CheckIn::not_found()),
        }
        Ok(answer)
    }
}

impl Engine {
    /// How `seat`, no longer the booking's, left it: as the booking last gave it back (a seat
    /// refunded, sold again to it by an exchange, then exchanged away, was exchanged); a booking
    /// that gave seats back before it kept them: `Refunded` when a refund at the counter gave it
    /// back, else `Exchanged` (the only other way a seat leaves a standing booking).
    pub(crate) async fn seat_left(
        &self,
        booking: BookingId,
        seat: &str,
    ) -> Result<CheckInResult, InventoryError> {
        let record = self.booking_record(booking).await?;
        if let Some(last) = record.given_back.iter().rev().find(|s| s.seat == seat) {
            return Ok(match last.state {
                app::domain::GivenBack::Refunded => CheckInResult::Refunded,
                app::domain::GivenBack::Exchanged => CheckInResult::Exchanged,
            });
        }
        let refunded = self.store.seats_refunded(booking).await?;
        Ok(match refunded.iter().any(|s| s.as_str() == seat) {
            true => CheckInResult::Refunded,
            false => CheckInResult::Exchanged,
        })
    }

    /// Tickets checked in per showtime (the operator's door counts).
    pub async fn check_in_counts(&self) -> Result<Vec<(i64, i64)>, InventoryError> {
        Ok(self.store.check_in_counts().await?)
    }
}
