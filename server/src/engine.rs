//! The inventory engine: validates requests against the showtime's layout, takes the time from
//! the one clock, and calls the store. The REST handlers and the Leptos server functions both
//! call it (it implements `app::engine::Inventory`), so there is one code path for every client.

mod checkout;
pub mod consumers;
pub mod settlement;
pub mod tickets;

pub use checkout::Payments;

use crate::clock::Clock;
use crate::gate::{GateVerdict, RateLimiter, SeatGate};
use crate::live_bus::LiveBus;
use crate::read_model::{SeatMapCache, Snapshot};
use crate::store::{
    CancelOutcome, HoldLimits, HoldOutcome, HoldRefusal, HoldRequest, Layout, Released, Store,
    StoreError,
};
use app::domain::{
    BookingId, CustomerId, Hold, HoldId, LiveMessage, Seat, SeatChange, SeatMap, SeatSelection,
    SeatStatus, ShowtimeId, ShowtimeSummary,
};
use app::engine::Inventory;
use app::error::InventoryError;
use axum::extract::ws::Utf8Bytes;
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;
use std::time::Instant;

/// A showtime's newest live-map snapshot (JSON) and when its database read started; the async
/// lock lets concurrent connections wait for one read instead of each making their own.
type LiveSlot = tokio::sync::Mutex<Option<(Instant, Utf8Bytes)>>;

pub struct Engine {
    store: Arc<dyn Store>,
    clock: Clock,
    hold_ttl: Duration,
    /// Layouts never change once a showtime exists, so they are read from the database once.
    layouts: RwLock<HashMap<ShowtimeId, Arc<Layout>>>,
    /// The live seat map's bus: changes published after each commit.
    live: LiveBus,
    /// Serialised seat maps for `GET /showtimes/{id}/seats`.
    snapshots: SeatMapCache,
    /// The newest live-map snapshot per showtime, with the instant its database read started.
    live_snapshots: Mutex<HashMap<ShowtimeId, Arc<LiveSlot>>>,
    /// Redis's first filter in front of the hold statement (off without Redis).
    gate: SeatGate,
    /// Hold attempts per customer.
    limiter: RateLimiter,
    /// Hold attempts per client address.
    address_limiter: RateLimiter,
    /// Caps on live holds (per customer, per address) the hold statement enforces.
    limits: HoldLimits,
    /// Turns of holds by one customer or address (see `hold_turn`).
    hold_turns: Box<[tokio::sync::Mutex<()>]>,
    metrics: HoldMetrics,
    /// The payment gateway for checkout (none: checkout answers 503).
    payments: Option<Payments>,
    /// Wakes the confirmation worker when a payment was recorded.
    worker_wake: tokio::sync::Notify,
    /// Wakes the refund worker when a refund became due.
    refund_wake: tokio::sync::Notify,
    /// Backlog figures for `/metrics`, refreshed by the housekeeping task.
    gauges: Gauges,
    /// Wakes the outbox relay when this process committed a booking event.
    pub(crate) relay_wake: Arc<tokio::sync::Notify>,
    /// Signs and checks ticket codes (see `with_ticket_keys`).
    ticket_keys: tickets::TicketKeys,
}

/// Striped locks for `Engine::hold_turn`.
const HOLD_TURNS: usize = 1024;

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
    /// Payments whose charge did not match the session asked for (refunded, not confirmed).
    pub payment_mismatches: AtomicU64,
    /// Payment events that failed too often, or could never succeed, parked for an operator.
    pub events_parked: AtomicU64,
}

/// Figures read from the database by the housekeeping task (so that a scrape of `/metrics`
/// costs no query); `-1` until first read.
pub struct Gauges {
    /// Committed booking events the relay has not delivered yet.
    pub outbox_unpublished: std::sync::atomic::AtomicI64,
    /// Outbox events parked for an operator.
    pub outbox_parked: std::sync::atomic::AtomicI64,
}

impl Default for Gauges {
    fn default() -> Self {
        Self {
            outbox_unpublished: (-1).into(),
            outbox_parked: (-1).into(),
        }
    }
}

impl HoldMetrics {
    fn count(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
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
    pub fn new(store: Arc<dyn Store>, clock: Clock, hold_ttl: Duration) -> Self {
        Self::with_live_bus(store, clock, hold_ttl, LiveBus::default())
    }

    pub fn with_live_bus(
        store: Arc<dyn Store>,
        clock: Clock,
        hold_ttl: Duration,
        live: LiveBus,
    ) -> Self {
        Self {
            store,
            clock,
            hold_ttl,
            layouts: RwLock::default(),
            live,
            snapshots: SeatMapCache::default(),
            live_snapshots: Mutex::default(),
            gate: SeatGate::default(),
            limiter: RateLimiter::off(),
            address_limiter: RateLimiter::off(),
            limits: HoldLimits::default(),
            hold_turns: (0..HOLD_TURNS)
                .map(|_| tokio::sync::Mutex::new(()))
                .collect(),
            metrics: HoldMetrics::default(),
            payments: None,
            worker_wake: tokio::sync::Notify::new(),
            refund_wake: tokio::sync::Notify::new(),
            gauges: Gauges::default(),
            relay_wake: Arc::new(tokio::sync::Notify::new()),
            ticket_keys: tickets::TicketKeys::random(),
        }
    }

    /// Puts the Redis seat gate in front of the hold statement.
    pub fn with_gate(mut self, gate: SeatGate) -> Self {
        self.gate = gate;
        self
    }

    /// Limits hold attempts per customer.
    pub fn with_rate_limit(mut self, limiter: RateLimiter) -> Self {
        self.limiter = limiter;
        self
    }

    /// Limits hold attempts per client address.
    pub fn with_address_rate_limit(mut self, limiter: RateLimiter) -> Self {
        self.address_limiter = limiter;
        self
    }

    /// Caps live holds per customer and seats held per address in a showtime.
    pub fn with_hold_limits(mut self, limits: HoldLimits) -> Self {
        self.limits = limits;
        self
    }

    /// The per-customer, then the per-address rate limit.
    async fn rate_limit(
        &self,
        customer: CustomerId,
        client_addr: Option<IpAddr>,
    ) -> Result<(), InventoryError> {
        let limited =
            |wait: Duration| InventoryError::RateLimited(wait.as_secs_f64().ceil().max(1.0) as u64);
        if let Err(wait) = self.limiter.check(&customer.0.to_string()).await {
            HoldMetrics::count(&self.metrics.rate_limited);
            return Err(limited(wait));
        }
        if let Some(addr) = client_addr.filter(|_| !self.address_limiter.is_off()) {
            if let Err(wait) = self.address_limiter.check(&addr.to_string()).await {
                HoldMetrics::count(&self.metrics.address_rate_limited);
                return Err(limited(wait));
            }
        }
        Ok(())
    }

    /// Waits for this customer's (and address's) turn to hold: two holds of one customer, or of
    /// one address when its seats are capped, never run at once in this process. Turns are
    /// striped locks, so memory does not grow with customers; unrelated customers rarely share
    /// one, and then only wait for a few milliseconds. Nothing to wait for without caps.
    async fn hold_turn(
        &self,
        customer: CustomerId,
        client_addr: Option<IpAddr>,
    ) -> Vec<tokio::sync::MutexGuard<'_, ()>> {
        use std::hash::BuildHasher;
        static SEED: std::sync::LazyLock<std::collections::hash_map::RandomState> =
            std::sync::LazyLock::new(Default::default);
        let stripe = |hash: u64| (hash % HOLD_TURNS as u64) as usize;
        let mut stripes = Vec::with_capacity(2);
        if self.limits.holds_per_customer.is_some() {
            stripes.push(stripe(SEED.hash_one(customer.0)));
        }
        if let (Some(_), Some(addr)) = (self.limits.seats_per_address, client_addr) {
            stripes.push(stripe(SEED.hash_one(addr)));
        }
        // Always in ascending order, so two holds never wait for each other's second lock.
        stripes.sort_unstable();
        stripes.dedup();
        let mut guards = Vec::with_capacity(stripes.len());
        for i in stripes {
            guards.push(self.hold_turns[i].lock().await);
        }
        guards
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
    }

    /// Deletes holds that ended more than `retention` ago and idempotency keys past their
    /// 24 hours; how many of each.
    pub async fn purge(&self, retention: chrono::Duration) -> Result<(u64, u64), InventoryError> {
        let now = self.clock.now();
        let holds = self.store.purge_holds(now, retention).await?;
        let keys = self.store.purge_idempotency_keys(now).await?;
        Ok((holds, keys))
    }

    pub fn gate(&self) -> &SeatGate {
        &self.gate
    }

    pub fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }

    pub fn live_bus(&self) -> &LiveBus {
        &self.live
    }

    /// After a commit: this process's snapshot learns the change at once, then every viewer
    /// (every process's, with Redis) is told.
    async fn announce(&self, showtime: ShowtimeId, message: LiveMessage) {
        self.snapshots.apply(showtime, message.seats());
        self.live.publish(showtime, message).await;
    }

    /// The seat map as `GET /showtimes/{id}/seats` serves it: from memory, at most a second or
    /// so behind the database (see `read_model`).
    pub async fn seat_map_snapshot(
        &self,
        showtime: ShowtimeId,
    ) -> Result<Arc<Snapshot>, InventoryError> {
        if let Some(snapshot) = self.snapshots.fresh(showtime) {
            return Ok(snapshot);
        }
        let started = std::time::Instant::now();
        let map = self.seat_map(showtime).await?;
        Ok(self.snapshots.store(showtime, map, started, &self.live))
    }

    /// `ShowtimeNotFound` unless the showtime exists (from the layout cache after the first call).
    pub async fn ensure_showtime(&self, showtime: ShowtimeId) -> Result<(), InventoryError> {
        self.layout(showtime).await.map(|_| ())
    }

    /// The live map's snapshot as JSON for a viewer that subscribed to the showtime's events at
    /// `subscribed_at`. Any snapshot whose database read started after that instant is complete
    /// for this viewer (what committed before the read is in it; what is published after the
    /// subscription is in the viewer's channel), so thousands of viewers connecting at once share
    /// a few reads instead of making one each.
    pub async fn live_snapshot_json(
        &self,
        showtime: ShowtimeId,
        subscribed_at: Instant,
    ) -> Result<Utf8Bytes, InventoryError> {
        let slot = self
            .live_snapshots
            .lock()
            .expect("snapshot slots")
            .entry(showtime)
            .or_default()
            .clone();
        let mut slot = slot.lock().await;
        if let Some((started, json)) = slot.as_ref() {
            if *started > subscribed_at {
                return Ok(json.clone());
            }
        }
        let started = Instant::now();
        let snapshot = self.snapshot(showtime).await?;
        let json: Utf8Bytes = serde_json::to_string(&snapshot)
            .expect("messages serialise")
            .into();
        *slot = Some((started, json.clone()));
        Ok(json)
    }

    /// Every seat's current state and version: the live map's snapshot.
    pub async fn snapshot(&self, showtime: ShowtimeId) -> Result<LiveMessage, InventoryError> {
        self.layout(showtime).await?;
        let states = self.store.seat_states(showtime, self.clock.now()).await?;
        let seats = states
            .into_iter()
            .filter_map(|s| {
                let code = app::domain::SeatCode::parse(&s.code).ok()?;
                Some(SeatChange {
                    code,
                    status: s.status,
                    version: s.version,
                })
            })
            .collect();
        Ok(LiveMessage::Snapshot {
            showtime_id: showtime,
            seats,
        })
    }

    pub fn clock(&self) -> &Clock {
        &self.clock
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

    /// HELD → BOOKED for every seat of the hold, or nothing (payment confirmation).
    pub async fn confirm(
        &self,
        hold: HoldId,
        booking: BookingId,
    ) -> Result<Vec<SeatChange>, InventoryError> {
        let showtime = hold.showtime_id();
        let seats = self
            .store
            .confirm(hold, booking, self.clock.now())
            .await?
            .ok_or(InventoryError::HoldLapsed)?;
        let codes: Vec<_> = seats.iter().map(|s| s.code.clone()).collect();
        let until = self.gate_keys_until(showtime).await;
        self.gate.book(showtime, &codes, booking, until).await;
        self.announce(
            showtime,
            LiveMessage::SeatsBooked {
                showtime_id: showtime,
                seats: seats.clone(),
            },
        )
        .await;
        Ok(seats)
    }

    /// Releases expired holds (the sweeper's work; correctness never depends on it).
    pub async fn sweep(&self) -> Result<Vec<Released>, InventoryError> {
        let released = self.store.sweep(self.clock.now()).await?;
        for r in &released {
            let message = LiveMessage::SeatsReleased {
                showtime_id: r.showtime,
                seats: r.changes.clone(),
            };
            self.announce(r.showtime, message).await;
        }
        Ok(released)
    }
}

#[async_trait::async_trait]
impl Inventory for Engine {
    /// Today's (venue time) and later showtimes: those that have started are listed as closed.
    async fn list_showtimes(&self) -> Result<Vec<ShowtimeSummary>, InventoryError> {
        let now = self.clock.now();
        let today = app::format::venue_time(now.unwrap_or_else(chrono::Utc::now))
            .date_naive()
            .and_hms_opt(0, 0, 0)
            .expect("midnight exists")
            .and_local_timezone(app::format::venue_time(chrono::Utc::now()).timezone())
            .single()
            .expect("fixed offset")
            .with_timezone(&chrono::Utc);
        Ok(self.store.list_showtimes(now, today).await?)
    }

    async fn seat_map(&self, showtime: ShowtimeId) -> Result<SeatMap, InventoryError> {
        let layout = self.layout(showtime).await?;
        let states: HashMap<String, (SeatStatus, i64)> = self
            .store
            .seat_states(showtime, self.clock.now())
            .await?
            .into_iter()
            .map(|s| (s.code, (s.status, s.version)))
            .collect();
        let price = |cat: &str| {
            layout
                .categories
                .iter()
                .find(|c| c.code == cat)
                .map_or(0, |c| c.price)
        };
        let seats = layout
            .seats
            .iter()
            .map(|s| {
                let (status, version) = states
                    .get(s.code.as_str())
                    .copied()
                    .unwrap_or((SeatStatus::Booked, 0));
                Seat {
                    code: s.code.clone(),
                    row: s.row.clone(),
                    number: s.number,
                    x: s.x,
                    y: s.y,
                    category: s.category.clone(),
                    price: price(&s.category),
                    accessible: s.accessible,
                    status,
                    version,
                }
            })
            .collect();
        Ok(SeatMap {
            showtime_id: showtime,
            movie_title: layout.movie_title.clone(),
            hall_name: layout.hall_name.clone(),
            starts_at: layout.starts_at,
            categories: layout.categories.clone(),
            seats,
            sales_open: self.clock.now().unwrap_or_else(chrono::Utc::now) < layout.sales_close_at(),
        })
    }

    async fn hold_from(
        &self,
        showtime: ShowtimeId,
        seats: &SeatSelection,
        customer: CustomerId,
        client_addr: Option<IpAddr>,
    ) -> Result<Hold, InventoryError> {
        let layout = self.layout(showtime).await?;
        let unknown: Vec<String> = seats
            .seats()
            .iter()
            .filter(|c| !layout.seats.iter().any(|s| &s.code == *c))
            .map(|c| c.to_string())
            .collect();
        if !unknown.is_empty() {
            return Err(InventoryError::UnknownSeats(unknown));
        }
        // Early answer without Redis or database work; the hold statement decides on its clock.
        if self.clock.now().unwrap_or_else(chrono::Utc::now) >= layout.sales_close_at() {
            return Err(InventoryError::SalesClosed);
        }
        self.rate_limit(customer, client_addr).await?;
        // Holds of one customer (and of one address) in this process go one at a time, so the
        // caps the hold statement checks cannot be passed by sending several holds at once.
        let _turn = self.hold_turn(customer, client_addr).await;
        let hold_id = HoldId::new(showtime, rand::random());
        // Releases the keys this attempt sets if it is abandoned before it settles them itself
        // (a release only removes keys that carry this hold's id, so it is always safe).
        let claim = self.gate.claim(showtime, seats.seats(), hold_id);
        let gated = match self
            .gate
            .enter(showtime, seats.seats(), hold_id, self.hold_ttl)
            .await
        {
            GateVerdict::Taken(taken) => {
                claim.settle();
                HoldMetrics::count(&self.metrics.gate_rejected);
                return Err(InventoryError::SeatsUnavailable(
                    taken.iter().map(|c| c.to_string()).collect(),
                ));
            }
            GateVerdict::Passed => {
                HoldMetrics::count(&self.metrics.gate_passed);
                true
            }
            // The call may have set the keys after all: released below if the database refuses.
            GateVerdict::Unknown => {
                HoldMetrics::count(&self.metrics.gate_bypassed);
                true
            }
            GateVerdict::Bypassed => {
                HoldMetrics::count(&self.metrics.gate_bypassed);
                false
            }
        };
        let req = HoldRequest {
            showtime,
            seats: seats.seats(),
            hold_id,
            customer,
            ttl: self.hold_ttl,
            client_addr,
            limits: self.limits,
        };
        HoldMetrics::count(&self.metrics.db_hold_statements);
        let outcome = self.store.hold(req, self.clock.now()).await;
        if gated && !matches!(outcome, Ok(HoldOutcome::Held { .. })) {
            // The database refused (or failed): free the keys this attempt set, and only those.
            self.gate.release(showtime, seats.seats(), hold_id).await;
        }
        claim.settle();
        match outcome? {
            HoldOutcome::Held {
                expires_at,
                changes,
            } => {
                HoldMetrics::count(&self.metrics.held);
                // Announced only now: the store returns after its transaction committed.
                self.announce(
                    showtime,
                    LiveMessage::SeatsHeld {
                        showtime_id: showtime,
                        seats: changes,
                    },
                )
                .await;
                Ok(Hold {
                    hold_id,
                    expires_at,
                    // The hold's own start on the one clock (the database's, when it decides).
                    server_time: expires_at
                        - chrono::Duration::from_std(self.hold_ttl).unwrap_or_default(),
                    seats: seats.seats().to_vec(),
                })
            }
            HoldOutcome::Rejected { unknown, .. } if !unknown.is_empty() => {
                Err(InventoryError::UnknownSeats(unknown))
            }
            HoldOutcome::Rejected { unavailable, .. } => {
                Err(InventoryError::SeatsUnavailable(unavailable))
            }
            HoldOutcome::Refused(HoldRefusal::SalesClosed) => Err(InventoryError::SalesClosed),
            HoldOutcome::Refused(HoldRefusal::HoldLimit) => Err(InventoryError::HoldLimit),
            HoldOutcome::Refused(HoldRefusal::AddressLimit) => {
                HoldMetrics::count(&self.metrics.address_capped);
                Err(InventoryError::AddressLimit)
            }
        }
    }

    async fn current_hold(
        &self,
        showtime: ShowtimeId,
        customer: CustomerId,
    ) -> Result<Option<Hold>, InventoryError> {
        let now = self.clock.now();
        let active = self.store.active_hold(showtime, customer, now).await?;
        Ok(active.map(|a| Hold {
            hold_id: a.hold_id,
            expires_at: a.expires_at,
            seats: a.seats,
            server_time: now.unwrap_or_else(chrono::Utc::now),
        }))
    }

    async fn checkout(
        &self,
        hold: HoldId,
        customer: CustomerId,
    ) -> Result<app::domain::Checkout, InventoryError> {
        Engine::checkout(self, hold, customer).await
    }

    async fn booking(
        &self,
        booking: BookingId,
        customer: CustomerId,
    ) -> Result<app::domain::BookingView, InventoryError> {
        Engine::booking(self, booking, customer).await
    }

    async fn bookings(
        &self,
        customer: CustomerId,
    ) -> Result<Vec<app::domain::BookingView>, InventoryError> {
        self.bookings_of(customer).await
    }

    async fn ticket(
        &self,
        booking: BookingId,
        customer: CustomerId,
    ) -> Result<app::domain::Ticket, InventoryError> {
        Engine::ticket(self, booking, customer).await
    }

    async fn sales(&self) -> Result<Vec<app::domain::SalesFigure>, InventoryError> {
        Ok(self
            .store
            .sales()
            .await?
            .into_iter()
            .map(|r| app::domain::SalesFigure {
                day: r.day.format("%Y-%m-%d").to_string(),
                showtime_id: r.showtime,
                movie_title: r.movie_title,
                starts_at: r.starts_at,
                bookings: r.bookings,
                seats: r.seats,
                revenue: r.revenue,
                refunds: r.refunds,
                refunded: r.refunded,
            })
            .collect())
    }

    async fn cancel(&self, hold: HoldId, customer: CustomerId) -> Result<(), InventoryError> {
        match self.store.cancel(hold, customer).await? {
            CancelOutcome::Released(seats) => {
                let showtime = hold.showtime_id();
                let codes: Vec<_> = seats.iter().map(|s| s.code.clone()).collect();
                self.gate.release(showtime, &codes, hold).await;
                self.announce(
                    showtime,
                    LiveMessage::SeatsReleased {
                        showtime_id: showtime,
                        seats,
                    },
                )
                .await;
                Ok(())
            }
            CancelOutcome::NotFound => Err(InventoryError::HoldNotFound),
            CancelOutcome::NotOwner => Err(InventoryError::NotYourHold),
        }
    }
}
