//! Booking events: what the transactional outbox carries, defined once. Each is written by the
//! transaction that makes it true (`Tx::append_event` in the store) and read back by the
//! workers (payment events) and the consumers (through the relay: Kafka topic `booking-events`,
//! keyed by booking id, or in this process) with an exhaustive `match`.
//!
//! On the wire: JSON, camelCase, an envelope (`version`, `eventId`, `bookingId`, `occurredAt`)
//! and the event's own fields, tagged by `type`:
//! `{"version":1,"eventId":"…","bookingId":"…","occurredAt":"…","type":"BookingConfirmed",
//! "showtimeId":42,"seats":["F5"],"tickets":[{"seat":"F5","type":"ADULT","price":12000}],
//! "amount":12000,"paymentId":"…"}`.

use app::domain::Won;
use app::domain::{SalesChannel, ShowtimeId, SoldSeat};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// The version of the payloads this build writes and reads.
pub const VERSION: u32 = 1;

/// One event with its envelope.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Envelope {
    pub version: u32,
    /// Unique per event (consumers record it to apply an event once); for `PaymentSucceeded`
    /// the gateway's own event id.
    pub event_id: String,
    pub booking_id: uuid::Uuid,
    pub occurred_at: DateTime<Utc>,
    #[serde(flatten)]
    pub event: BookingEvent,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum BookingEvent {
    /// A payment was recorded PAID; the confirmation worker settles it. Stays inside.
    #[serde(rename_all = "camelCase")]
    PaymentSucceeded {
        session_id: String,
        payment_id: Option<String>,
        /// How the charge differs from what was asked, if it does (refunded, not confirmed).
        mismatch: Option<String>,
    },
    /// The booking's seats are sold to it.
    #[serde(rename_all = "camelCase")]
    BookingConfirmed {
        showtime_id: ShowtimeId,
        seats: Vec<String>,
        /// Each seat's ticket type and price (events written before types: none, every seat
        /// adult).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tickets: Vec<SoldSeat>,
        amount: Won,
        payment_id: String,
        /// Where it was sold (events written before channels were kept: online).
        #[serde(default)]
        channel: SalesChannel,
    },
    /// The booking failed; its payment is refunded.
    #[serde(rename_all = "camelCase")]
    BookingFailed {
        showtime_id: ShowtimeId,
        payment_id: String,
        amount: Won,
        reason: String,
    },
    /// A payment must be given back; the refund worker asks the gateway. Stays inside.
    #[serde(rename_all = "camelCase")]
    RefundDue {
        showtime_id: ShowtimeId,
        payment_id: String,
        amount: Won,
        reason: String,
        /// The seats it gives back (events written before: none said).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        seats: Vec<String>,
    },
    /// The gateway refunded a payment.
    #[serde(rename_all = "camelCase")]
    RefundIssued {
        showtime_id: ShowtimeId,
        payment_id: String,
        refund_id: String,
        amount: Won,
        /// The seats it gives back (events written before: none said).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        seats: Vec<String>,
        /// The channel of the sale it gives back (before channels were kept: online).
        #[serde(default)]
        channel: SalesChannel,
    },
    /// A cancelled showtime's counter sale is owed back at the counter (cash or card): from now
    /// on it counts as refunded in the sales figures; the clerk's payout adds nothing more.
    #[serde(rename_all = "camelCase")]
    RefundOwed {
        showtime_id: ShowtimeId,
        /// `cash` or `card`.
        method: String,
        amount: Won,
        /// The seats it gives back (events written before: none said).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        seats: Vec<String>,
    },
    /// Seats of a confirmed booking were exchanged at the counter for others of the same
    /// showtime and price categories (a supervisor approved); the booking keeps its amount.
    #[serde(rename_all = "camelCase")]
    SeatsExchanged {
        showtime_id: ShowtimeId,
        /// Given back.
        released: Vec<String>,
        /// Taken instead.
        booked: Vec<String>,
        /// The booking's seats now.
        seats: Vec<String>,
    },
}

/// The types the relay publishes (payment events stay inside). Literal in the relay's
/// statements too: the partial index `outbox_unpublished` is defined with this list.
pub const PUBLISHED: [&str; 5] = [
    "BookingConfirmed",
    "BookingFailed",
    "RefundIssued",
    "SeatsExchanged",
    "RefundOwed",
];

impl BookingEvent {
    /// The `type` tag (also the outbox's `event_type` column).
    pub fn kind(&self) -> &'static str {
        match self {
            Self::PaymentSucceeded { .. } => "PaymentSucceeded",
            Self::BookingConfirmed { .. } => "BookingConfirmed",
            Self::BookingFailed { .. } => "BookingFailed",
            Self::RefundDue { .. } => "RefundDue",
            Self::RefundIssued { .. } => "RefundIssued",
            Self::SeatsExchanged { .. } => "SeatsExchanged",
            Self::RefundOwed { .. } => "RefundOwed",
        }
    }
}

impl Envelope {
    /// A new event about `booking`, now, with a fresh id.
    pub fn new(booking: uuid::Uuid, event: BookingEvent) -> Self {
        Self::with_id(uuid::Uuid::new_v4().to_string(), booking, event)
    }

    pub fn with_id(event_id: String, booking: uuid::Uuid, event: BookingEvent) -> Self {
        Self {
            version: VERSION,
            event_id,
            booking_id: booking,
            occurred_at: Utc::now(),
            event,
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("events serialise")
    }

    /// Reads a payload, refusing versions this build does not know.
    pub fn parse(payload: &[u8]) -> Result<Self, String> {
        let envelope: Self = serde_json::from_slice(payload).map_err(|e| e.to_string())?;
        if envelope.version != VERSION {
            return Err(format!(
                "payload version {} (this build reads {VERSION})",
                envelope.version
            ));
        }
        Ok(envelope)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_reads_back_what_it_writes_with_its_type_tag_beside_the_envelope() {
        let booking = uuid::Uuid::new_v4();
        let event = Envelope::new(
            booking,
            BookingEvent::BookingConfirmed {
                showtime_id: ShowtimeId::try_from(42).unwrap(),
                seats: vec!["F5".into()],
                tickets: vec![SoldSeat {
                    seat: "F5".into(),
                    ticket_type: app::domain::TicketType::Youth,
                    price: Won::new(9_000),
                }],
                amount: Won::new(9_000),
                payment_id: "pay_1".into(),
                channel: SalesChannel::Online,
            },
        );
        let json: serde_json::Value = serde_json::from_str(&event.to_json()).unwrap();
        assert_eq!(json["type"], "BookingConfirmed");
        assert_eq!(json["tickets"][0]["type"], "YOUTH");
        assert_eq!(json["tickets"][0]["price"], 9_000);
        assert_eq!(json["showtimeId"], 42);
        assert_eq!(json["bookingId"], booking.to_string());
        assert_eq!(json["version"], 1);
        assert_eq!(Envelope::parse(event.to_json().as_bytes()).unwrap(), event);
        assert_eq!(event.event.kind(), "BookingConfirmed");
        assert_eq!(json["channel"], "online");
        // An event written before channels were kept reads as an online sale.
        let mut older = json.clone();
        older.as_object_mut().unwrap().remove("channel");
        assert_eq!(
            Envelope::parse(older.to_string().as_bytes()).unwrap(),
            event
        );
    }

    #[test]
    fn another_version_or_an_unknown_type_is_refused() {
        let booking = uuid::Uuid::new_v4();
        let mut json: serde_json::Value = serde_json::from_str(
            &Envelope::new(
                booking,
                BookingEvent::RefundIssued {
                    showtime_id: ShowtimeId::try_from(1).unwrap(),
                    payment_id: "p".into(),
                    refund_id: "r".into(),
                    amount: Won::new(1),
                    channel: SalesChannel::Online,
                    seats: vec![],
                },
            )
            .to_json(),
        )
        .unwrap();
        json["version"] = 2.into();
        assert!(Envelope::parse(json.to_string().as_bytes()).is_err());
        json["version"] = 1.into();
        json["type"] = "SomethingElse".into();
        assert!(Envelope::parse(json.to_string().as_bytes()).is_err());
    }
}
