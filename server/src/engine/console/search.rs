//! The console's booking search: by number, ticket code, sold seat or the customer's e-mail
//! address (audited), with the booking's payments and events.

use super::super::staff::Said;
use super::super::*;
use crate::store::BookingFilter;
use app::domain::{AuditFact, BookingEventLine, BookingFound, SeatCode};
use app::engine::Actor;

/// How many other bookings of one address a search by address names.
const SAME_ADDRESS_LISTED: i64 = 20;

impl Engine {
    /// What `Console::find_booking` answers.
    pub(super) async fn search_booking(
        &self,
        query: &str,
        by: &Actor,
    ) -> Result<BookingFound, InventoryError> {
        let query = query.trim();
        if query.is_empty() || query.len() > 200 {
            return Err(InventoryError::invalid("invalid.booking_query", &[]));
        }
        // An e-mail address: its newest booking, and the numbers of the others.
        let (booking, others) = if query.contains('@') {
            let email =
                app::domain::Email::parse(query).map_err(|r| InventoryError::Invalid(vec![r]))?;
            let found = self
                .store
                .bookings_of_address(email.as_str(), SAME_ADDRESS_LISTED + 1)
                .await?;
            // Whose bookings a member looked up, found or not; the address stays out of the log.
            let said = match found.first() {
                Some(newest) => Said::new(
                    format!("bookings of an e-mail address looked up: {}", newest.0),
                    vec![AuditFact::Booking(newest.0.to_string())],
                ),
                None => Said::new("bookings of an e-mail address looked up: none", vec![]),
            };
            self.audit(by, "address_searched", said).await;
            let mut found = found.into_iter();
            let newest = found.next().ok_or(InventoryError::BookingNotFound)?;
            (newest, found.map(|b| b.reference()).collect())
        } else {
            (self.booking_named_or_seated(query).await?, Vec::new())
        };
        let record = self
            .store
            .bookings(BookingFilter::One(booking))
            .await?
            .pop()
            .ok_or(InventoryError::BookingNotFound)?;
        let events = self
            .store
            .booking_events(booking)
            .await?
            .into_iter()
            .map(|e| BookingEventLine {
                event_type: e.event_type,
                at: e.created_at.0,
                published_at: e.published_at.map(|at| at.0),
            })
            .collect();
        Ok(BookingFound {
            number: booking.reference(),
            checked_in: crate::store::seat_texts(&self.store.seats_checked_in(booking).await?),
            prints: self.store.prints(booking).await?,
            events,
            booking: self.booking_view(record).await?,
            others,
        })
    }

    /// The booking a console search names: "25 G7" (showtime and seat) finds the booking the
    /// sold seat belongs to; anything else names the booking itself (number or ticket code).
    async fn booking_named_or_seated(&self, query: &str) -> Result<BookingId, InventoryError> {
        Ok(match query.split_once(' ') {
            Some((showtime, seat)) if showtime.bytes().all(|b| b.is_ascii_digit()) => {
                let showtime = showtime
                    .parse::<i64>()
                    .ok()
                    .and_then(|id| ShowtimeId::try_from(id).ok())
                    .ok_or_else(|| {
                        InventoryError::invalid("invalid.no_showtime", &[("id", showtime.into())])
                    })?;
                let seat = SeatCode::parse(seat.trim()).map_err(|_| {
                    InventoryError::invalid("invalid.seat_code", &[("seat", seat.trim().into())])
                })?;
                self.store
                    .booking_of_seat(showtime, seat.as_str())
                    .await?
                    .ok_or(InventoryError::BookingNotFound)?
            }
            _ => self.booking_named(query).await?,
        })
    }
}
