//! Holds: the seat rules, the hold itself (who holds and on what terms, rate limits,
//! per-customer turns, the seat gate, the one statement), cancel, the customer's live hold, the
//! fenced confirm, and the sweeper's work. Best available's picking is in `best_available`.

mod best_available;
mod judge;

use judge::not_open;

use super::*;
use app::domain::seat_rules::{self, Refusal, Rules};
use app::domain::BestAvailable;
use app::engine::{Holder, Holds};
use std::collections::BTreeSet;

pub(super) use best_available::Claims;

/// Striped locks for `Engine::hold_turn`.
pub(super) const HOLD_TURNS: usize = 1024;

/// What a hold is allowed, by who holds (see [`Holder`]).
pub(super) struct Terms {
    /// The customer id the hold carries.
    customer: CustomerId,
    /// The client address the per-address limits count (IPv6: its /56).
    address: Option<IpAddr>,
    /// How long the hold lasts: a customer's hold time, or [`CLERK_HOLD_TTL`] at the counter.
    ttl: Duration,
    /// The caps the hold statement checks: staff pick and release seats all shift long, so a
    /// clerk has no cool-down.
    limits: HoldLimits,
    /// Whether the hold rate limits count it (customers' holds).
    rate_limited: bool,
    /// Whether house seats may be taken (a clerk's).
    house_ok: bool,
}

impl Engine {
    /// The terms of `holder`'s holds.
    fn terms(&self, holder: &Holder) -> Terms {
        let clerk = holder.is_clerk();
        Terms {
            customer: holder.customer_id(),
            address: holder.address().map(crate::net::bucket),
            ttl: if clerk { CLERK_HOLD_TTL } else { self.hold_ttl },
            limits: match clerk {
                true => HoldLimits {
                    cooldown: None,
                    ..self.limits
                },
                false => self.limits,
            },
            rate_limited: !clerk,
            house_ok: clerk,
        }
    }
}

pub use crate::gate::CLERK_HOLD_TTL;

#[async_trait::async_trait]
impl Holds for Engine {
    async fn hold_seats(
        &self,
        showtime: ShowtimeId,
        seats: &SeatSelection,
        holder: Holder,
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
        self.check_sales(&layout)?;
        let spent = self
            .spend_admission(showtime, &holder, seats.seats().len())
            .await?;
        let terms = self.terms(&holder);
        let outcome = async {
            self.rate_limit(&terms).await?;
            self.count_hold_attempt(showtime, &holder).await;
            let lone_seats = self
                .judge_selection(showtime, &layout, seats, terms.house_ok)
                .await?;
            let mut hold = self.hold_now(showtime, &layout, seats, &terms).await?;
            hold.lone_seats = lone_seats;
            Ok(hold)
        }
        .await;
        self.settle_admission(spent, &outcome).await;
        outcome
    }

    async fn hold_best(
        &self,
        showtime: ShowtimeId,
        request: &BestAvailable,
        holder: Holder,
    ) -> Result<Hold, InventoryError> {
        let request = request.clone().check()?;
        let layout = self.layout(showtime).await?;
        if let Some(category) = &request.category {
            if !layout.categories.iter().any(|c| &c.code == category) {
                let known: Vec<&str> = layout.categories.iter().map(|c| c.code.as_str()).collect();
                return Err(InventoryError::invalid(
                    "invalid.no_category",
                    &[
                        ("category", category.to_string()),
                        ("categories", known.join(", ")),
                    ],
                ));
            }
        }
        self.check_sales(&layout)?;
        let spent = self
            .spend_admission(showtime, &holder, request.count)
            .await?;
        let terms = self.terms(&holder);
        let outcome = async {
            self.rate_limit(&terms).await?;
            self.count_hold_attempt(showtime, &holder).await;
            self.pick_and_hold(showtime, &layout, &request, &terms)
                .await
        }
        .await;
        self.settle_admission(spent, &outcome).await;
        outcome
    }

    async fn cancel_hold(&self, hold: HoldId, customer: CustomerId) -> Result<(), InventoryError> {
        match self.store.cancel_hold(hold, customer).await? {
            CancelOutcome::Released(seats) => {
                let showtime = hold.showtime_id();
                let codes: Vec<_> = seats.iter().map(|s| s.code.clone()).collect();
                self.gate.release(showtime, &codes, hold).await;
                self.announce_released(showtime, seats).await;
                let keep = self.rooms.room.policy.rehold;
                self.admission_hold_ended(hold, keep).await;
                Ok(())
            }
            CancelOutcome::NotFound => Err(InventoryError::HoldNotFound),
            CancelOutcome::NotOwner => Err(InventoryError::NotYourHold),
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
            together: None,
            lone_seats: Vec::new(),
        }))
    }
}

impl Engine {
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

    /// The venue's seat-selection rules.
    pub fn with_seat_rules(mut self, rules: Rules) -> Self {
        self.seat_rules = rules;
        self
    }

    /// The per-customer, then the per-address rate limit (customers' holds only).
    async fn rate_limit(&self, terms: &Terms) -> Result<(), InventoryError> {
        if !terms.rate_limited {
            return Ok(());
        }
        let (customer, client_addr) = (terms.customer, terms.address);
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

    /// The hold itself, once the request is judged: the customer's turn, the seat gate, the
    /// hold statement, and the announcement, on the holder's terms.
    async fn hold_now(
        &self,
        showtime: ShowtimeId,
        layout: &Layout,
        seats: &SeatSelection,
        terms: &Terms,
    ) -> Result<Hold, InventoryError> {
        let (ttl, customer, client_addr) = (terms.ttl, terms.customer, terms.address);
        // Holds of one customer (and of one address) in this process go one at a time, so the
        // caps the hold statement checks cannot be passed by sending several holds at once.
        let _turn = self.hold_turn(customer, client_addr).await;
        let hold_id = HoldId::new(showtime, rand::random());
        // Releases the keys this attempt sets if it is abandoned before it settles them itself
        // (a release only removes keys that carry this hold's id, so it is always safe).
        let claim = self.gate.claim(showtime, seats.seats(), hold_id);
        let gated = match self.gate.enter(showtime, seats.seats(), hold_id, ttl).await {
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
            ttl,
            client_addr,
            limits: terms.limits,
            house_ok: terms.house_ok,
        };
        HoldMetrics::count(&self.metrics.db_hold_statements);
        let outcome = self.store.hold_seats(req, self.clock.now()).await;
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
                    server_time: expires_at - chrono::Duration::from_std(ttl).unwrap_or_default(),
                    seats: seats.seats().to_vec(),
                    together: None,
                    lone_seats: Vec::new(),
                })
            }
            HoldOutcome::Rejected { unknown, .. } if !unknown.is_empty() => Err(
                InventoryError::UnknownSeats(crate::store::seat_texts(&unknown)),
            ),
            HoldOutcome::Rejected { unavailable, .. } => Err(InventoryError::SeatsUnavailable(
                crate::store::seat_texts(&unavailable),
            )),
            HoldOutcome::Refused(HoldRefusal::SalesClosed) => Err(InventoryError::SalesClosed),
            HoldOutcome::Refused(HoldRefusal::Cancelled) => Err(InventoryError::ShowtimeCancelled),
            HoldOutcome::Refused(HoldRefusal::SalesNotOpen) => Err(layout
                .sales
                .opens_at
                .map_or(InventoryError::SalesClosed, not_open)),
            HoldOutcome::Refused(HoldRefusal::HoldLimit) => Err(InventoryError::HoldLimit),
            HoldOutcome::Refused(HoldRefusal::AddressLimit) => {
                HoldMetrics::count(&self.metrics.address_capped);
                Err(InventoryError::AddressLimit)
            }
            HoldOutcome::Refused(HoldRefusal::Cooldown(until)) => {
                let now = self.clock.now().unwrap_or_else(chrono::Utc::now);
                let ms = (until - now).num_milliseconds().max(0);
                Err(InventoryError::RecentlyReleased(
                    ((ms + 999) / 1000).max(1) as u64
                ))
            }
        }
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
        self.announce_booked(showtime, booking, seats.clone()).await;
        Ok(seats)
    }

    /// Releases expired holds (the sweeper's work; correctness never depends on it).
    pub async fn sweep(&self) -> Result<Vec<Released>, InventoryError> {
        let released = self.store.sweep(self.clock.now()).await?;
        for r in &released {
            self.announce_released(r.showtime, r.changes.clone()).await;
        }
        Ok(released)
    }
}
