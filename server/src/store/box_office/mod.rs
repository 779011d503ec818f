//! The box office and the door: shifts, counter sales (confirmed with the same fenced
//! confirmation as online sales, in the transaction that records the sale and its
//! `BookingConfirmed`), refunds at the counter, and check-in (one row per ticket, so a second
//! scan never checks in twice, from any door).
//!
//! Each transaction is written once (`counter.rs`, `returns.rs`, `door.rs`) over the steps of
//! `steps.rs`, which each dialect implements with its own locks and fenced confirm; what they
//! decide is in `decision.rs`, as pure functions. Times are passed in as [`At`] in both dialects
//! (the engine's clock), so every statement but the locks and the confirm reads the same in
//! both.

// The statements both dialects run alike (`counter_steps!`, `box_office_books!`), declared
// before the dialects, which expand them.
#[macro_use]
mod steps;
#[macro_use]
mod tx_books;

mod counter;
mod decision;
mod door;
mod postgres;
mod returns;
mod sqlite;
mod statements;

use decision::*;
use returns::*;
use statements::*;
use steps::CounterSteps;

use super::*;
use app::domain::{SalesChannel, SoldSeat, Tender};

#[async_trait::async_trait]
pub trait BoxOffice: Send + Sync {
    /// The bookings whose id starts with the 8 hex digits `number` (lower case): the booking
    /// number printed on tickets. Normally one.
    async fn bookings_numbered(&self, number: &str) -> Result<Vec<BookingId>, StoreError>;

    /// In one transaction: the shift still open, the booking CONFIRMED, the hold's seats BOOKED
    /// by the fenced confirm (all or nothing), the sale and its `BookingConfirmed` recorded.
    async fn sell_at_counter(
        &self,
        sale: &CounterSaleRow,
        at: At,
        now: Now,
    ) -> Result<CounterSold, StoreError>;

    /// In one transaction, for a confirmed booking not refunded nor checked in: the seats given
    /// back (all, or some of a counter sale's) on sale again, the booking keeping the others and
    /// its amount less the refund (refunded when none is left), the refund recorded; a counter
    /// sale's `RefundIssued`, or an online sale's `RefundDue` (the refund worker asks the
    /// gateway).
    async fn refund_at_counter(
        &self,
        refund: &CounterRefundRow,
        at: At,
    ) -> Result<CounterRefunded, StoreError>;

    /// In one transaction, for a confirmed online booking not refunded, not checked in and not
    /// sold at the counter: every seat back on sale, the booking refunded, its payment marked
    /// for refund and `RefundDue` written (the refund worker asks the gateway). The customer's
    /// own cancellation: whose booking it is is checked before; the cut-off (the showtime starts
    /// more than `cutoff` after `now`, else the database's clock) in this transaction.
    async fn cancel_online_booking(
        &self,
        booking: BookingId,
        now: Now,
        cutoff: chrono::Duration,
    ) -> Result<OnlineCancelled, StoreError>;

    /// Checks `seats` of a confirmed, unrefunded booking in, each once: a scan that lets none in
    /// answers the first's time and gate. The booking's row is taken (shared, in PostgreSQL)
    /// first, so a refund and a check-in of one booking go one after the other.
    async fn check_in(
        &self,
        booking: BookingId,
        showtime: ShowtimeId,
        seats: &[String],
        gate: &str,
        staff: Option<i64>,
        at: At,
    ) -> Result<Scanned, StoreError>;

    /// In one transaction: seats of a confirmed booking back on sale and the clerk's hold booked
    /// for it in their place (the fenced confirm: all or nothing); the ticket stays valid.
    async fn exchange_at_counter(
        &self,
        exchange: &CounterExchangeRow,
        at: At,
        now: Now,
    ) -> Result<CounterExchanged, StoreError>;
    /// Records print `n` of a booking's ticket (0: the first) by `audit`'s member with its
    /// audit line, in one transaction; `false` (nothing written) when another print took that
    /// number first.
    async fn record_print(
        &self,
        booking: BookingId,
        n: i64,
        approved_by: Option<i64>,
        audit: &AuditLine,
    ) -> Result<bool, StoreError>;
}

#[async_trait::async_trait]
/// Shifts, check-ins, prints and clerks' holds: the same statements in both dialects.
pub trait BoxOfficeBooks: Send + Sync {
    /// A booking's events in the outbox, oldest first: type, written, published.
    async fn booking_events(&self, booking: BookingId) -> Result<Vec<EventRecord>, StoreError>;
    /// The booking that seat `seat` of `showtime` is sold to, if it is sold.
    async fn booking_of_seat(
        &self,
        showtime: ShowtimeId,
        seat: &str,
    ) -> Result<Option<BookingId>, StoreError>;
    /// Opens a shift; `None` when the clerk or the register has an open one.
    async fn open_shift(
        &self,
        clerk: i64,
        register: &str,
        float: i64,
        at: At,
    ) -> Result<Option<i64>, StoreError>;

    async fn shifts(&self, filter: ShiftFilter) -> Result<Vec<ShiftRecord>, StoreError>;

    /// A shift's sales per tender and refunds per method.
    async fn shift_sums(&self, shift: i64) -> Result<(Vec<TenderSum>, Vec<TenderSum>), StoreError>;

    /// How many of a shift's sales are owed back (their showtime cancelled) and not given back
    /// yet, and how much.
    async fn shift_owed(&self, shift: i64) -> Result<(i64, i64), StoreError>;

    /// Counter sales owed back and not given back yet, oldest first.
    async fn refunds_owed(&self) -> Result<Vec<OwedRefund>, StoreError>;

    /// Closes an open shift; `false` when it was closed already.
    async fn close_shift(
        &self,
        shift: i64,
        counted: i64,
        by: i64,
        at: At,
    ) -> Result<bool, StoreError>;

    /// The seats of a booking that are checked in.
    async fn seats_checked_in(&self, booking: BookingId) -> Result<Vec<String>, StoreError>;

    /// Tickets checked in per showtime.
    async fn check_in_counts(&self) -> Result<Vec<(i64, i64)>, StoreError>;

    /// How many times a booking's ticket was printed.
    async fn prints(&self, booking: BookingId) -> Result<i64, StoreError>;

    /// The live holds of a customer (a clerk's), in every showtime.
    async fn live_holds_of(&self, customer: CustomerId, at: At) -> Result<Vec<HoldId>, StoreError>;
}

/// A counter sale to record.
#[derive(Debug, Clone)]
pub struct CounterSaleRow {
    pub booking: BookingId,
    pub hold: HoldId,
    /// The clerk's customer id (their holds carry it).
    pub customer: CustomerId,
    pub seats: Vec<String>,
    /// Each seat's type and its price (comp sales: 0).
    pub tickets: Vec<SoldSeat>,
    /// Where the ticket goes too (as [`app::domain::Email`] stores it), and in which language.
    pub email: Option<String>,
    pub language: Option<String>,
    pub amount: i64,
    pub shift: i64,
    pub tender: Tender,
    pub tendered: Option<i64>,
    pub card_reference: Option<String>,
    /// The supervisor who approved a comp.
    pub approved_by: Option<i64>,
    /// The sale's audit line, written with it.
    pub audit: AuditLine,
}

impl CounterSaleRow {
    fn confirmed(&self) -> Envelope {
        Envelope::new(
            self.booking.0,
            BookingEvent::BookingConfirmed {
                showtime_id: self.hold.showtime_id(),
                seats: self.seats.clone(),
                tickets: self.tickets.clone(),
                amount: self.amount,
                payment_id: format!("{}:{}", self.tender.as_str(), self.booking.0),
                channel: match self.tender {
                    Tender::Comp => SalesChannel::Complimentary,
                    _ => SalesChannel::BoxOffice,
                },
            },
        )
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CounterSold {
    Sold(Vec<SeatChange>),
    /// The hold had lapsed, was released, or was sold already: nothing changed.
    HoldLapsed,
    ShiftClosed,
    SalesClosed,
    Cancelled,
}

/// A refund at the counter to record.
#[derive(Debug, Clone)]
pub struct CounterRefundRow {
    pub booking: BookingId,
    pub shift: i64,
    pub approved_by: i64,
    /// Some of its seats (none: all of them)…
    pub seats: Option<Vec<String>>,
    /// …and what they cost (a partial refund gives back at most what the booking has left).
    pub partial_amount: i64,
    /// The refund's audit line, written with it.
    pub audit: AuditLine,
}

/// An exchange at the counter to record: seats of a booking for the clerk's hold of as many
/// seats of the same categories in the same showtime (checked by the engine), approved by a
/// supervisor; it writes `SeatsExchanged`.
#[derive(Debug, Clone)]
pub struct CounterExchangeRow {
    pub booking: BookingId,
    pub shift: i64,
    pub from: Vec<String>,
    pub hold: HoldId,
    pub to: Vec<String>,
    /// The exchange's audit line (with its approver), written with it.
    pub audit: AuditLine,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CounterExchanged {
    Exchanged {
        released: Vec<SeatChange>,
        booked: Vec<SeatChange>,
    },
    NotFound,
    Refused(app::error::Reason),
    /// The clerk's hold had lapsed or the booking's seats changed: nothing changed.
    HoldLapsed,
    ShiftClosed,
}

/// What became of a customer's cancellation of their online booking.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OnlineCancelled {
    Cancelled {
        showtime: ShowtimeId,
        /// The seats back on sale.
        seats: Vec<SeatChange>,
        /// What the refund gives back (the amount paid).
        amount: i64,
    },
    NotFound,
    /// Not cancellable online: why.
    Refused(app::error::Reason),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CounterRefunded {
    Refunded {
        showtime: ShowtimeId,
        /// The seats back on sale.
        seats: Vec<SeatChange>,
        amount: i64,
        method: String,
    },
    NotFound,
    /// Not refundable: why.
    Refused(app::error::Reason),
    ShiftClosed,
}

/// A counter sale owed back (its showtime was cancelled), as the console lists it.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct OwedRefund {
    pub booking_id: uuid::Uuid,
    pub showtime_id: i64,
    pub movie_title: String,
    pub starts_at: At,
    pub method: String,
    pub amount_krw: i64,
    pub owed_at: At,
    /// Who sold it.
    pub clerk: String,
}

/// A booking's event as the outbox keeps it.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct EventRecord {
    pub event_type: String,
    pub created_at: At,
    /// When the relay published it (to the broker, or to the in-process consumers).
    pub published_at: Option<At>,
}

/// A shift as stored, with its clerk's name.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct ShiftRecord {
    pub id: i64,
    pub clerk_id: i64,
    pub clerk: String,
    pub register: String,
    pub float_krw: i64,
    pub opened_at: At,
    pub closed_at: Option<At>,
    pub counted_krw: Option<i64>,
    pub closed_by: Option<String>,
}

/// Which shifts to read.
#[derive(Debug, Clone, Copy)]
pub enum ShiftFilter {
    One(i64),
    /// The clerk's open shift.
    OpenOf(i64),
    /// The newest 100.
    Recent,
}

/// A tender's (or refund method's) count and sum in a shift.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct TenderSum {
    pub kind: String,
    pub count: i64,
    pub seats: i64,
    pub amount: i64,
}

/// What a scan did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scanned {
    /// These seats were checked in now; the booking's seats in, now.
    CheckedIn { admitted: Vec<String>, inside: i64 },
    /// Every seat scanned was in before: when and at which gate (the first's); the seats in.
    Already(DateTime<Utc>, String, i64),
    /// Refunded (or its showtime cancelled): nobody checked in.
    Refunded,
    /// No confirmed booking.
    NotFound,
}

// Statements that read the same in both dialects.
impl ShiftFilter {
    fn select(self) -> (String, i64) {
        match self {
            Self::One(id) => (format!("{SHIFT_COLUMNS} where s.id = $1"), id),
            Self::OpenOf(clerk) => (
                format!("{SHIFT_COLUMNS} where s.clerk_id = $1 and s.closed_at is null"),
                clerk,
            ),
            Self::Recent => (
                format!("{SHIFT_COLUMNS} where $1 = $1 order by s.id desc limit 100"),
                0,
            ),
        }
    }
}
