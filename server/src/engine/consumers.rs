//! The consumers of booking events: the work that follows a
//! confirmation runs here, after the confirming transaction and outside it. Each consumer applies
//! an event together with the record that it did (keyed by the event id) in one transaction, so
//! an event delivered twice — at least once is all the relay promises — changes nothing the
//! second time.
//!
//! - `tickets` issues the ticket (its signed code) of a confirmed booking;
//! - `notify` queues the customer's messages (the ticket on confirmation, a notice on a refund)
//!   for bookings that have an address; the mail worker sends them;
//! - `sales` adds confirmed bookings and refunds (issued, and owed at the counter for a cancelled
//!   showtime) to the figures per showtime and day (venue time).

use super::Engine;
use crate::booking_events::{BookingEvent, Envelope};
use crate::store::{About, ConsumerEffect, MailKind, Notice};
use app::domain::{BookingId, SalesChannel, Won};
use app::error::InventoryError;

/// The ticket-issue consumer (its Kafka consumer group is `seats-tickets`).
pub const TICKETS: &str = "tickets";
/// The sales-figures consumer (consumer group `seats-sales`).
pub const SALES: &str = "sales";
/// The customer-notification consumer (consumer group `seats-notify`).
pub const NOTIFY: &str = "notify";
/// Every consumer, in the order the in-process delivery calls them.
pub const CONSUMERS: [&str; 3] = [TICKETS, SALES, NOTIFY];

/// Why a message was not applied.
#[derive(Debug, thiserror::Error)]
pub enum ConsumeError {
    /// Not a booking event this build can read: retrying will not help (it is skipped).
    #[error("unreadable event: {0}")]
    Unreadable(String),
    /// The store failed: the same message is tried again.
    #[error(transparent)]
    Store(#[from] InventoryError),
}

/// The day (venue time) an event counts for.
fn day(event: &Envelope) -> chrono::NaiveDate {
    app::format::venue_time(event.occurred_at).date_naive()
}

/// How many of a booking's seats are of each type (`TicketType::ALL`'s order); a booking
/// confirmed before types: every seat adult.
fn seats_by_type(seats: usize, tickets: &[app::domain::SoldSeat]) -> [i64; 4] {
    let mut counts = [0; 4];
    if tickets.is_empty() {
        counts[0] = seats as i64;
    }
    for sold in tickets {
        let at = app::domain::TicketType::ALL
            .iter()
            .position(|t| *t == sold.ticket_type);
        counts[at.unwrap_or(0)] += 1;
    }
    counts
}

/// A refund of `amount` added to the sales figures of its showtime on the event's day.
fn refunded(
    event: &Envelope,
    showtime: app::domain::ShowtimeId,
    channel: SalesChannel,
    amount: Won,
) -> ConsumerEffect {
    ConsumerEffect::Sales {
        showtime,
        day: day(event),
        channel,
        bookings: 0,
        seats: 0,
        by_type: [0; 4],
        revenue: Won::ZERO,
        refunds: 1,
        refunded: amount,
    }
}

/// The customer's refund notice, saying the amount and the seats as the event says them.
fn refund_notice(
    booking: BookingId,
    amount: Won,
    seats: &[String],
    about: About,
) -> ConsumerEffect {
    ConsumerEffect::QueueMail {
        booking,
        kind: MailKind::Refund,
        notice: Notice {
            amount: Some(amount),
            seats: seats.to_vec(),
            about,
        },
    }
}

impl Engine {
    /// What `consumer` does with `event`.
    pub fn consumer_effect(&self, consumer: &str, event: &Envelope) -> ConsumerEffect {
        let booking = BookingId(event.booking_id);
        match &event.event {
            BookingEvent::BookingConfirmed {
                showtime_id,
                seats,
                tickets,
                amount,
                channel,
                ..
            } => match consumer {
                TICKETS => ConsumerEffect::IssueTicket {
                    booking,
                    code: self.ticket_code(booking),
                },
                SALES => ConsumerEffect::Sales {
                    showtime: *showtime_id,
                    day: day(event),
                    channel: *channel,
                    bookings: 1,
                    seats: seats.len() as i64,
                    by_type: seats_by_type(seats.len(), tickets),
                    revenue: *amount,
                    refunds: 0,
                    refunded: Won::ZERO,
                },
                NOTIFY => ConsumerEffect::QueueMail {
                    booking,
                    kind: MailKind::Ticket,
                    notice: Notice::default(),
                },
                _ => ConsumerEffect::Nothing,
            },
            BookingEvent::RefundOwed {
                showtime_id,
                amount,
                seats,
                ..
            } => match consumer {
                SALES => refunded(event, *showtime_id, SalesChannel::BoxOffice, *amount),
                // The customer learns of the cancellation, and where the money is given back.
                NOTIFY => refund_notice(booking, *amount, seats, About::OwedAtCounter),
                _ => ConsumerEffect::Nothing,
            },
            BookingEvent::RefundIssued {
                showtime_id,
                amount,
                channel,
                seats,
                ..
            } => match consumer {
                SALES => refunded(event, *showtime_id, *channel, *amount),
                // What this refund moved, not what the booking holds when the message goes.
                NOTIFY => refund_notice(booking, *amount, seats, About::Booking),
                _ => ConsumerEffect::Nothing,
            },
            // The customer gets the ticket of the new seats, saying which were given back. An
            // exchange changes no figure (same categories, same amount), and each seat's ticket
            // code follows the booking's seats.
            BookingEvent::SeatsExchanged { released, .. } => match consumer {
                NOTIFY => ConsumerEffect::QueueMail {
                    booking,
                    kind: MailKind::Ticket,
                    notice: Notice {
                        amount: None,
                        seats: released.clone(),
                        about: About::Exchange,
                    },
                },
                _ => ConsumerEffect::Nothing,
            },
            // Nothing follows a failure for these consumers (its refund is counted when it is
            // issued); payment events never leave the outbox.
            BookingEvent::BookingFailed { .. }
            | BookingEvent::PaymentSucceeded { .. }
            | BookingEvent::RefundDue { .. } => ConsumerEffect::Nothing,
        }
    }

    /// Applies one message to `consumer`; `Ok(false)` when it had been applied before.
    pub async fn consume(&self, consumer: &str, payload: &[u8]) -> Result<bool, ConsumeError> {
        let event = Envelope::parse(payload).map_err(ConsumeError::Unreadable)?;
        let effect = self.consumer_effect(consumer, &event);
        let applied = self
            .store()
            .apply_event(consumer, &event.event_id, &effect)
            .await
            .map_err(InventoryError::from)?;
        if applied {
            tracing::debug!(consumer, event = %event.event_id, kind = event.event.kind(), "event applied");
        } else {
            tracing::info!(consumer, event = %event.event_id, kind = event.event.kind(), "event seen before; nothing changed");
        }
        Ok(applied)
    }
}
