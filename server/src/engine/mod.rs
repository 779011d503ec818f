//! The inventory engine: validates requests against the showtime's layout, takes the time from
//! the one clock, and calls the store. The REST handlers and the Leptos server functions both
//! call it (it implements `app::engine::Inventory`), so there is one code path for every client.

mod bookings;
pub mod box_office;
mod checkout;
mod console;
pub mod consumers;
mod holds;
mod mail;
pub mod settlement;
mod showtimes;
pub mod staff;
pub mod tickets;
mod waiting_room;

use crate::config::{DEFAULT_CANCEL_UNTIL_MINUTES, DEFAULT_EMAIL_RETENTION_DAYS};
pub use checkout::Payments;
pub use holds::CLERK_HOLD_TTL;
pub use mail::LinkState;
pub use staff::StaffPolicy;

use crate::clock::Clock;
use crate::gate::{GateVerdict, RateLimiter, SeatGate};
use crate::live_bus::LiveBus;
use crate::read_model::{SeatMapCache, Snapshot};
use crate::store::{
    At, CancelOutcome, HoldLimits, HoldOutcome, HoldRefusal, HoldRequest, Layout, Released, Store,
    StoreError,
};
use app::domain::{
    BookingId, CustomerId, Hold, HoldId, LiveMessage, Sales, Seat, SeatChange, SeatMap,
    SeatSelection, SeatStatus, ShowtimeId, ShowtimeSummary,
};

use app::error::{InventoryError, Reason};
use axum::extract::ws::Utf8Bytes;
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;
use std::time::Instant;

pub struct Engine {
    store: Store,
    clock: Clock,
    hold_ttl: Duration,
    /// Layouts never change once a showtime exists, so they are read from the database once.
    layouts: RwLock<HashMap<ShowtimeId, Arc<Layout>>>,
    /// The live seat map's bus: changes published after each commit.
    live: LiveBus,
    /// Serialised seat maps for `GET /showtimes/{id}/seats`.
    snapshots: SeatMapCache,
    /// The newest live-map snapshot per showtime, with the instant its database read started.
    live_snapshots: Mutex<HashMap<ShowtimeId, Arc<showtimes::LiveSlot>>>,
    /// Redis's first filter in front of the hold statement (off without Redis).
    gate: SeatGate,
    /// Hold attempts per customer.
    limiter: RateLimiter,
    /// Hold attempts per client address.
    address_limiter: RateLimiter,
    /// Checkout attempts per customer and per client address.
    checkout_limiters: (RateLimiter, RateLimiter),
    /// Tries to find a booking again, per client address and per reference.
    lookup_limiters: (RateLimiter, RateLimiter, RateLimiter),
    /// How long after its showtime a booking's e-mail address is kept.
    email_retention: chrono::Duration,
    /// How long before the start a customer may still cancel online.
    cancel_cutoff: chrono::Duration,
    /// Caps on live holds (per customer, per address) the hold statement enforces.
    limits: HoldLimits,
    /// Turns of holds by one customer or address (see `hold_turn`).
    hold_turns: Box<[tokio::sync::Mutex<()>]>,
    /// Seats best-available picks of this process are holding right now, per showtime (see
    /// `hold_best_seats`).
    claims: holds::Claims,
    /// The venue's seat-selection rules (lone seats).
    seat_rules: app::domain::seat_rules::Rules,
    metrics: HoldMetrics,
    /// The payment gateway for checkout (none: checkout answers 503).
    payments: Option<Payments>,
    /// Wakes the confirmation worker when a payment was recorded.
    pub(crate) worker_wake: tokio::sync::Notify,
    /// Wakes the refund worker when a refund became due.
    pub(crate) refund_wake: tokio::sync::Notify,
    /// Backlog figures for `/metrics`, refreshed by the housekeeping task.
    gauges: Gauges,
    /// Wakes the outbox relay when this process committed a booking event.
    pub(crate) relay_wake: Arc<tokio::sync::Notify>,
    /// Wakes the sweeper before its time (after a showtime's cancellation).
    pub(crate) sweep_soon: Arc<tokio::sync::Notify>,
    /// Signs and checks ticket codes (see `with_ticket_keys`).
    ticket_keys: tickets::TicketKeys,
    /// Signs staff browsers' device cookies and sign-in challenges (see `with_staff_key`).
    staff_key: Vec<u8>,
    /// Sends customers' e-mail (none: messages stay queued).
    mailer: Option<Arc<crate::mail::Mailer>>,
    /// Staff sessions and sign-in lockouts.
    staff_policy: StaffPolicy,
    /// Turns of secret checks per staff name (see `staff_turn`).
    staff_turns: Box<[tokio::sync::Mutex<()>]>,
    /// The waiting rooms of hot sales.
    rooms: waiting_room::Rooms,
}

/// What became of hold attempts since the process started (served at `/metrics`).
#[derive(Default)]
pub struct HoldMetrics {
    /// Refused by the per-customer rate limit (429).
    pub rate_limited: AtomicU64,
    /// Refused by the per-address rate limit (429).
    pub address_rate_limited: AtomicU64,
    /// Refused because the address's live holds were at their cap.
    pub address_capped: AtomicU64,
    /// Refused by the seat gate without database work (409).
    pub gate_rejected: AtomicU64,
    /// Let through by the seat gate.
    pub gate_passed: AtomicU64,
    /// Sent to the database without the gate (no Redis, or Redis unusable).
    pub gate_bypassed: AtomicU64,
    /// Hold statements (one conditional UPDATE each) sent to the database.
    pub db_hold_statements: AtomicU64,
    /// Holds the database granted.
    pub held: AtomicU64,
    /// Best-available picks made again because the seats were taken first by others.
    pub repicks: AtomicU64,
    /// Payments whose charge did not match the session asked for (refunded, not confirmed).
    pub payment_mismatches: AtomicU64,
    /// Payment events that failed too often, or could never succeed, parked for an operator.
    pub events_parked: AtomicU64,
    /// Places taken in waiting rooms (joins, repeated joins included).
    pub room_joins: AtomicU64,
    /// Admissions this process's steps made.
    pub room_admitted: AtomicU64,
    /// Customers' messages this process sent.
    pub mail_sent: AtomicU64,
    /// Tries of customers' messages that failed in this process.
    pub mail_failed: AtomicU64,
    /// Times a Kafka consumer of this process left its group and joined it again, having seen a
    /// partition with events waiting that nobody read.
    pub consumer_rejoins: AtomicU64,
    /// Staff sign-ins asked for a proof of work before their password was looked at.
    pub sign_ins_challenged: AtomicU64,
    /// Staff sign-ins (and password confirmations) refused unchecked while their key waits:
    /// counted here, not written to the audit log one line each (strangers would bury the real
    /// lines).
    pub sign_ins_refused: AtomicU64,
}

/// Figures read from the database by the housekeeping task (so that a scrape of `/metrics`
/// costs no query); `-1` until first read.
pub struct Gauges {
    /// Committed booking events the relay has not delivered yet.
    pub outbox_unpublished: std::sync::atomic::AtomicI64,
    /// Outbox events parked for an operator.
    pub outbox_parked: std::sync::atomic::AtomicI64,
    /// Customers' messages waiting to be sent.
    pub mail_queued: std::sync::atomic::AtomicI64,
    /// Customers' messages parked after too many failed tries.
    pub mail_parked: std::sync::atomic::AtomicI64,
}

impl Default for Gauges {
    fn default() -> Self {
        Self {
            outbox_unpublished: (-1).into(),
            outbox_parked: (-1).into(),
            mail_queued: (-1).into(),
            mail_parked: (-1).into(),
        }
    }
}

impl HoldMetrics {
    pub(crate) fn count(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }

    fn add(counter: &AtomicU64, n: u64) {
        counter.fetch_add(n, Ordering::Relaxed);
    }
}

impl From<StoreError> for InventoryError {
    fn from(e: StoreError) -> Self {
        tracing::error!(error = %e, "store failure");
        InventoryError::Unavailable
    }
}

impl Engine {
    /// An engine whose live seat-map changes stay in this process.
    pub fn new(store: Store, clock: Clock, hold_ttl: Duration) -> Self {
        Self::with_live_bus(store, clock, hold_ttl, LiveBus::default())
    }

    pub fn with_live_bus(store: Store, clock: Clock, hold_ttl: Duration, live: LiveBus) -> Self {
        Self {
            store,
            clock: clock.clone(),
            hold_ttl,
            layouts: RwLock::default(),
            live,
            snapshots: SeatMapCache::default(),
            live_snapshots: Mutex::default(),
            gate: SeatGate::default(),
            limiter: RateLimiter::off(),
            address_limiter: RateLimiter::off(),
            checkout_limiters: (RateLimiter::off(), RateLimiter::off()),
            lookup_limiters: (RateLimiter::off(), RateLimiter::off(), RateLimiter::off()),
            email_retention: chrono::Duration::days(DEFAULT_EMAIL_RETENTION_DAYS),
            cancel_cutoff: chrono::Duration::minutes(DEFAULT_CANCEL_UNTIL_MINUTES),
            limits: HoldLimits::default(),
            hold_turns: (0..holds::HOLD_TURNS)
                .map(|_| tokio::sync::Mutex::new(()))
                .collect(),
            claims: holds::Claims::default(),
            seat_rules: app::domain::seat_rules::Rules::default(),
            metrics: HoldMetrics::default(),
            payments: None,
            worker_wake: tokio::sync::Notify::new(),
            refund_wake: tokio::sync::Notify::new(),
            gauges: Gauges::default(),
            relay_wake: Arc::new(tokio::sync::Notify::new()),
            sweep_soon: Arc::new(tokio::sync::Notify::new()),
            ticket_keys: tickets::TicketKeys::random(),
            staff_key: rand::random::<[u8; 32]>().to_vec(),
            mailer: None,
            staff_policy: StaffPolicy::default(),
            staff_turns: (0..staff::STAFF_TURNS)
                .map(|_| tokio::sync::Mutex::new(()))
                .collect(),
            rooms: waiting_room::Rooms::new(crate::waiting_room::WaitingRoom::new(
                None,
                Default::default(),
                &rand::random::<[u8; 32]>(),
                clock,
            )),
        }
    }

    /// Puts the Redis seat gate in front of the hold statement.
    pub fn with_gate(mut self, gate: SeatGate) -> Self {
        self.gate = gate;
        self
    }

    pub fn metrics(&self) -> &HoldMetrics {
        &self.metrics
    }

    pub fn gauges(&self) -> &Gauges {
        &self.gauges
    }

    /// Reads the backlog figures `/metrics` shows.
    pub async fn refresh_gauges(&self) {
        if let Ok(n) = self.store.unpublished_count().await {
            self.gauges.outbox_unpublished.store(n, Ordering::Relaxed);
        }
        if let Ok(n) = self.store.parked_count().await {
            self.gauges.outbox_parked.store(n, Ordering::Relaxed);
        }
        if let Ok((queued, parked)) = self.store.mail_counts().await {
            self.gauges.mail_queued.store(queued, Ordering::Relaxed);
            self.gauges.mail_parked.store(parked, Ordering::Relaxed);
        }
    }

    /// Deletes holds that ended more than `retention` ago, idempotency keys past their 24
    /// hours and counts of failed staff tries untouched for `retention`, and empties the
    /// e-mail addresses of bookings whose showtime is older than the e-mail retention; how
    /// many holds and keys.
    pub async fn purge(&self, retention: chrono::Duration) -> Result<(u64, u64), InventoryError> {
        let now = self.clock.now();
        let holds = self.store.purge_holds(now, retention).await?;
        let keys = self.store.purge_idempotency_keys(now).await?;
        let before = self
            .now_at()
            .0
            .checked_sub_signed(retention)
            .unwrap_or(chrono::DateTime::<chrono::Utc>::MIN_UTC);
        self.store.throttle_purge(crate::store::At(before)).await?;
        let emptied = self.store.purge_emails(now, self.email_retention).await?;
        if emptied > 0 {
            tracing::info!(
                bookings = emptied,
                "e-mail addresses emptied after their retention"
            );
        }
        Ok((holds, keys))
    }

    pub fn gate(&self) -> &SeatGate {
        &self.gate
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    pub fn live_bus(&self) -> &LiveBus {
        &self.live
    }

    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    /// The engine's clock now, as a record's time ([`At`]): sessions, the audit log, shifts,
    /// prints and check-ins are stamped with it.
    pub(crate) fn now_at(&self) -> At {
        At::or_now(self.clock.now())
    }

    /// After a commit: this process's snapshot learns the change at once, then every viewer
    /// (every process's, with Redis) is told.
    async fn announce(&self, showtime: ShowtimeId, message: LiveMessage) {
        self.snapshots.apply(showtime, message.seats());
        self.live.publish(showtime, message).await;
    }

    /// Sold seats: kept filtered by the seat gate until after the show, and announced.
    async fn announce_booked(
        &self,
        showtime: ShowtimeId,
        booking: BookingId,
        seats: Vec<SeatChange>,
    ) {
        let codes: Vec<_> = seats.iter().map(|s| s.code.clone()).collect();
        let until = self.gate_keys_until(showtime).await;
        self.gate.book(showtime, &codes, booking, until).await;
        let message = LiveMessage::SeatsBooked {
            showtime_id: showtime,
            seats,
        };
        self.announce(showtime, message).await;
    }

    /// Seats free again (a cancelled or expired hold, a cancelled showtime): announced like any
    /// change.
    async fn announce_released(&self, showtime: ShowtimeId, seats: Vec<SeatChange>) {
        let message = LiveMessage::SeatsReleased {
            showtime_id: showtime,
            seats,
        };
        self.announce(showtime, message).await;
    }

    async fn layout(&self, showtime: ShowtimeId) -> Result<Arc<Layout>, InventoryError> {
        if let Some(layout) = self.layouts.read().expect("layout cache").get(&showtime) {
            return Ok(layout.clone());
        }
        let layout = self
            .store
            .layout(showtime)
            .await?
            .ok_or(InventoryError::ShowtimeNotFound(showtime))?;
        let layout = Arc::new(layout);
        self.layouts
            .write()
            .expect("layout cache")
            .insert(showtime, layout.clone());
        Ok(layout)
    }
}
