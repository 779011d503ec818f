//! The box office and the door: shifts at a register, counter sales and their tenders, refunds
//! at the counter with a supervisor's approval, and ticket check-in.

use super::{BookingId, HoldId, SeatChange, ShowtimeId, StaffRole, Won};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// Who may sell at the counter (and an operator).
pub const COUNTER_ROLES: [StaffRole; 2] = [StaffRole::Clerk, StaffRole::Supervisor];
/// Who approves refunds, complimentary sales and reprints (and an operator).
pub const APPROVER_ROLES: [StaffRole; 1] = [StaffRole::Supervisor];

/// How a counter sale is paid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tender {
    /// Cash in the drawer: the amount tendered is recorded and the change given.
    Cash,
    /// A card on the counter's own terminal (not connected to us): its reference is recorded.
    Card,
    /// Complimentary: price 0, approved by a supervisor, counted apart.
    Comp,
}

impl Tender {
    pub const ALL: [Tender; 3] = [Self::Cash, Self::Card, Self::Comp];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Cash => "cash",
            Self::Card => "card",
            Self::Comp => "comp",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.as_str() == text)
    }
}

/// A supervisor's approval given at the counter: their name and kiosk PIN.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Approval {
    pub supervisor: String,
    pub pin: String,
}

/// A clerk's shift at a register.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Shift {
    pub id: i64,
    pub clerk: String,
    pub register: String,
    /// The cash in the drawer at opening, in won.
    pub float: Won,
    #[serde(deserialize_with = "super::rfc3339::deserialize")]
    pub opened_at: DateTime<Utc>,
    #[serde(default, deserialize_with = "super::rfc3339::deserialize_option")]
    pub closed_at: Option<DateTime<Utc>>,
    /// The cash counted at closing.
    pub counted: Option<Won>,
    pub closed_by: Option<String>,
    pub figures: ShiftFigures,
}

/// What a shift took and gave back, per tender.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ShiftFigures {
    pub cash_sales: i64,
    pub cash_amount: Won,
    pub card_sales: i64,
    pub card_amount: Won,
    /// Complimentary sales (price 0) and their seats.
    pub comp_sales: i64,
    pub comp_seats: i64,
    pub cash_refunds: i64,
    pub cash_refunded: Won,
    /// Refunds of card and online sales (not from the drawer).
    pub other_refunds: i64,
    pub other_refunded: Won,
    /// Sales of this shift whose showtime was cancelled, owed back at the counter and not
    /// given back yet.
    #[serde(default)]
    pub owed_refunds: i64,
    #[serde(default)]
    pub owed_amount: Won,
}

impl ShiftFigures {
    /// Float + cash sales − cash refunds.
    pub fn expected_cash(&self, float: Won) -> Won {
        float + self.cash_amount - self.cash_refunded
    }
}

impl Shift {
    pub fn expected_cash(&self) -> Won {
        self.figures.expected_cash(self.float)
    }

    /// Counted − expected, once closed.
    pub fn variance(&self) -> Option<Won> {
        self.counted.map(|c| c - self.expected_cash())
    }
}

/// A sale the clerk completes: the clerk's hold, and how it is paid.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CounterSaleRequest {
    pub hold_id: HoldId,
    pub tender: Tender,
    /// Cash: what the customer handed over (at least the total).
    #[serde(default)]
    pub tendered: Option<Won>,
    /// Card: the terminal's reference of the payment.
    #[serde(default)]
    pub card_reference: Option<String>,
    /// Comp by a clerk: a supervisor's approval.
    #[serde(default)]
    pub approval: Option<Approval>,
    /// How many seats of each ticket type (none: every seat adult).
    #[serde(default, skip_serializing_if = "super::TicketCounts::is_empty")]
    pub ticket_types: super::TicketCounts,
    /// Where the ticket goes too, if the customer wants it by e-mail (empty: nowhere), and the
    /// language of the message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<super::MailLanguage>,
}

/// A completed counter sale: what the receipt and the tickets say.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CounterSale {
    pub booking_id: BookingId,
    pub showtime_id: ShowtimeId,
    pub seats: Vec<String>,
    /// Each seat's ticket type and price.
    #[serde(default)]
    pub tickets: Vec<super::SoldSeat>,
    pub tender: Tender,
    pub amount: Won,
    pub tendered: Option<Won>,
    /// Cash: tendered − amount.
    pub change: Option<Won>,
    pub card_reference: Option<String>,
    /// When it was sold (the database's clock), by which clerk, at which register: what the
    /// receipt says.
    #[serde(deserialize_with = "super::rfc3339::deserialize")]
    pub sold_at: DateTime<Utc>,
    pub clerk: String,
    pub register: String,
}

/// A refund at the counter, with a supervisor's approval (a supervisor's own session approves
/// without one).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CounterRefundRequest {
    /// A booking reference (its id) or the code of its ticket's QR code.
    pub booking: String,
    /// Some of its seats (a counter sale's); none: the whole booking.
    #[serde(default)]
    pub seats: Option<Vec<String>>,
    #[serde(default)]
    pub approval: Option<Approval>,
}

/// An exchange at the counter: seats of a booking for the clerk's hold of as many seats of the
/// same price categories in the same showtime, approved by a supervisor. The booking's code
/// stays valid.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CounterExchangeRequest {
    /// A booking reference (its id) or the code of its ticket's QR code.
    pub booking: String,
    /// The seats given back.
    pub seats: Vec<String>,
    /// The clerk's hold of the seats taken instead.
    pub hold_id: HoldId,
    /// A supervisor's, unless the clerk is one (as for refunds).
    #[serde(default)]
    pub approval: Option<Approval>,
}

/// What an exchange did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CounterExchange {
    pub booking_id: BookingId,
    pub showtime_id: ShowtimeId,
    /// Back on sale.
    pub released: Vec<String>,
    /// Now the booking's, instead.
    pub booked: Vec<String>,
}

/// What a refund at the counter did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CounterRefund {
    pub booking_id: BookingId,
    pub showtime_id: ShowtimeId,
    pub seats: Vec<SeatChange>,
    pub amount: Won,
    /// `cash` (from the drawer), `card` (on the terminal), `comp` (nothing to give back) or
    /// `gateway` (an online sale, refunded through the payment gateway).
    pub method: String,
}

/// A counter sale owed back at the counter: its showtime was cancelled (the console's list).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OwedRefund {
    pub booking_id: BookingId,
    pub showtime_id: ShowtimeId,
    pub movie_title: String,
    #[serde(deserialize_with = "super::rfc3339::deserialize")]
    pub starts_at: DateTime<Utc>,
    /// `cash` (from a drawer) or `card` (on the terminal).
    pub method: String,
    pub amount: Won,
    #[serde(deserialize_with = "super::rfc3339::deserialize")]
    pub owed_at: DateTime<Utc>,
    /// The clerk who sold it.
    pub clerk: String,
}

/// A ticket to print: what it says, with its QR code.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PrintedTicket {
    pub booking_id: BookingId,
    /// The booking's code: it admits every seat not in yet.
    pub code: String,
    pub qr_svg: String,
    pub venue: String,
    pub hall_name: String,
    pub movie_title: String,
    #[serde(deserialize_with = "super::rfc3339::deserialize")]
    pub starts_at: DateTime<Utc>,
    pub seats: Vec<PrintedSeat>,
    pub amount: Won,
    /// 0 for the first print; n for the n-th reprint ("REPRINT n").
    pub reprint: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PrintedSeat {
    /// The seat (`F5`).
    pub code: String,
    /// This seat's own ticket code and its QR code: it admits this seat alone.
    pub ticket_code: String,
    pub qr_svg: String,
    pub row: String,
    pub number: String,
    /// The category's name, as the hall names it.
    pub category: String,
    /// The category's code (named in the page's language when the hall gives the default
    /// name or none).
    #[serde(default)]
    pub category_code: String,
    pub price: Won,
    /// The seat's ticket type (proof is checked at the door for any but adult).
    #[serde(default)]
    pub ticket_type: super::TicketType,
}

/// A booking as the console's search shows it: the booking as its customer sees it, its number,
/// the seats in, how often it was printed, and its events (what the consumers were told).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BookingFound {
    pub booking: super::BookingView,
    /// The 8-character booking number (`21D6B008`).
    pub number: String,
    pub checked_in: Vec<String>,
    pub prints: i64,
    /// Oldest first.
    pub events: Vec<BookingEventLine>,
    /// Found by an e-mail address: the numbers of the address's other bookings, newest first.
    #[serde(default)]
    pub others: Vec<String>,
}

/// One event of a booking: its type (`BookingConfirmed`, `RefundDue`…), when it was written and
/// when the relay published it (`None`: not yet).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BookingEventLine {
    pub event_type: String,
    #[serde(deserialize_with = "super::rfc3339::deserialize")]
    pub at: DateTime<Utc>,
    #[serde(default, deserialize_with = "super::rfc3339::deserialize_option")]
    pub published_at: Option<DateTime<Utc>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expected_cash_is_the_float_plus_cash_sales_minus_cash_refunds() {
        let figures = ShiftFigures {
            cash_sales: 3,
            cash_amount: Won::new(36_000),
            card_sales: 1,
            card_amount: Won::new(12_000),
            cash_refunds: 1,
            cash_refunded: Won::new(12_000),
            ..Default::default()
        };
        assert_eq!(figures.expected_cash(Won::new(50_000)), Won::new(74_000));
        let shift = Shift {
            id: 1,
            clerk: "kim".into(),
            register: "R1".into(),
            float: Won::new(50_000),
            opened_at: Utc::now(),
            closed_at: Some(Utc::now()),
            counted: Some(Won::new(73_000)),
            closed_by: Some("kim".into()),
            figures,
        };
        assert_eq!(shift.variance(), Some(Won::new(-1_000)));
    }

    #[test]
    fn tenders_read_as_their_names() {
        for t in Tender::ALL {
            assert_eq!(Tender::parse(t.as_str()), Some(t));
        }
    }
}
