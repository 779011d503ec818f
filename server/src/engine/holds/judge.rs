//! Judging a hold before it is tried: whether sales are open, and the seat rules on the
//! selection (lone seats, companion seats) on the live map.

use super::*;

impl Engine {
    /// Whether the showtime's unsold wheelchair and companion seats are ordinary seats by now.
    pub(in crate::engine) fn accessible_released(&self, layout: &Layout) -> bool {
        let now = self.clock.now().unwrap_or_else(chrono::Utc::now);
        layout.accessible_release_at.is_some_and(|at| now >= at)
    }

    /// Refuses a hold early, without Redis or database work, when sales are not open (the hold
    /// statement decides again on its own clock).
    pub(super) fn check_sales(&self, layout: &Layout) -> Result<(), InventoryError> {
        match layout
            .sales
            .at(self.clock.now().unwrap_or_else(chrono::Utc::now))
        {
            Sales::Open => Ok(()),
            Sales::Closed => Err(InventoryError::SalesClosed),
            Sales::NotYet(opens) => Err(not_open(opens)),
        }
    }

    /// The seat rules on a chosen selection, judged on the live seat map: the seats it leaves
    /// alone unavoidably, or why it is refused. No map is read when no rule can apply. A
    /// selection with seats the map shows as taken is not judged at all: the hold statement
    /// answers it (409 naming those seats, as it always has), since no rule is about seats
    /// that cannot be had. (`staff`: house seats count as free, as the hold statement sees them.)
    pub(super) async fn judge_selection(
        &self,
        showtime: ShowtimeId,
        layout: &Layout,
        seats: &SeatSelection,
        staff: bool,
    ) -> Result<Vec<String>, InventoryError> {
        let companion = seats
            .seats()
            .iter()
            .any(|c| layout.seats.iter().any(|s| &s.code == c && s.companion));
        if !self.seat_rules.no_lone_seats && !companion {
            return Ok(Vec::new());
        }
        let snapshot = self.seat_map_snapshot(showtime).await?;
        let taking: BTreeSet<&str> = seats.seats().iter().map(|c| c.as_str()).collect();
        let on_map = &snapshot.map().seats;
        let mut house = false;
        for seat in on_map.iter().filter(|s| taking.contains(s.code.as_str())) {
            match seat.status {
                SeatStatus::Available => {}
                SeatStatus::House if staff => house = true,
                _ => return Ok(Vec::new()),
            }
        }
        // A clerk's house seats are judged as the free seats they are to the clerk.
        let owned: Vec<Seat>;
        let map: &[Seat] = match house {
            false => on_map,
            true => {
                owned = on_map
                    .iter()
                    .cloned()
                    .map(|mut seat| {
                        if taking.contains(seat.code.as_str()) {
                            seat.status = SeatStatus::Available;
                        }
                        seat
                    })
                    .collect();
                &owned
            }
        };
        let released = self.accessible_released(layout);
        seat_rules::judge(map, &taking, self.seat_rules, released).map_err(
            |refusal| match refusal {
                Refusal::LoneSeat(seats) => InventoryError::LoneSeat(seats),
                Refusal::CompanionNeedsWheelchair { per_place } => {
                    InventoryError::CompanionNeedsWheelchair(per_place)
                }
            },
        )
    }
}

/// The refusal of a hold before sales open at `opens`.
pub(super) fn not_open(opens: chrono::DateTime<chrono::Utc>) -> InventoryError {
    InventoryError::SalesNotOpen(opens.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
}
