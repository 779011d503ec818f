//! Holds: the hold itself (rate limits, per-customer turns, the seat gate, the one statement),
//! cancel, the customer's live hold, the fenced confirm, and the sweeper's work.

use super::*;

/// Striped locks for `Engine::hold_turn`.
pub(super) const HOLD_TURNS: usize = 1024;

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

    pub(super) async fn place_hold(
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
        match layout
            .sales
            .at(self.clock.now().unwrap_or_else(chrono::Utc::now))
        {
            Sales::Open => {}
            Sales::Closed => return Err(InventoryError::SalesClosed),
            Sales::NotYet(opens) => return Err(not_open(opens)),
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
        }
    }

    pub(super) async fn live_hold_of(
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

    pub(super) async fn cancel_hold(
        &self,
        hold: HoldId,
        customer: CustomerId,
    ) -> Result<(), InventoryError> {
        match self.store.cancel(hold, customer).await? {
            CancelOutcome::Released(seats) => {
                let showtime = hold.showtime_id();
                let codes: Vec<_> = seats.iter().map(|s| s.code.clone()).collect();
                self.gate.release(showtime, &codes, hold).await;
                self.announce_released(showtime, seats).await;
                Ok(())
            }
            CancelOutcome::NotFound => Err(InventoryError::HoldNotFound),
            CancelOutcome::NotOwner => Err(InventoryError::NotYourHold),
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
            self.announce_released(r.showtime, r.changes.clone()).await;
        }
        Ok(released)
    }
}

/// The refusal of a hold before sales open at `opens`.
fn not_open(opens: chrono::DateTime<chrono::Utc>) -> InventoryError {
    InventoryError::SalesNotOpen(opens.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
}
