//! The box office and the door: shifts, counter sales (confirmed with the same fenced
//! confirmation as online sales, in the transaction that records the sale and its
//! `BookingConfirmed`), refunds at the counter, and check-in (one row per ticket, so a second
//! scan never checks in twice, from any door).
//!
//! Times are passed in as [`At`] in both dialects (the engine's clock), so every statement but
//! the locks and the confirm reads the same in both.

/// Writes audit line `$line` in `$tx` (the transaction of the action it records).
macro_rules! record_audit {
    ($tx:ident, $line:expr) => {{
        let line: &AuditLine = $line;
        sqlx::query(RECORD_ACTION)
            .bind(line.at)
            .bind(line.staff_id)
            .bind(&line.staff_name)
            .bind(line.action)
            .bind(&line.detail)
            .bind(line.address.as_deref())
            .execute(&mut *$tx)
            .await?;
    }};
}

/// Whether showtime `$1` is cancelled, and whether its sales are open at `$2` (the dialect's
/// `FENCE_NOW`); its row is taken shared in PostgreSQL (the dialect's `LOCK_SHOWTIME`).
macro_rules! showtime_state {
    () => {
        format!(
            "select cancelled_at is not null, coalesce(sales_close_at, starts_at) > {FENCE_NOW}
               from showtime where id = $1{LOCK_SHOWTIME}"
        )
    };
}

/// A counter sale in `$tx` (see [`BoxOffice::sell_at_counter`]): `$fence` is the time the sale is
/// judged at (bound for the dialect's `FENCE_NOW`), `$confirm` runs the dialect's fenced confirm
/// and evaluates to the `(code, version)` rows it booked.
macro_rules! sell_at_counter {
    ($tx:ident, $sale:expr, $at:expr, fence: $fence:expr, $confirm:expr) => {{
        let sale: &CounterSaleRow = $sale;
        let at: At = $at;
        let open: Option<i64> = sqlx::query_scalar(&format!("{SHIFT_OPEN}{}", LOCK_SHIFT))
            .bind(sale.shift)
            .fetch_optional(&mut *$tx)
            .await?;
        if open.is_none() {
            return Ok(CounterSold::ShiftClosed);
        }
        // The showtime's row (shared, in PostgreSQL) first: a cancellation and this sale go one
        // after the other, and a sale after the close of sales or a cancellation is refused.
        let state: Option<(bool, bool)> = sqlx::query_as(&showtime_state!())
            .bind(sale.hold.showtime_id().get())
            .bind($fence)
            .fetch_optional(&mut *$tx)
            .await?;
        match state {
            Some((false, true)) => {}
            Some((true, _)) => return Ok(CounterSold::Cancelled),
            _ => return Ok(CounterSold::SalesClosed),
        }
        let inserted: Option<uuid::Uuid> = sqlx::query_scalar(INSERT_BOOKING)
            .bind(sale.booking.0)
            .bind(sale.hold.showtime_id().get())
            .bind(sale.hold.as_uuid())
            .bind(sale.customer.0)
            .bind(SeatList(sale.seats.clone()))
            .bind(sale.amount)
            .bind(at)
            .fetch_optional(&mut *$tx)
            .await?;
        if inserted.is_none() {
            return Ok(CounterSold::HoldLapsed);
        }
        let booked: Vec<(String, i64)> = $confirm;
        if booked.len() != sale.seats.len() {
            $tx.rollback().await?;
            return Ok(CounterSold::HoldLapsed);
        }
        sqlx::query(INSERT_SALE)
            .bind(sale.booking.0)
            .bind(sale.shift)
            .bind(sale.tender.as_str())
            .bind(sale.amount)
            .bind(sale.tendered)
            .bind(sale.card_reference.as_deref())
            .bind(sale.approved_by)
            .bind(at)
            .bind(sale.seats.len() as i32)
            .execute(&mut *$tx)
            .await?;
        append_event(&mut $tx, &sale.confirmed()).await?;
        record_audit!($tx, &sale.audit);
        $tx.commit().await?;
        Ok(CounterSold::Sold(changes(booked, SeatStatus::Booked)?))
    }};
}

/// In `$tx`: shift `$shift` still open (its row shared in PostgreSQL), then booking `$booking`'s
/// row locked and read, then (a statement of its own, after the lock: a check-in committed
/// before it is seen, and a check-in takes the booking's row too, so none commits in between)
/// whether it was checked in; `Ok` with its facts if it may be `$what` at the counter.
macro_rules! booking_at_counter {
    ($tx:ident, $shift:expr, $booking:expr, $what:literal) => {{
        let booking: BookingId = $booking;
        let open: Option<i64> = sqlx::query_scalar(&format!("{SHIFT_OPEN}{}", LOCK_SHIFT))
            .bind($shift)
            .fetch_optional(&mut *$tx)
            .await?;
        let facts: Option<RefundFacts> = match open {
            None => None,
            Some(_) => {
                sqlx::query_as(&format!("{REFUND_FACTS}{}", LOCK_BOOKING))
                    .bind(booking.0)
                    .fetch_optional(&mut *$tx)
                    .await?
            }
        };
        match (open, facts) {
            (None, _) => Err(AtCounter::ShiftClosed),
            (_, None) => Err(AtCounter::NotFound),
            (_, Some(mut facts)) => {
                facts.checked_in = sqlx::query_scalar(CHECKED_IN)
                    .bind(booking.0)
                    .fetch_one(&mut *$tx)
                    .await?;
                match facts.refusal($what) {
                    Some(why) => Err(AtCounter::Refused(why)),
                    None => Ok(facts),
                }
            }
        }
    }};
}

/// A refund at the counter in `$tx` (see [`BoxOffice::refund_at_counter`]); `$seat_in` is the
/// dialect's "seat code is in list `$3`".
macro_rules! refund_at_counter {
    ($tx:ident, $refund:expr, $at:expr, seat_in: $seat_in:literal) => {{
        let refund: &CounterRefundRow = $refund;
        let at: At = $at;
        let booking = match booking_at_counter!($tx, refund.shift, refund.booking, "refunded") {
            Ok(booking) => booking,
            Err(refusal) => return Ok(refusal.into()),
        };
        let (giving, keeping, amount) = match booking.split(refund) {
            Ok(split) => split,
            Err(why) => return Ok(CounterRefunded::Refused(why)),
        };
        // A cancelled showtime's counter sale: owed back whole, and already counted as refunded
        // in the figures (its `RefundOwed`): paying it out writes no second refund event.
        let owed = booking.owed;
        if owed && !keeping.is_empty() {
            return Ok(CounterRefunded::Refused(
                "its showtime was cancelled: the whole booking is given back".into(),
            ));
        }
        let paid: Option<(String, i64)> = sqlx::query_as(&format!("{PAID_ONLINE}{}", LOCK_PAYMENT))
            .bind(refund.booking.0)
            .fetch_optional(&mut *$tx)
            .await?;
        let method = match (&booking.tender, &paid) {
            (Some(tender), _) => tender.clone(),
            (None, Some(_)) if keeping.is_empty() => "gateway".to_string(),
            (None, Some(_)) => {
                return Ok(CounterRefunded::Refused(
                    "an online booking is refunded whole (its payment goes back in one piece)"
                        .into(),
                ))
            }
            (None, None) => {
                return Ok(CounterRefunded::Refused(
                    "this booking has no payment to give back".into(),
                ))
            }
        };
        let released: Vec<(String, i64, Option<String>)> = sqlx::query_as(&format!(
            "{RELEASE_BOOKED} and seat_code {} {RETURNING}",
            $seat_in
        ))
        .bind(booking.showtime_id)
        .bind(refund.booking.0)
        .bind(SeatList(giving.clone()))
        .fetch_all(&mut *$tx)
        .await?;
        if released.len() != giving.len() {
            $tx.rollback().await?;
            return Ok(CounterRefunded::Refused(
                "the booking's seats changed meanwhile; try again".into(),
            ));
        }
        sqlx::query(SET_BOOKING_SEATS)
            .bind(refund.booking.0)
            .bind(SeatList(keeping.clone()))
            .bind(amount)
            .bind(keeping.is_empty())
            .bind(at)
            .execute(&mut *$tx)
            .await?;
        sqlx::query(INSERT_REFUND)
            .bind(refund.booking.0)
            .bind(refund.shift)
            .bind(SeatList(giving.clone()))
            .bind(&method)
            .bind(amount)
            .bind(refund.approved_by)
            .bind(at)
            .execute(&mut *$tx)
            .await?;
        let showtime = stored_showtime(booking.showtime_id)?;
        if owed {
            sqlx::query(PAY_OWED)
                .bind(refund.booking.0)
                .bind(at)
                .bind(refund.shift)
                .execute(&mut *$tx)
                .await?;
            let line = AuditLine {
                detail: format!(
                    "{}: {method} {amount} (owed back: its showtime was cancelled)",
                    refund.audit.detail
                ),
                ..refund.audit.clone()
            };
            record_audit!($tx, &line);
            $tx.commit().await?;
            return Ok(CounterRefunded::Refunded {
                showtime,
                seats: crate::store::released(released)?,
                amount,
                method,
            });
        }
        let event = match &paid {
            Some((payment_id, paid_amount)) if booking.tender.is_none() => {
                let marked = sqlx::query(
                    "update payment set outcome = 'REFUND'
                      where provider_payment_id = $1 and outcome = 'CONFIRMED'",
                )
                .bind(payment_id)
                .execute(&mut *$tx)
                .await?;
                if marked.rows_affected() != 1 {
                    $tx.rollback().await?;
                    return Ok(CounterRefunded::Refused(
                        "its payment is being refunded already".into(),
                    ));
                }
                BookingEvent::RefundDue {
                    showtime_id: showtime,
                    payment_id: payment_id.clone(),
                    amount: *paid_amount,
                    reason: "refunded at the box office".into(),
                }
            }
            _ => BookingEvent::RefundIssued {
                showtime_id: showtime,
                payment_id: format!("{method}:{}", refund.booking.0),
                refund_id: format!("counter:{}", uuid::Uuid::new_v4()),
                amount,
                channel: if method == "comp" {
                    SalesChannel::Complimentary
                } else {
                    SalesChannel::BoxOffice
                },
            },
        };
        append_event(&mut $tx, &Envelope::new(refund.booking.0, event)).await?;
        // The amount and method are decided here: the line says them.
        let line = AuditLine {
            detail: format!("{}: {method} {amount}", refund.audit.detail),
            ..refund.audit.clone()
        };
        record_audit!($tx, &line);
        $tx.commit().await?;
        Ok(CounterRefunded::Refunded {
            showtime,
            seats: crate::store::released(released)?,
            amount,
            method,
        })
    }};
}

/// An exchange at the counter in `$tx` (see [`BoxOffice::exchange_at_counter`]): `$confirm`
/// books the clerk's hold for the booking and evaluates to the `(code, version)` rows it booked;
/// `$seat_in` as for refunds.
macro_rules! exchange_at_counter {
    ($tx:ident, $exchange:expr, $at:expr, fence: $fence:expr, seat_in: $seat_in:literal, $confirm:expr) => {{
        let exchange: &CounterExchangeRow = $exchange;
        let at: At = $at;
        // The showtime's row (shared, in PostgreSQL) before the booking's, in the order a
        // cancellation takes them (showtime, then its counter bookings): never a deadlock.
        let state: Option<(bool, bool)> = sqlx::query_as(&showtime_state!())
            .bind(exchange.hold.showtime_id().get())
            .bind($fence)
            .fetch_optional(&mut *$tx)
            .await?;
        if state != Some((false, true)) {
            return Ok(CounterExchanged::Refused(
                "this showtime's sales have closed (or it was cancelled)".into(),
            ));
        }
        let booking = match booking_at_counter!($tx, exchange.shift, exchange.booking, "exchanged")
        {
            Ok(booking) => booking,
            Err(refusal) => return Ok(refusal.into()),
        };
        if booking.showtime_id != exchange.hold.showtime_id().get() {
            return Ok(CounterExchanged::Refused(
                "an exchange is for seats of the same showtime".into(),
            ));
        }
        if let Some(seat) = exchange.from.iter().find(|s| !booking.seats.0.contains(s)) {
            return Ok(CounterExchanged::Refused(format!(
                "seat {seat} is not in this booking"
            )));
        }
        let released: Vec<(String, i64, Option<String>)> = sqlx::query_as(&format!(
            "{RELEASE_BOOKED} and seat_code {} {RETURNING}",
            $seat_in
        ))
        .bind(booking.showtime_id)
        .bind(exchange.booking.0)
        .bind(SeatList(exchange.from.clone()))
        .fetch_all(&mut *$tx)
        .await?;
        let booked: Vec<(String, i64)> = $confirm;
        if released.len() != exchange.from.len() || booked.len() != exchange.to.len() {
            $tx.rollback().await?;
            return Ok(CounterExchanged::HoldLapsed);
        }
        let mut seats: Vec<String> = booking
            .seats
            .0
            .iter()
            .filter(|s| !exchange.from.contains(s))
            .cloned()
            .collect();
        seats.extend(exchange.to.iter().cloned());
        let seats_now = seats.clone();
        sqlx::query(SET_BOOKING_SEATS)
            .bind(exchange.booking.0)
            .bind(SeatList(seats))
            .bind(0i64)
            .bind(false)
            .bind(at)
            .execute(&mut *$tx)
            .await?;
        // The hold is used up: nothing else confirms it.
        sqlx::query("delete from seat_hold where showtime_id = $1 and hold_id = $2")
            .bind(exchange.hold.showtime_id().get())
            .bind(exchange.hold.as_uuid())
            .execute(&mut *$tx)
            .await?;
        let exchanged = BookingEvent::SeatsExchanged {
            showtime_id: stored_showtime(booking.showtime_id)?,
            released: exchange.from.clone(),
            booked: exchange.to.clone(),
            seats: seats_now,
        };
        append_event(&mut $tx, &Envelope::new(exchange.booking.0, exchanged)).await?;
        record_audit!($tx, &exchange.audit);
        $tx.commit().await?;
        Ok(CounterExchanged::Exchanged {
            released: crate::store::released(released)?,
            booked: changes(booked, SeatStatus::Booked)?,
        })
    }};
}

/// A check-in of `$seats` of a booking in `$tx` (see [`BoxOffice::check_in`]).
macro_rules! check_in {
    ($tx:ident, $booking:expr, $showtime:expr, $seats:expr, $gate:expr, $staff:expr, $at:expr) => {{
        let booking: BookingId = $booking;
        let asked: &[String] = $seats;
        let facts: Option<(bool, SeatList)> =
            sqlx::query_as(&format!("{SCANNABLE}{}", LOCK_SCANNED))
                .bind(booking.0)
                .fetch_optional(&mut *$tx)
                .await?;
        // The booking's seats as they are now, under its lock: a seat refunded or exchanged
        // since the caller read the booking is not let in.
        let seats: Vec<String> = match facts {
            None => return Ok(Scanned::NotFound),
            Some((true, _)) => return Ok(Scanned::Refunded),
            Some((false, now)) => asked
                .iter()
                .filter(|s| now.0.contains(s))
                .cloned()
                .collect(),
        };
        if seats.is_empty() {
            return Ok(Scanned::Refunded);
        }
        let seats = &seats[..];
        // Of two scans of a seat at once, one inserts; the other does nothing (PostgreSQL: it
        // waits for the first to commit; SQLite: the single writer).
        let mut admitted = Vec::new();
        for seat in seats {
            let inserted: Option<String> = sqlx::query_scalar(CHECK_IN)
                .bind(booking.0)
                .bind(seat)
                .bind($showtime.get())
                .bind($gate)
                .bind($staff)
                .bind($at)
                .fetch_optional(&mut *$tx)
                .await?;
            admitted.extend(inserted);
        }
        let first: Option<(At, String)> = match admitted.is_empty() {
            true => {
                sqlx::query_as(FIRST_SCAN)
                    .bind(booking.0)
                    .bind(seats.first())
                    .fetch_optional(&mut *$tx)
                    .await?
            }
            false => None,
        };
        let inside: i64 = sqlx::query_scalar(SEATS_IN)
            .bind(booking.0)
            .fetch_one(&mut *$tx)
            .await?;
        $tx.commit().await?;
        scanned(admitted, first, inside)
    }};
}

/// The methods that only differ by the pool they use and how a seat list is counted.
macro_rules! box_office_books {
    ($store:ty, write: $write:ident, read: $read:ident) => {
        #[async_trait::async_trait]
        impl BoxOfficeBooks for $store {
            async fn open_shift(
                &self,
                clerk: i64,
                register: &str,
                float: i64,
                at: At,
            ) -> Result<Option<i64>, StoreError> {
                Ok(sqlx::query_scalar(OPEN_SHIFT)
                    .bind(clerk)
                    .bind(register)
                    .bind(float)
                    .bind(at)
                    .fetch_optional(&self.$write)
                    .await?)
            }

            async fn shifts(&self, filter: ShiftFilter) -> Result<Vec<ShiftRecord>, StoreError> {
                let (sql, key) = filter.select();
                Ok(sqlx::query_as(&sql)
                    .bind(key)
                    .fetch_all(&self.$read)
                    .await?)
            }

            async fn shift_sums(
                &self,
                shift: i64,
            ) -> Result<(Vec<TenderSum>, Vec<TenderSum>), StoreError> {
                let sales = sqlx::query_as(SHIFT_SALES)
                    .bind(shift)
                    .fetch_all(&self.$read)
                    .await?;
                let refunds = sqlx::query_as(SHIFT_REFUNDS)
                    .bind(shift)
                    .fetch_all(&self.$read)
                    .await?;
                Ok((sales, refunds))
            }

            async fn shift_owed(&self, shift: i64) -> Result<(i64, i64), StoreError> {
                Ok(sqlx::query_as(SHIFT_OWED)
                    .bind(shift)
                    .fetch_one(&self.$read)
                    .await?)
            }

            async fn refunds_owed(&self) -> Result<Vec<OwedRefund>, StoreError> {
                Ok(sqlx::query_as(REFUNDS_OWED).fetch_all(&self.$read).await?)
            }

            async fn close_shift(
                &self,
                shift: i64,
                counted: i64,
                by: i64,
                at: At,
            ) -> Result<bool, StoreError> {
                let closed = sqlx::query(CLOSE_SHIFT)
                    .bind(shift)
                    .bind(at)
                    .bind(counted)
                    .bind(by)
                    .execute(&self.$write)
                    .await?;
                Ok(closed.rows_affected() == 1)
            }

            async fn seats_checked_in(
                &self,
                booking: BookingId,
            ) -> Result<Vec<String>, StoreError> {
                Ok(sqlx::query_scalar(SEATS_CHECKED_IN)
                    .bind(booking.0)
                    .fetch_all(&self.$read)
                    .await?)
            }

            async fn check_in_counts(&self) -> Result<Vec<(i64, i64)>, StoreError> {
                Ok(sqlx::query_as(CHECK_IN_COUNTS)
                    .fetch_all(&self.$read)
                    .await?)
            }

            async fn record_print(
                &self,
                booking: BookingId,
                n: i64,
                approved_by: Option<i64>,
                audit: &AuditLine,
            ) -> Result<bool, StoreError> {
                let mut tx = self.$write.begin().await?;
                let inserted: Option<i32> = sqlx::query_scalar(RECORD_PRINT)
                    .bind(booking.0)
                    .bind(i32::try_from(n).unwrap_or(i32::MAX))
                    .bind(audit.staff_id)
                    .bind(approved_by)
                    .bind(audit.at)
                    .fetch_optional(&mut *tx)
                    .await?;
                if inserted.is_none() {
                    return Ok(false);
                }
                record_audit!(tx, audit);
                tx.commit().await?;
                Ok(true)
            }

            async fn prints(&self, booking: BookingId) -> Result<i64, StoreError> {
                Ok(sqlx::query_scalar(PRINTS)
                    .bind(booking.0)
                    .fetch_one(&self.$read)
                    .await?)
            }

            async fn live_holds_of(
                &self,
                customer: CustomerId,
                at: At,
            ) -> Result<Vec<HoldId>, StoreError> {
                let ids: Vec<uuid::Uuid> = sqlx::query_scalar(LIVE_HOLDS_OF)
                    .bind(customer.0)
                    .bind(at)
                    .fetch_all(&self.$read)
                    .await?;
                ids.into_iter()
                    .map(|id| HoldId::try_from(id).map_err(|e| StoreError::Corrupt(e.to_string())))
                    .collect()
            }
        }
    };
}

mod postgres;
mod sqlite;

use super::*;
use app::domain::{SalesChannel, Tender};

/// A counter sale to record.
#[derive(Debug, Clone)]
pub struct CounterSaleRow {
    pub booking: BookingId,
    pub hold: HoldId,
    /// The clerk's customer id (their holds carry it).
    pub customer: CustomerId,
    pub seats: Vec<String>,
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
    Refused(String),
    /// The clerk's hold had lapsed or the booking's seats changed: nothing changed.
    HoldLapsed,
    ShiftClosed,
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
    Refused(String),
    ShiftClosed,
}

/// Why a booking is not refunded or exchanged at the counter (see `booking_at_counter!`).
enum AtCounter {
    ShiftClosed,
    NotFound,
    Refused(String),
}

impl From<AtCounter> for CounterRefunded {
    fn from(refusal: AtCounter) -> Self {
        match refusal {
            AtCounter::ShiftClosed => Self::ShiftClosed,
            AtCounter::NotFound => Self::NotFound,
            AtCounter::Refused(why) => Self::Refused(why),
        }
    }
}

impl From<AtCounter> for CounterExchanged {
    fn from(refusal: AtCounter) -> Self {
        match refusal {
            AtCounter::ShiftClosed => Self::ShiftClosed,
            AtCounter::NotFound => Self::NotFound,
            AtCounter::Refused(why) => Self::Refused(why),
        }
    }
}

/// `REFUND_FACTS`.
#[derive(sqlx::FromRow)]
struct RefundFacts {
    showtime_id: i64,
    seats: SeatList,
    status: BookingStatus,
    refunded: bool,
    /// Read in a statement of its own (see `CHECKED_IN`).
    #[sqlx(skip)]
    checked_in: bool,
    amount_krw: i64,
    tender: Option<String>,
    /// Owed back at the counter (its showtime was cancelled): given back whole, even when
    /// some of its seats were checked in before the cancellation.
    owed: bool,
}

impl RefundFacts {
    /// The seats a refund gives back, those the booking keeps, and the amount: the booking's
    /// whole amount for all its seats, else the seats' prices (at most what is left to give).
    fn split(&self, refund: &CounterRefundRow) -> Result<(Vec<String>, Vec<String>, i64), String> {
        let giving = match &refund.seats {
            None => self.seats.0.clone(),
            Some(seats) => seats.clone(),
        };
        if let Some(seat) = giving.iter().find(|s| !self.seats.0.contains(s)) {
            return Err(format!("seat {seat} is not in this booking"));
        }
        let keeping: Vec<String> = self
            .seats
            .0
            .iter()
            .filter(|s| !giving.contains(s))
            .cloned()
            .collect();
        let amount = match keeping.is_empty() {
            true => self.amount_krw,
            false => refund.partial_amount.clamp(0, self.amount_krw),
        };
        Ok((giving, keeping, amount))
    }

    /// Why the booking cannot be `what` (refunded, exchanged) at the counter, if it cannot.
    fn refusal(&self, what: &str) -> Option<String> {
        if self.status != BookingStatus::Confirmed {
            Some(format!("only a confirmed booking is {what} at the counter"))
        } else if self.refunded {
            Some("this booking was refunded already".into())
        } else if self.checked_in && !self.owed {
            Some(format!(
                "this ticket was checked in at the door: it is not {what}"
            ))
        } else {
            None
        }
    }
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
const SHIFT_OPEN: &str = "select id from shift where id = $1 and closed_at is null";
const INSERT_BOOKING: &str = "insert into booking (id, showtime_id, hold_id, customer_id, seats,
                                                   amount_krw, status, created_at, updated_at)
                              values ($1, $2, $3, $4, $5, $6, 'CONFIRMED', $7, $7)
                              on conflict (hold_id) do nothing returning id";
const INSERT_SALE: &str = "insert into counter_sale (booking_id, shift_id, tender, amount_krw,
                                                     tendered_krw, card_reference, approved_by,
                                                     created_at, seat_count)
                           values ($1, $2, $3, $4, $5, $6, $7, $8, $9)";
const REFUND_FACTS: &str = "select b.showtime_id, b.seats, b.status, b.refunded_at is not null as refunded,
                                   b.amount_krw,
                                   (select cs.tender from counter_sale cs where cs.booking_id = b.id)
                                       as tender,
                                   exists (select 1 from counter_refund_owed o
                                            where o.booking_id = b.id and o.paid_at is null)
                                       as owed
                              from booking b where b.id = $1";
const PAID_ONLINE: &str = "select provider_payment_id, coalesce(paid_amount, amount_krw)
                             from payment
                            where booking_id = $1 and status = 'PAID' and outcome = 'CONFIRMED'";
/// Each dialect adds "and seat_code <in list $3>" and [`RETURNING`].
const RELEASE_BOOKED: &str = "update show_seat
                                 set status = 'AVAILABLE', booking_id = null, hold_id = null,
                                     customer_id = null, hold_expires_at = null,
                                     version = version + 1
                               where showtime_id = $1 and booking_id = $2 and status = 'BOOKED'";
const RETURNING: &str = "returning seat_code, version, blocked";
/// A booking's seats after a refund or an exchange, its amount less `$3`, refunded when `$4`.
const SET_BOOKING_SEATS: &str = "update booking
                                    set seats = $2, amount_krw = amount_krw - $3,
                                        refunded_at = case when $4 then $5 else refunded_at end,
                                        updated_at = $5
                                  where id = $1";
const INSERT_REFUND: &str = "insert into counter_refund (booking_id, shift_id, seats, method,
                                                         amount_krw, approved_by, created_at)
                             values ($1, $2, $3, $4, $5, $6, $7)";
const OPEN_SHIFT: &str = "insert into shift (clerk_id, register, float_krw, opened_at)
                          values ($1, $2, $3, $4) on conflict do nothing returning id";
const CLOSE_SHIFT: &str = "update shift set closed_at = $2, counted_krw = $3, closed_by = $4
                            where id = $1 and closed_at is null";
const SHIFT_COLUMNS: &str = "select s.id, s.clerk_id, c.name as clerk, s.register, s.float_krw,
                                    s.opened_at, s.closed_at, s.counted_krw,
                                    (select b.name from staff_user b where b.id = s.closed_by)
                                        as closed_by
                               from shift s join staff_user c on c.id = s.clerk_id";
// Sums cast to bigint: PostgreSQL sums a bigint column as numeric.
const SHIFT_SALES: &str = "select tender as kind, cast(count(*) as bigint) as count,
                                  cast(coalesce(sum(seat_count), 0) as bigint) as seats,
                                  cast(coalesce(sum(amount_krw), 0) as bigint) as amount
                             from counter_sale where shift_id = $1 group by tender";
const SHIFT_REFUNDS: &str = "select method as kind, cast(count(*) as bigint) as count,
                                    cast(0 as bigint) as seats,
                                    cast(coalesce(sum(amount_krw), 0) as bigint) as amount
                               from counter_refund where shift_id = $1 group by method";
const SHIFT_OWED: &str =
    "select cast(count(*) as bigint), cast(coalesce(sum(amount_krw), 0) as bigint)
                            from counter_refund_owed where sale_shift = $1 and paid_at is null";
const REFUNDS_OWED: &str = "select o.booking_id, o.showtime_id, st.movie_title, st.starts_at,
                                   o.method, o.amount_krw, o.owed_at, c.name as clerk
                              from counter_refund_owed o
                              join showtime st on st.id = o.showtime_id
                              join shift sh on sh.id = o.sale_shift
                              join staff_user c on c.id = sh.clerk_id
                             where o.paid_at is null
                             order by o.owed_at, o.booking_id limit 500";
const PAY_OWED: &str = "update counter_refund_owed set paid_at = $2, paid_shift = $3
                         where booking_id = $1 and paid_at is null";
const CHECK_IN: &str = "insert into seat_check_in (booking_id, seat_code, showtime_id, gate,
                                                   staff_id, checked_in_at)
                        values ($1, $2, $3, $4, $5, $6)
                        on conflict (booking_id, seat_code) do nothing returning seat_code";
const CHECKED_IN: &str = "select exists (select 1 from seat_check_in where booking_id = $1)";
const SEATS_CHECKED_IN: &str =
    "select seat_code from seat_check_in where booking_id = $1 order by seat_code";
const SEATS_IN: &str = "select cast(count(*) as bigint) from seat_check_in where booking_id = $1";
/// What a scan may check in: a confirmed booking, refunded or not (or its showtime cancelled).
const SCANNABLE: &str = "select b.refunded_at is not null
                                or exists (select 1 from showtime st
                                            where st.id = b.showtime_id
                                              and st.cancelled_at is not null),
                                b.seats
                           from booking b where b.id = $1 and b.status = 'CONFIRMED'";
/// When and where seat `$2` (the booking's first seat, for the booking's code) was let in.
const FIRST_SCAN: &str = "select checked_in_at, gate from seat_check_in
                           where booking_id = $1 and seat_code = $2";
const RECORD_PRINT: &str =
    "insert into ticket_print (booking_id, n, staff_id, approved_by, printed_at)
     values ($1, $2, $3, $4, $5) on conflict do nothing returning n";
const PRINTS: &str = "select cast(count(*) as bigint) from ticket_print where booking_id = $1";
const LIVE_HOLDS_OF: &str =
    "select hold_id from seat_hold where customer_id = $1 and expires_at >= $2";
const CHECK_IN_COUNTS: &str = "select showtime_id, cast(count(*) as bigint) from seat_check_in
                                group by showtime_id order by showtime_id";

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
}

#[async_trait::async_trait]
/// Shifts, check-ins, prints and clerks' holds: the same statements in both dialects.
pub trait BoxOfficeBooks: Send + Sync {
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

    /// How many times a booking's ticket was printed.
    async fn prints(&self, booking: BookingId) -> Result<i64, StoreError>;

    /// The live holds of a customer (a clerk's), in every showtime.
    async fn live_holds_of(&self, customer: CustomerId, at: At) -> Result<Vec<HoldId>, StoreError>;
}

/// The answer of `CHECK_IN`, else `FIRST_SCAN`, with the seats in.
fn scanned(
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
