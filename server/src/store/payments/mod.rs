//! Bookings and their payments at the gateway: one booking per hold, payment sessions, what the
//! gateway reports (recorded once, checked against what was asked), and the booking views.

/// The rest of recording a payment report once the dialect's own update has run, the same
/// statements in both dialects: `$recorded` is what that update returned (`None`: the report
/// changed nothing), `$tx` the transaction it ran in, which this commits.
macro_rules! finish_report {
    ($tx:ident, $report:expr, $recorded:expr) => {{
        let report: &PaymentReport = $report;
        let Some(recorded) = $recorded else {
            let known: Option<i32> = sqlx::query_scalar(PAYMENT_KNOWN)
                .bind(&report.session_id)
                .fetch_optional(&mut *$tx)
                .await?;
            return Ok(ReportOutcome::unrecorded(known.is_some()));
        };
        let mismatch = recorded.mismatch(report);
        if let Some(mismatch) = &mismatch {
            sqlx::query(SET_MISMATCH)
                .bind(&report.session_id)
                .bind(mismatch)
                .execute(&mut *$tx)
                .await?;
        }
        if report.paid {
            let event = payment_succeeded(report, recorded.booking_id, mismatch.clone());
            append_event(&mut $tx, &event).await?;
        }
        $tx.commit().await?;
        Ok(ReportOutcome::recorded(mismatch.is_some()))
    }};
}

mod postgres;
mod sqlite;

use super::*;

/// A booking to create for a hold at checkout.
#[derive(Debug, Clone)]
pub struct NewBooking {
    pub id: BookingId,
    pub hold: HoldId,
    pub customer: CustomerId,
    pub seats: Vec<SeatCode>,
    pub amount: i64,
}

/// A booking as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BookingRow {
    pub id: BookingId,
    pub status: BookingStatus,
    pub amount: i64,
}

/// A booking's payment session at the gateway.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaymentSessionRow {
    pub booking: BookingId,
    pub provider: String,
    pub session_id: String,
    pub payment_url: String,
    pub amount: i64,
    pub expires_at: DateTime<Utc>,
}

/// A booking's payment sessions, as checkout needs them (read at one moment).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaymentSessions {
    /// The open (PENDING) session, if any.
    pub open: Option<PaymentSessionRow>,
    /// Sessions so far.
    pub count: i64,
    /// A payment was received (PAID) and is being settled or refunded.
    pub paid: bool,
}

/// What the gateway reported about a payment session (a verified callback, or reconciliation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaymentReport {
    pub session_id: String,
    /// Set when the customer paid.
    pub payment_id: Option<String>,
    pub paid: bool,
    /// The gateway's event id, kept in the outbox event.
    pub event_id: String,
    /// What the gateway says it charged, checked against what was asked (`None`: not reported).
    pub charged: Option<Charged>,
}

/// What a gateway reports it charged for a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Charged {
    pub amount: i64,
    pub currency: String,
    /// Our reference it was charged under (the booking id).
    pub merchant_reference: String,
}

/// How a reported charge differs from the payment session we asked for, if it does.
pub fn charge_mismatch(
    charged: Option<&Charged>,
    amount: i64,
    currency: &str,
    booking: uuid::Uuid,
) -> Option<String> {
    let charged = charged?;
    let mut differences = Vec::new();
    if charged.amount != amount {
        differences.push(format!("amount {} instead of {amount}", charged.amount));
    }
    if !charged.currency.eq_ignore_ascii_case(currency.trim()) {
        differences.push(format!(
            "currency {:?} instead of {:?}",
            charged.currency,
            currency.trim()
        ));
    }
    if charged.merchant_reference != booking.to_string() {
        differences.push(format!(
            "reference {:?} instead of {booking}",
            charged.merchant_reference
        ));
    }
    (!differences.is_empty()).then(|| differences.join(", "))
}

impl ReportOutcome {
    fn recorded(mismatch: bool) -> Self {
        if mismatch {
            Self::Mismatched
        } else {
            Self::Recorded
        }
    }

    /// A report that changed nothing: for a payment of ours (recorded before) or not.
    fn unrecorded(known: bool) -> Self {
        if known {
            Self::Duplicate
        } else {
            Self::UnknownSession
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportOutcome {
    /// The payment changed state (and, when paid, an outbox event was written with it).
    Recorded,
    /// Recorded as paid, but the charge does not match the session (amount, currency or
    /// reference): it will be refunded, not confirmed.
    Mismatched,
    /// Already recorded: nothing changed.
    Duplicate,
    /// No payment of ours has this session.
    UnknownSession,
}

/// A stored booking and its payments (oldest first).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BookingRecord {
    pub id: BookingId,
    pub showtime: ShowtimeId,
    pub customer: CustomerId,
    pub seats: Vec<String>,
    pub amount: i64,
    pub status: BookingStatus,
    pub failure_reason: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub payments: Vec<PaymentRecord>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaymentRecord {
    pub status: PaymentStatus,
    pub amount: i64,
    pub payment_url: String,
    pub pay_before: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// Which bookings to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BookingFilter {
    One(BookingId),
    /// A customer's newest 50.
    OfCustomer(CustomerId),
}

impl BookingFilter {
    /// The statement that reads the bookings, with the one parameter `key` gives.
    fn select(self) -> String {
        match self {
            Self::One(_) => format!("{BOOKING_COLUMNS} where id = $1"),
            Self::OfCustomer(_) => {
                format!(
                    "{BOOKING_COLUMNS} where customer_id = $1 order by created_at desc limit 50"
                )
            }
        }
    }

    fn key(self) -> uuid::Uuid {
        match self {
            Self::One(id) => id.0,
            Self::OfCustomer(customer) => customer.0,
        }
    }
}

// Statements that read the same in both dialects.
const BOOKING_COLUMNS: &str = "select id, showtime_id, customer_id, seats, amount_krw, status,
                                      failure_reason, created_at, updated_at from booking";
const PAYMENTS_OF_BOOKING: &str =
    "select status, amount_krw, payment_url, session_expires_at, updated_at
       from payment where booking_id = $1 order by created_at";
const BOOKING_OF_HOLD: &str = "select id, status, amount_krw from booking where hold_id = $1";
const PAYMENT_KNOWN: &str = "select 1 from payment where provider_session_id = $1";
const SET_MISMATCH: &str = "update payment set mismatch = $2 where provider_session_id = $1";

/// `BOOKING_COLUMNS` as both dialects read them.
#[derive(sqlx::FromRow)]
struct StoredBooking {
    id: uuid::Uuid,
    #[sqlx(try_from = "i64")]
    showtime_id: ShowtimeId,
    customer_id: uuid::Uuid,
    seats: SeatList,
    amount_krw: i64,
    status: BookingStatus,
    failure_reason: Option<String>,
    created_at: At,
    updated_at: At,
}

/// `PAYMENTS_OF_BOOKING` as both dialects read them.
#[derive(sqlx::FromRow)]
struct StoredPayment {
    status: PaymentStatus,
    amount_krw: i64,
    payment_url: String,
    session_expires_at: At,
    updated_at: At,
}

impl StoredBooking {
    fn record(self, payments: Vec<StoredPayment>) -> BookingRecord {
        BookingRecord {
            id: BookingId(self.id),
            showtime: self.showtime_id,
            customer: CustomerId(self.customer_id),
            seats: self.seats.0,
            amount: self.amount_krw,
            status: self.status,
            failure_reason: self.failure_reason,
            created_at: self.created_at.0,
            updated_at: self.updated_at.0,
            payments: payments
                .into_iter()
                .map(|p| PaymentRecord {
                    status: p.status,
                    amount: p.amount_krw,
                    payment_url: p.payment_url,
                    pay_before: p.session_expires_at.0,
                    updated_at: p.updated_at.0,
                })
                .collect(),
        }
    }
}

/// `BOOKING_OF_HOLD` as both dialects read it.
#[derive(sqlx::FromRow)]
struct StoredBookingOfHold {
    id: uuid::Uuid,
    status: BookingStatus,
    amount_krw: i64,
}

impl From<StoredBookingOfHold> for BookingRow {
    fn from(row: StoredBookingOfHold) -> Self {
        Self {
            id: BookingId(row.id),
            status: row.status,
            amount: row.amount_krw,
        }
    }
}

/// A booking's payments at one moment: its open session (all null when there is none), how
/// many sessions and how many paid.
#[derive(sqlx::FromRow)]
struct StoredSessions {
    provider: Option<String>,
    provider_session_id: Option<String>,
    payment_url: Option<String>,
    amount_krw: Option<i64>,
    session_expires_at: Option<At>,
    n: i64,
    paid: i64,
}

impl StoredSessions {
    fn sessions(self, booking: BookingId) -> PaymentSessions {
        let open = match (
            self.provider,
            self.provider_session_id,
            self.payment_url,
            self.amount_krw,
            self.session_expires_at,
        ) {
            (Some(provider), Some(session_id), Some(payment_url), Some(amount), Some(at)) => {
                Some(PaymentSessionRow {
                    booking,
                    provider,
                    session_id,
                    payment_url,
                    amount,
                    expires_at: at.0,
                })
            }
            _ => None,
        };
        PaymentSessions {
            open,
            count: self.n,
            paid: self.paid > 0,
        }
    }
}

/// What recording a report changed: the payment's booking, what the booking costs and the
/// currency the session was asked in.
#[derive(sqlx::FromRow)]
struct Recorded {
    booking_id: uuid::Uuid,
    amount_krw: i64,
    currency: String,
}

impl Recorded {
    /// How the report's charge differs from what was asked (paid reports only).
    fn mismatch(&self, report: &PaymentReport) -> Option<String> {
        report
            .paid
            .then(|| {
                charge_mismatch(
                    report.charged.as_ref(),
                    self.amount_krw,
                    &self.currency,
                    self.booking_id,
                )
            })
            .flatten()
    }
}

/// The payment status a report records, and what a paid report took.
fn reported(report: &PaymentReport) -> (PaymentStatus, Option<i64>) {
    if report.paid {
        (
            PaymentStatus::Paid,
            report.charged.as_ref().map(|c| c.amount),
        )
    } else {
        (PaymentStatus::Declined, None)
    }
}

/// The `PaymentSucceeded` event of a paid report (its id is the gateway's event id).
fn payment_succeeded(
    report: &PaymentReport,
    booking: uuid::Uuid,
    mismatch: Option<String>,
) -> Envelope {
    Envelope::with_id(
        report.event_id.clone(),
        booking,
        BookingEvent::PaymentSucceeded {
            session_id: report.session_id.clone(),
            payment_id: report.payment_id.clone(),
            mismatch,
        },
    )
}

#[async_trait::async_trait]
pub trait Payments: Send + Sync {
    /// The booking of `new.hold`, created PENDING by the first call; every later or concurrent
    /// call gets the same one.
    async fn booking_for_hold(&self, new: &NewBooking) -> Result<BookingRow, StoreError>;

    /// The booking's open (PENDING) payment session, if any, how many sessions it has had (a
    /// declined payment may be followed by another) and whether one of them is PAID.
    async fn payment_session(&self, booking: BookingId) -> Result<PaymentSessions, StoreError>;

    /// Records a payment session (PENDING); recording the same session again changes nothing.
    async fn record_payment_session(&self, session: &PaymentSessionRow) -> Result<(), StoreError>;

    /// Records a payment's outcome once: a PENDING payment becomes PAID (with a
    /// `PaymentSucceeded` outbox event in the same transaction) or DECLINED; any repeat, even
    /// concurrent, changes nothing.
    async fn record_payment_report(
        &self,
        report: &PaymentReport,
    ) -> Result<ReportOutcome, StoreError>;

    /// Bookings with their payments, newest first.
    async fn bookings(&self, filter: BookingFilter) -> Result<Vec<BookingRecord>, StoreError>;

    /// Sessions of payments still PENDING that were created more than `older_than` before
    /// `now` (reconciliation asks the gateway about them), oldest first.
    async fn stale_payments(
        &self,
        older_than: Duration,
        now: Now,
        limit: i64,
    ) -> Result<Vec<String>, StoreError>;

    /// A PENDING payment whose session expired unpaid becomes EXPIRED; nothing else changes.
    async fn expire_payment(&self, session_id: &str) -> Result<bool, StoreError>;
}
