//! The store: one contract, two implementations (PostgreSQL for production, SQLite for the
//! embedded default). Each implementation keeps the same guarantees (README, "The guarantees") with its own
//! database's tools; the contract suite in `tests/it/contract.rs` runs against both.
//!
//! Every method that touches seats names the showtime (the shard key). Times are passed in as
//! [`Now`]: `None` means "the database's clock", `Some(t)` an injected clock (tests).

mod postgres;
mod sqlite;

pub use postgres::PgStore;

/// The exact text of the PostgreSQL hold statement (the benchmark runs it in pgbench too).
pub fn postgres_hold_sql() -> &'static str {
    postgres::HOLD_SQL
}
pub use sqlite::SqliteStore;

use app::domain::{
    BookingId, CustomerId, HoldId, PriceCategory, SeatChange, SeatCode, SeatStatus, ShowtimeId,
    ShowtimeSummary,
};
use chrono::{DateTime, Utc};
use std::time::Duration;

/// The time a statement runs at: `None` = the database's own clock.
pub type Now = Option<DateTime<Utc>>;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error(transparent)]
    Database(#[from] sqlx::Error),
    #[error(transparent)]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("stored data is inconsistent: {0}")]
    Corrupt(String),
}

/// A showtime's fixed facts: its hall drawing, prices and title. Never changes once created, so
/// the engine caches it.
#[derive(Debug, Clone)]
pub struct Layout {
    pub showtime_id: ShowtimeId,
    pub movie_title: String,
    pub hall_name: String,
    pub starts_at: DateTime<Utc>,
    pub categories: Vec<PriceCategory>,
    pub seats: Vec<LayoutSeat>,
}

impl Layout {
    /// When sales end: holds, checkouts and confirmations are refused from then on. For now the
    /// start of the showtime.
    pub fn sales_close_at(&self) -> DateTime<Utc> {
        self.starts_at
    }
}

#[derive(Debug, Clone)]
pub struct LayoutSeat {
    pub code: SeatCode,
    pub row: String,
    pub number: i32,
    pub x: i32,
    pub y: i32,
    pub category: String,
    pub accessible: bool,
}

/// A seat's current state as stored, with lazy expiry applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeatState {
    pub code: String,
    pub status: SeatStatus,
    pub version: i64,
}

#[derive(Debug, Clone)]
pub struct HoldRequest<'a> {
    pub showtime: ShowtimeId,
    /// Sorted, distinct, 1–8 codes (a `SeatSelection`).
    pub seats: &'a [SeatCode],
    pub hold_id: HoldId,
    pub customer: CustomerId,
    pub ttl: Duration,
    /// The client's address, recorded with the hold and counted by
    /// [`HoldLimits::seats_per_address`]; `None` (internal callers) is not counted.
    pub client_addr: Option<std::net::IpAddr>,
    pub limits: HoldLimits,
}

/// Caps a hold must respect, checked by the hold statement itself against the holds that are
/// live at its time (`None`: no cap).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HoldLimits {
    /// Live holds one customer may have in one showtime.
    pub holds_per_customer: Option<u32>,
    /// Seats that live holds from one client address may hold in one showtime.
    pub seats_per_address: Option<u32>,
}

/// Why a hold was refused before any seat was looked at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HoldRefusal {
    /// The showtime's sales have closed (it has started).
    SalesClosed,
    /// The customer already has as many live holds in this showtime as allowed.
    HoldLimit,
    /// Live holds from the client's address already hold as many seats as allowed.
    AddressLimit,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HoldOutcome {
    Held {
        expires_at: DateTime<Utc>,
        changes: Vec<SeatChange>,
    },
    /// Nothing was changed. `unavailable` are seats someone else has; `unknown` are codes the
    /// showtime does not have.
    Rejected {
        unavailable: Vec<String>,
        unknown: Vec<String>,
    },
    /// Nothing was changed, whatever the seats (see [`HoldRefusal`]).
    Refused(HoldRefusal),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActiveHold {
    pub hold_id: HoldId,
    pub expires_at: DateTime<Utc>,
    pub seats: Vec<SeatCode>,
}

/// Builds an [`ActiveHold`] from a stored hold id, expiry and seat codes.
fn active_hold(
    hold: uuid::Uuid,
    expires_at: DateTime<Utc>,
    seats: Vec<String>,
) -> Result<ActiveHold, StoreError> {
    let hold_id = HoldId::from_uuid(hold)
        .ok_or_else(|| StoreError::Corrupt(format!("bad hold id {hold}")))?;
    let mut seats = seats
        .iter()
        .map(|c| SeatCode::parse(c).map_err(|e| StoreError::Corrupt(e.to_string())))
        .collect::<Result<Vec<_>, _>>()?;
    seats.sort();
    Ok(ActiveHold {
        hold_id,
        expires_at,
        seats,
    })
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CancelOutcome {
    Released(Vec<SeatChange>),
    /// No such hold, or it no longer holds any seat (cancelled, expired and taken, booked).
    NotFound,
    NotOwner,
}

/// Seats released by one sweep of one showtime.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Released {
    pub showtime: ShowtimeId,
    pub changes: Vec<SeatChange>,
}

/// A hold as checkout sees it: still its customer's, every seat still held, not expired.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveHold {
    pub seats: Vec<SeatCode>,
    pub expires_at: DateTime<Utc>,
    /// The time of the check on the one clock (the database's, unless injected).
    pub now: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HoldCheck {
    Live(LiveHold),
    NotFound,
    NotOwner,
    /// Expired, or some of its seats are no longer held by it.
    Lapsed,
}

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
    pub status: String,
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

/// An outbox event taken for processing (payment events, by the confirmation worker).
#[derive(Debug, Clone, PartialEq)]
pub struct OutboxItem {
    pub id: i64,
    pub booking: BookingId,
    pub event_type: String,
    pub payload: serde_json::Value,
    pub attempts: i64,
}

/// What settling a paid booking did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Settlement {
    /// Seats BOOKED, booking CONFIRMED, `BookingConfirmed` written.
    Confirmed {
        showtime: ShowtimeId,
        seats: Vec<SeatChange>,
    },
    /// The hold had lapsed or its seats were gone (left with whoever has them), sales had
    /// closed, or the charge did not match: booking FAILED, `BookingFailed` and `RefundDue`
    /// written.
    Failed { reason: &'static str },
    /// A payment the booking does not need (it was paid or had failed already): the booking
    /// stays as it is, `RefundDue` written.
    Refunded { reason: &'static str },
    /// Settled before: nothing changed.
    AlreadySettled,
}

/// What settling a paid payment does, decided from what its transaction read: the booking's
/// status, the payment's (its outcome so far, whether its charge matched) and whether the
/// showtime's sales are still open. `Confirm` still has to pass the fenced confirm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SettleDecision {
    AlreadySettled,
    Confirm,
    Refund {
        fail_booking: bool,
        reason: &'static str,
    },
}

pub(crate) fn settle_decision(
    booking_status: &str,
    outcome: Option<&str>,
    mismatch: bool,
    sales_open: bool,
) -> SettleDecision {
    let pending = booking_status == "PENDING";
    if outcome.is_some() {
        SettleDecision::AlreadySettled
    } else if mismatch {
        SettleDecision::Refund {
            fail_booking: pending,
            reason: MISMATCH_REASON,
        }
    } else if !pending {
        SettleDecision::Refund {
            fail_booking: false,
            reason: NOT_NEEDED_REASON,
        }
    } else if !sales_open {
        SettleDecision::Refund {
            fail_booking: true,
            reason: CLOSED_REASON,
        }
    } else {
        SettleDecision::Confirm
    }
}

/// Failure reasons recorded on a booking (and in its events).
pub const LAPSED_REASON: &str =
    "the hold had expired or its seats were taken when the payment arrived";
pub const CLOSED_REASON: &str = "sales for the showtime had closed when the payment arrived";
pub const MISMATCH_REASON: &str =
    "the payment did not match the order (amount, currency or reference)";
/// Why a payment the booking did not need is refunded (the booking is left as it was).
pub const NOT_NEEDED_REASON: &str = "the booking had already been paid or had failed";

/// A stored booking and its payments (oldest first).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BookingRecord {
    pub id: BookingId,
    pub showtime: ShowtimeId,
    pub customer: CustomerId,
    pub seats: Vec<String>,
    pub amount: i64,
    pub status: String,
    pub failure_reason: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub payments: Vec<PaymentRecord>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaymentRecord {
    pub status: String,
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

/// What an idempotency key says about a request that carries it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdempotencyBegin {
    /// First use (or the old one lapsed): run the request, then finish or abandon the key.
    Started,
    /// The same request finished before: answer this again.
    Replay { status: u16, body: String },
    /// The same key is being used by a request that is still running.
    InFlight,
    /// The key was used with a different request.
    Mismatch,
}

/// Rows one purge statement deletes at most (short statements, short locks).
const PURGE_BATCH: i64 = 5_000;

/// How long an idempotency key is kept.
pub const IDEMPOTENCY_KEEP: chrono::Duration = chrono::Duration::hours(24);
/// A request still IN_FLIGHT after this long is taken to have died; its key may be used again.
pub const IDEMPOTENCY_IN_FLIGHT_LIMIT: chrono::Duration = chrono::Duration::minutes(2);

/// A hall to create (demo data, admin tools).
#[derive(Debug, Clone)]
pub struct NewHall {
    pub name: String,
    pub categories: Vec<PriceCategory>,
    pub seats: Vec<LayoutSeat>,
}

#[async_trait::async_trait]
pub trait Store: Send + Sync + 'static {
    /// `postgres` or `sqlite`, for health output and logs.
    fn backend(&self) -> &'static str;
    async fn migrate(&self) -> Result<(), StoreError>;
    async fn ping(&self) -> Result<(), StoreError>;

    /// Showtimes starting at `since` or later, in time order, each saying whether its sales are
    /// open at `now`.
    async fn list_showtimes(
        &self,
        now: Now,
        since: DateTime<Utc>,
    ) -> Result<Vec<ShowtimeSummary>, StoreError>;
    async fn layout(&self, showtime: ShowtimeId) -> Result<Option<Layout>, StoreError>;
    async fn seat_states(
        &self,
        showtime: ShowtimeId,
        now: Now,
    ) -> Result<Vec<SeatState>, StoreError>;

    /// All requested seats become HELD by one conditional write, or none does.
    async fn hold(&self, req: HoldRequest<'_>, now: Now) -> Result<HoldOutcome, StoreError>;
    async fn cancel(&self, hold: HoldId, customer: CustomerId)
        -> Result<CancelOutcome, StoreError>;
    /// The customer's newest hold in the showtime that still holds seats and has not expired.
    async fn active_hold(
        &self,
        showtime: ShowtimeId,
        customer: CustomerId,
        now: Now,
    ) -> Result<Option<ActiveHold>, StoreError>;
    /// HELD → BOOKED, fenced by hold id, status and expiry in the same statement; every seat of
    /// the hold moves or none does. `None` when the hold has lapsed.
    async fn confirm(
        &self,
        hold: HoldId,
        booking: BookingId,
        now: Now,
    ) -> Result<Option<Vec<SeatChange>>, StoreError>;
    /// Releases expired holds. Idempotent; safe when several processes sweep at once.
    async fn sweep(&self, now: Now) -> Result<Vec<Released>, StoreError>;

    /// Whether `customer` may check out `hold` now (and what it holds until when).
    async fn check_hold(
        &self,
        hold: HoldId,
        customer: CustomerId,
        now: Now,
    ) -> Result<HoldCheck, StoreError>;
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

    /// Takes up to `limit` unprocessed outbox events of these types whose time has come, and
    /// leases them for `lease` (another worker takes them after that unless they are marked
    /// processed). Several workers at once never take the same event.
    async fn claim_outbox(
        &self,
        types: &[&str],
        limit: i64,
        lease: Duration,
    ) -> Result<Vec<OutboxItem>, StoreError>;
    /// Puts off the next attempt at an outbox event that failed, keeping its error.
    async fn retry_outbox(&self, item: i64, after: Duration, error: &str)
        -> Result<(), StoreError>;
    /// Stops retrying an outbox event: it stays unprocessed, with its last error, for an
    /// operator.
    async fn park_outbox(&self, item: i64, error: &str) -> Result<(), StoreError>;
    /// Outbox events parked for an operator.
    async fn parked_count(&self) -> Result<i64, StoreError>;
    /// Deletes seat holds whose time ended more than `retention` before `now` and idempotency
    /// keys older than [`IDEMPOTENCY_KEEP`], in batches; how many of each.
    async fn purge(&self, now: Now, retention: chrono::Duration) -> Result<(u64, u64), StoreError>;
    /// In one transaction: confirms the paid booking's seats with the fenced confirm, or fails
    /// the booking and asks for a refund; writes the resulting events; marks `item` processed.
    async fn settle_payment(
        &self,
        item: i64,
        booking: BookingId,
        payment_id: &str,
        now: Now,
    ) -> Result<Settlement, StoreError>;
    /// In one transaction: the payment REFUNDED, a `RefundIssued` event, `item` processed.
    async fn finish_refund(
        &self,
        item: i64,
        booking: BookingId,
        payment_id: &str,
        refund_id: &str,
    ) -> Result<(), StoreError>;

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

    /// Claims `key` for a request with this `fingerprint` (see [`IdempotencyBegin`]).
    async fn idempotency_begin(
        &self,
        customer: CustomerId,
        key: &str,
        fingerprint: &str,
        now: Now,
    ) -> Result<IdempotencyBegin, StoreError>;
    /// Stores the answer of the request that claimed `key`.
    async fn idempotency_finish(
        &self,
        customer: CustomerId,
        key: &str,
        status: u16,
        body: &str,
    ) -> Result<(), StoreError>;
    /// Frees `key` after a failure worth retrying (nothing was decided).
    async fn idempotency_abandon(&self, customer: CustomerId, key: &str) -> Result<(), StoreError>;

    /// Creates a hall unless one of that name exists; `None` when it existed.
    async fn create_hall(&self, hall: &NewHall) -> Result<Option<i64>, StoreError>;
    async fn create_showtime(
        &self,
        hall_id: i64,
        movie_title: &str,
        starts_at: DateTime<Utc>,
    ) -> Result<ShowtimeId, StoreError>;
    async fn hall_count(&self) -> Result<i64, StoreError>;

    /// Takes the relay lease `name` for `owner`, or renews it when `owner` has it; `false` when
    /// another owner's lease has not run out.
    async fn take_relay_lease(
        &self,
        name: &str,
        owner: &str,
        lease: Duration,
    ) -> Result<bool, StoreError>;
    /// Gives the lease up (a relay stopping), so a standby takes over at once.
    async fn drop_relay_lease(&self, name: &str, owner: &str) -> Result<(), StoreError>;
    /// Up to `limit` committed, unpublished events of the published types, oldest first.
    async fn unpublished_events(&self, limit: i64) -> Result<Vec<OutboxEvent>, StoreError>;
    /// Marks these events published — only while `owner` still holds the lease `name` (a relay
    /// that lost its lease leaves them to the new holder, which sends them again). How many
    /// were marked.
    async fn mark_published(&self, name: &str, owner: &str, ids: &[i64])
        -> Result<u64, StoreError>;
    /// Committed events of the published types still waiting for the relay.
    async fn unpublished_count(&self) -> Result<i64, StoreError>;

    /// Applies one consumer's effect of an event together with the record that `consumer`
    /// applied `event_id`; `false` (and nothing changed) when it had been applied before.
    async fn apply_event(
        &self,
        consumer: &str,
        event_id: &str,
        effect: &ConsumerEffect,
    ) -> Result<bool, StoreError>;
    /// The ticket issued for a booking: its code and when it was issued.
    async fn issued_ticket(
        &self,
        booking: BookingId,
    ) -> Result<Option<(String, DateTime<Utc>)>, StoreError>;
    /// Sales figures per showtime and day, newest day first.
    async fn sales(&self) -> Result<Vec<SalesRow>, StoreError>;
}

/// The types of outbox event the relay publishes (payment events stay inside).
pub const PUBLISHED_EVENTS: [&str; 3] = ["BookingConfirmed", "BookingFailed", "RefundIssued"];

/// A committed outbox event on its way to the broker.
#[derive(Debug, Clone, PartialEq)]
pub struct OutboxEvent {
    pub id: i64,
    /// The booking: the message key.
    pub key: BookingId,
    pub event_type: String,
    /// Versioned JSON with an event id (see `booking_event`).
    pub payload: String,
}

/// What one consumer does with one event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConsumerEffect {
    /// Nothing for this consumer (the event is still recorded as seen).
    Nothing,
    /// The ticket of a confirmed booking.
    IssueTicket { booking: BookingId, code: String },
    /// Added to the sales figures of a showtime on a day.
    Sales {
        showtime: ShowtimeId,
        day: chrono::NaiveDate,
        bookings: i64,
        seats: i64,
        revenue: i64,
        refunds: i64,
        refunded: i64,
    },
}

/// Sales figures of one showtime on one day (venue time).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SalesRow {
    pub showtime: ShowtimeId,
    pub movie_title: String,
    pub starts_at: DateTime<Utc>,
    pub day: chrono::NaiveDate,
    pub bookings: i64,
    pub seats: i64,
    pub revenue: i64,
    pub refunds: i64,
    pub refunded: i64,
}

/// Why a cancel that released nothing was refused: the hold's recorded owner decides between
/// 403 (someone else's) and 404 (unknown, or no longer holding seats).
fn cancel_refusal(owner: Option<uuid::Uuid>, customer: CustomerId) -> CancelOutcome {
    match owner {
        Some(owner) if owner != customer.0 => CancelOutcome::NotOwner,
        _ => CancelOutcome::NotFound,
    }
}

/// Builds the [`SeatChange`] list from `(code, version)` rows a statement returned.
fn changes(rows: Vec<(String, i64)>, status: SeatStatus) -> Result<Vec<SeatChange>, StoreError> {
    rows.into_iter()
        .map(|(code, version)| {
            let code = SeatCode::parse(&code).map_err(|e| StoreError::Corrupt(e.to_string()))?;
            Ok(SeatChange {
                code,
                status,
                version,
            })
        })
        .collect()
}

fn parse_status(s: &str) -> Result<SeatStatus, StoreError> {
    SeatStatus::parse(s).ok_or_else(|| StoreError::Corrupt(format!("unknown seat status {s:?}")))
}

/// Splits the requested codes into those a rejected hold found taken and those that do not exist.
fn rejection(requested: &[SeatCode], found: Vec<(String, bool)>) -> HoldOutcome {
    let unavailable = found
        .iter()
        .filter(|(_, free)| !free)
        .map(|(c, _)| c.clone())
        .collect();
    let unknown = requested
        .iter()
        .filter(|r| !found.iter().any(|(c, _)| c == r.as_str()))
        .map(|r| r.to_string())
        .collect();
    HoldOutcome::Rejected {
        unavailable,
        unknown,
    }
}

/// A hall seat row as both stores select it.
pub(crate) type SeatRow = (String, String, i32, i32, i32, String, bool);

pub(crate) fn layout_seats(rows: Vec<SeatRow>) -> Result<Vec<LayoutSeat>, StoreError> {
    rows.into_iter()
        .map(|(code, row, number, x, y, category, accessible)| {
            Ok(LayoutSeat {
                code: SeatCode::parse(&code).map_err(|e| StoreError::Corrupt(e.to_string()))?,
                row,
                number,
                x,
                y,
                category,
                accessible,
            })
        })
        .collect()
}

/// [`IdempotencyBegin`] for a key already stored with `(fingerprint, state, status, body)`.
fn idempotency_verdict(
    fingerprint: &str,
    stored: (String, String, Option<i32>, Option<String>),
) -> IdempotencyBegin {
    let (stored_fingerprint, state, status, body) = stored;
    if stored_fingerprint != fingerprint {
        return IdempotencyBegin::Mismatch;
    }
    match (state.as_str(), status, body) {
        ("DONE", Some(status), Some(body)) => IdempotencyBegin::Replay {
            status: status as u16,
            body,
        },
        _ => IdempotencyBegin::InFlight,
    }
}

/// [`HoldCheck`] from the hold's recorded `(owner, seat count)` and the seats it still holds
/// live, with the latest expiry among them.
fn hold_check(
    customer: CustomerId,
    recorded: Option<(uuid::Uuid, i64)>,
    held: Vec<(String, DateTime<Utc>)>,
    now: DateTime<Utc>,
) -> Result<HoldCheck, StoreError> {
    let Some((owner, count)) = recorded else {
        return Ok(HoldCheck::NotFound);
    };
    if owner != customer.0 {
        return Ok(HoldCheck::NotOwner);
    }
    if held.len() as i64 != count || held.is_empty() {
        return Ok(HoldCheck::Lapsed);
    }
    let expires_at = held.iter().map(|(_, e)| *e).min().expect("not empty");
    let mut seats = held
        .into_iter()
        .map(|(c, _)| SeatCode::parse(&c).map_err(|e| StoreError::Corrupt(e.to_string())))
        .collect::<Result<Vec<_>, _>>()?;
    seats.sort();
    Ok(HoldCheck::Live(LiveHold {
        seats,
        expires_at,
        now,
    }))
}

/// The outbox payload of a `PaymentSucceeded` event (versioned JSON with an event id).
fn payment_succeeded(
    report: &PaymentReport,
    booking: uuid::Uuid,
    mismatch: Option<&str>,
) -> String {
    serde_json::json!({
        "version": 1,
        "eventId": report.event_id,
        "bookingId": booking,
        "sessionId": report.session_id,
        "paymentId": report.payment_id,
        "mismatch": mismatch,
    })
    .to_string()
}

/// Payloads of the events settling writes (versioned JSON with an event id).
fn booking_event(kind: &str, booking: uuid::Uuid, extra: serde_json::Value) -> String {
    let mut payload = serde_json::json!({
        "version": 1,
        "eventId": uuid::Uuid::new_v4(),
        "type": kind,
        "bookingId": booking,
        "occurredAt": Utc::now(),
    });
    if let (Some(payload), serde_json::Value::Object(extra)) = (payload.as_object_mut(), extra) {
        payload.extend(extra);
    }
    payload.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn charged(amount: i64, currency: &str, reference: &str) -> Charged {
        Charged {
            amount,
            currency: currency.into(),
            merchant_reference: reference.into(),
        }
    }

    #[test]
    fn a_charge_must_match_the_amount_currency_and_reference_asked_for() {
        let booking = uuid::Uuid::new_v4();
        let ours = booking.to_string();
        let asked = |c: &Charged| charge_mismatch(Some(c), 12_000, "KRW", booking);
        assert_eq!(asked(&charged(12_000, "KRW", &ours)), None);
        assert_eq!(
            asked(&charged(12_000, "krw", &ours)),
            None,
            "case of the code"
        );
        assert!(asked(&charged(1, "KRW", &ours))
            .unwrap()
            .contains("amount 1"));
        assert!(asked(&charged(12_000, "USD", &ours))
            .unwrap()
            .contains("currency"));
        let other = uuid::Uuid::new_v4().to_string();
        assert!(asked(&charged(12_000, "KRW", &other))
            .unwrap()
            .contains("reference"));
        assert_eq!(
            charge_mismatch(None, 12_000, "KRW", booking),
            None,
            "not reported"
        );
    }

    #[test]
    fn settling_confirms_only_a_matching_first_payment_in_time_and_refunds_every_other() {
        use SettleDecision::*;
        assert_eq!(settle_decision("PENDING", None, false, true), Confirm);
        assert_eq!(
            settle_decision("PENDING", Some("CONFIRMED"), false, true),
            AlreadySettled
        );
        assert_eq!(
            settle_decision("PENDING", Some("REFUND"), true, true),
            AlreadySettled
        );
        let refund = |fail_booking, reason| Refund {
            fail_booking,
            reason,
        };
        assert_eq!(
            settle_decision("PENDING", None, true, true),
            refund(true, MISMATCH_REASON)
        );
        assert_eq!(
            settle_decision("CONFIRMED", None, false, true),
            refund(false, NOT_NEEDED_REASON),
            "a second payment of a paid booking"
        );
        assert_eq!(
            settle_decision("FAILED", None, false, true),
            refund(false, NOT_NEEDED_REASON)
        );
        assert_eq!(
            settle_decision("PENDING", None, false, false),
            refund(true, CLOSED_REASON)
        );
    }
}
