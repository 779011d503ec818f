//! The box office and the door: shifts, counter sales (confirmed with the same fenced
//! confirmation as online sales, in the transaction that records the sale and its
//! `BookingConfirmed`), refunds at the counter, and check-in (one row per ticket, so a second
//! scan never checks in twice, from any door).
//!
//! Each transaction is an `impl Store` function (`counter.rs`, `returns/`, `door.rs`) with its
//! statements beside it, each with its SQL, its lock and its binds; what they decide is in
//! `decision.rs`, as pure functions. Records are stamped with [`At`] (the engine's clock); what a sale is judged at is
//! the fence time (`Store::fence`). The other reads and writes are in `books.rs`.

mod books;
mod counter;
pub use counter::{CounterSaleRow, CounterSold};
mod decision;
mod door;
mod returns;

use app::domain::Won;
use decision::*;
use returns::*;

use super::dialect::{on, Tx};
use super::*;
use app::domain::{SalesChannel, SeatCode, SoldSeat, Tender};

/// A refund at the counter to record.
#[derive(Debug, Clone)]
pub struct CounterRefundRow {
    pub booking: BookingId,
    pub shift: i64,
    pub approved_by: i64,
    /// Some of its seats (none: all of them)…
    pub seats: Option<Vec<SeatCode>>,
    /// …and what they cost (a partial refund gives back at most what the booking has left).
    pub partial_amount: Won,
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
    pub from: Vec<SeatCode>,
    pub hold: HoldId,
    pub to: Vec<SeatCode>,
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
        amount: Won,
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
        amount: Won,
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
    pub amount_krw: Won,
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
    pub float_krw: Won,
    pub opened_at: At,
    pub closed_at: Option<At>,
    pub counted_krw: Option<Won>,
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
    pub amount: Won,
}

/// What a scan did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scanned {
    /// These seats were checked in now; the booking's seats in, now.
    CheckedIn {
        admitted: Vec<SeatCode>,
        inside: i64,
    },
    /// Every seat scanned was in before: when and at which gate (the first's); the seats in.
    Already(DateTime<Utc>, String, i64),
    /// Refunded (or its showtime cancelled): nobody checked in.
    Refunded,
    /// No confirmed booking.
    NotFound,
}

const SHIFT_COLUMNS: &str = "select s.id, s.clerk_id, c.name as clerk, s.register, s.float_krw,
                                    s.opened_at, s.closed_at, s.counted_krw,
                                    (select b.name from staff_user b where b.id = s.closed_by)
                                        as closed_by
                               from shift s join staff_user c on c.id = s.clerk_id";

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
