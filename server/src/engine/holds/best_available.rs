//! Best available: picking the best block on the live map and holding it, with the claims
//! that keep concurrent picks of this process on different blocks.

use super::*;

/// Seats that best-available picks in this process are holding at the moment, per showtime: a
/// pick leaves them out, so concurrent requests are given different blocks and their holds run
/// side by side. A claim ends when its hold is decided (and, if granted, already applied to the
/// seat-map snapshot), so a seat this process holds is claimed or shown as taken on the map a
/// pick reads together with the claims. (A pick made on that map can still lose a seat to a hold
/// decided while it was being made; it is then made again without it.)
#[derive(Default)]
pub(in crate::engine) struct Claims {
    claimed: Mutex<HashMap<ShowtimeId, HashMap<String, usize>>>,
    /// Told whenever a claim ends.
    ended: tokio::sync::Notify,
}

/// What one best-available pick came to.
enum Picking<'a> {
    /// These seats (on this map), claimed.
    Picked(seat_rules::Pick, Vec<Seat>, Claim<'a>),
    /// Nothing fits but seats other picks are holding right now.
    OnlyClaimed,
    /// Nothing fits.
    Nothing,
}

/// Ends its claim when dropped (also when the request is abandoned midway).
struct Claim<'a> {
    claims: &'a Claims,
    showtime: ShowtimeId,
    seats: Vec<String>,
}

impl Drop for Claim<'_> {
    fn drop(&mut self) {
        let mut claims = self.claims.claimed.lock().expect("claims");
        if let Some(claimed) = claims.get_mut(&self.showtime) {
            for seat in &self.seats {
                if let Some(n) = claimed.get_mut(seat) {
                    *n -= 1;
                    if *n == 0 {
                        claimed.remove(seat);
                    }
                }
            }
            if claimed.is_empty() {
                claims.remove(&self.showtime);
            }
        }
        self.claims.ended.notify_waiters();
    }
}
/// How often one best-available request picks again after others took its seats first (other
/// processes, or plain holds): each round excludes the seats lost, so it only runs out when
/// seats go faster than the database can hold them.
const PICK_ATTEMPTS: usize = 8;

impl Engine {
    /// Best available: picks the best seats on the live map and holds them, as one decision.
    /// A pick leaves out the seats other picks of this process are holding at that moment
    /// (`Claims`), so concurrent requests are given different blocks instead of all racing for
    /// the same one; a pick that still loses its seats (to another process, or to a plain hold)
    /// is made again without them.
    pub(super) async fn pick_and_hold(
        &self,
        showtime: ShowtimeId,
        layout: &Layout,
        request: &BestAvailable,
        terms: &Terms,
    ) -> Result<Hold, InventoryError> {
        let released = self.accessible_released(layout);
        let mut lost: BTreeSet<String> = BTreeSet::new();
        // How long a request that found nothing but seats other picks are holding right now
        // waits for those holds to be decided (their seats come back if they fail).
        let wait_until = Instant::now() + Duration::from_secs(2);
        for _ in 0..PICK_ATTEMPTS {
            let picked = loop {
                let ended = self.claims.ended.notified();
                let read = self.seat_map_snapshot(showtime).await?;
                match self.pick_and_claim(showtime, layout, &read, request, released, &lost) {
                    Picking::Picked(pick, seats, claim) => break Some((pick, seats, claim)),
                    Picking::OnlyClaimed if Instant::now() < wait_until => {
                        let left = wait_until.saturating_duration_since(Instant::now());
                        let _ = tokio::time::timeout(left, ended).await;
                    }
                    Picking::OnlyClaimed | Picking::Nothing => break None,
                }
            };
            let Some((pick, seats, _claim)) = picked else {
                let count = ("count", request.count.to_string());
                return Err(InventoryError::NoBlock(match request.category.as_deref() {
                    Some(c) => Reason::new(
                        "invalid.no_block_category",
                        &[count, ("category", c.to_string())],
                    ),
                    None => Reason::new("invalid.no_block", &[count]),
                }));
            };
            let selection = SeatSelection::parse(&pick.seats)?;
            let taking: BTreeSet<&str> = pick.seats.iter().map(String::as_str).collect();
            let lone_seats = match self.seat_rules.no_lone_seats {
                true => seat_rules::lone_seats(&seats, &taking, self.seat_rules, released),
                false => Vec::new(),
            };
            match self.hold_now(showtime, layout, &selection, terms).await {
                Ok(mut hold) => {
                    hold.together = Some(pick.together);
                    hold.lone_seats = lone_seats;
                    return Ok(hold);
                }
                Err(InventoryError::SeatsUnavailable(taken)) => {
                    // Someone this process had not heard of yet took them: pick again without
                    // them.
                    HoldMetrics::count(&self.metrics.repicks);
                    lost.extend(taken);
                }
                Err(e) => return Err(e),
            }
        }
        Err(InventoryError::NoBlock(Reason::new(
            "invalid.no_block_race",
            &[],
        )))
    }

    /// One best-available pick on this process's seat map — the cached snapshot if it is fresh
    /// (it has every change this process announced), else `read` — leaving out the seats other
    /// picks are holding right now and those `lost` earlier, and claiming what it picked. The
    /// map and the claims are read together under the claims' lock, so what this process holds
    /// is in the one or the other; the pick itself is made outside the lock, and claimed only
    /// if no other pick claimed any of its seats meanwhile (else it is made again).
    fn pick_and_claim(
        &self,
        showtime: ShowtimeId,
        layout: &Layout,
        read: &Arc<Snapshot>,
        request: &BestAvailable,
        released: bool,
        lost: &BTreeSet<String>,
    ) -> Picking<'_> {
        let category = request.category.as_deref();
        let pick_on = |seats: &[Seat]| {
            seat_rules::best_available(
                seats,
                request.count,
                category,
                self.seat_rules,
                released,
                layout.best_seat.as_deref(),
            )
        };
        loop {
            let (snapshot, claimed) = {
                let claims = self.claims.claimed.lock().expect("claims");
                let snapshot = self
                    .snapshots
                    .fresh(showtime)
                    .unwrap_or_else(|| read.clone());
                let claimed: BTreeSet<String> = claims
                    .get(&showtime)
                    .map(|c| c.keys().cloned().collect())
                    .unwrap_or_default();
                (snapshot, claimed)
            };
            // The map as this pick sees it: seats lost earlier and seats others are holding
            // are taken.
            let mut seats = snapshot.map().seats.clone();
            for seat in seats.iter_mut() {
                let code = seat.code.as_str();
                if lost.contains(code) || claimed.contains(code) {
                    seat.status = SeatStatus::Held;
                }
            }
            let Some(pick) = pick_on(&seats) else {
                if claimed.is_empty() {
                    return Picking::Nothing;
                }
                // Seats others are holding right now would do: they come back if those holds
                // fail.
                let mut without_claims = snapshot.map().seats.clone();
                for seat in without_claims.iter_mut() {
                    if lost.contains(seat.code.as_str()) {
                        seat.status = SeatStatus::Held;
                    }
                }
                return match pick_on(&without_claims) {
                    Some(_) => Picking::OnlyClaimed,
                    None => Picking::Nothing,
                };
            };
            let mut claims = self.claims.claimed.lock().expect("claims");
            let now_claimed = claims.entry(showtime).or_default();
            if pick.seats.iter().any(|s| now_claimed.contains_key(s)) {
                continue;
            }
            for seat in &pick.seats {
                *now_claimed.entry(seat.clone()).or_default() += 1;
            }
            let claim = Claim {
                claims: &self.claims,
                showtime,
                seats: pick.seats.clone(),
            };
            return Picking::Picked(pick, seats, claim);
        }
    }
}
