//! Seat-selection rules, pure: the engine applies them inside every hold, and the seat map page
//! runs the same code to explain them.
//!
//! # The contract
//!
//! - **Runs** ([`runs()`]): the seats of one row side by side (grid columns one apart), taken
//!   from the layout. A gap or an aisle ends a run; seat labels play no part.
//! - **Lone seat** ([`lone_seats`]): a free seat with no free seat beside it in its run. A
//!   selection *leaves* a lone seat when a seat is lone after it and was not before it. With
//!   [`Rules::exempt_edges`], a lone seat at a row end or an aisle is not counted. Until the
//!   showtime's accessible seats are released, free wheelchair places and companion seats count
//!   as taken (nobody else would take them anyway), so they are never lone seats.
//! - **Companion seats**: a selection may have at most [`companions_per_place`] companion seats
//!   per wheelchair place it takes, until the accessible seats are released.
//! - **Judging a hold** ([`judge`]): with [`Rules::no_lone_seats`], a selection that leaves a
//!   lone seat is refused ([`Refusal::LoneSeat`]) only when something better could be chosen,
//!   in best available's order: seats side by side, when seats side by side that leave no lone
//!   seat are free (same category, same number); seats apart, when any selection that leaves no
//!   lone seat is free. A selection with a wheelchair place is not held to the lone-seat rule.
//! - **Best available** ([`best_available()`]): never wheelchair places or companion seats until
//!   they are released; side by side leaving no lone seat, else side by side, else as close
//!   together as possible, leaving no lone seat if that can be done. What best available picks,
//!   [`judge`] allows.
//! - **"Best"** is closeness to the hall's optimal point — its best seat where the layout names
//!   one, else the middle of the seat columns and of the rows: a block's centre is scored by its
//!   squared distance to that point, a row counting twice a column (moving back a row matters
//!   more than moving sideways). Ties go to the front row, then the left.
//!
//! By concern: `runs.rs` (runs of seats), `lone_seat.rs` (the lone-seat rule),
//! `best_available.rs` (the picking); the rules, the companion rule and the judgement are here.

mod best_available;
mod lone_seat;
mod runs;
#[cfg(test)]
mod tests;

pub use best_available::{best_available, Pick};
pub use lone_seat::{lone_seats, lone_seats_counting_all};
pub use runs::runs;

use crate::domain::{Seat, SeatStatus};
use best_available::BlockSearch;
use lone_seat::ordinary_view;
use std::collections::BTreeSet;

/// How the rules are applied (a venue setting; seat maps carry it so pages explain it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase", default)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Rules {
    /// Refuse (or avoid, when picking) a selection that leaves a lone seat.
    pub no_lone_seats: bool,
    /// A lone seat at a row end or an aisle is not counted.
    pub exempt_edges: bool,
}

impl Default for Rules {
    fn default() -> Self {
        Self {
            no_lone_seats: true,
            exempt_edges: false,
        }
    }
}

/// Why a selection of seats may not be held (apart from a seat being taken).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// It would leave these lone seats, and a selection of the same size would not.
    LoneSeat(Vec<String>),
    /// Companion seats without a wheelchair place, or more of them than one place comes with.
    CompanionNeedsWheelchair { per_place: usize },
}

fn is_free(seat: &Seat) -> bool {
    seat.status == SeatStatus::Available
}

/// How many companion seats come with one wheelchair place: the hall's companion seats per
/// wheelchair place, rounded up, and at least one.
pub fn companions_per_place(seats: &[Seat]) -> usize {
    let places = seats.iter().filter(|s| s.accessible).count();
    let companions = seats.iter().filter(|s| s.companion).count();
    if places == 0 {
        return 1;
    }
    companions.div_ceil(places).max(1)
}

/// Judges a selection by the rules: `Ok` with the lone seats it leaves because nothing better
/// could be chosen (usually none), or why it is refused. `accessible_released`: the showtime's
/// accessible seats are ordinary seats by now.
///
/// "Nothing better" follows best available's order: seats side by side that leave a lone seat
/// are refused only when seats side by side that leave no lone seat are free (in the same
/// category, of the same number); seats apart that leave a lone seat, when any selection that
/// leaves no lone seat is free. A selection with a wheelchair place is not held to the
/// lone-seat rule: where those places are is the layout's doing, not the customer's.
pub fn judge(
    seats: &[Seat],
    taking: &BTreeSet<&str>,
    rules: Rules,
    accessible_released: bool,
) -> Result<Vec<String>, Refusal> {
    let chosen: Vec<&Seat> = seats
        .iter()
        .filter(|s| taking.contains(s.code.as_str()))
        .collect();
    let places = chosen.iter().filter(|s| s.accessible).count();
    if !accessible_released {
        let companions = chosen.iter().filter(|s| s.companion).count();
        let per_place = companions_per_place(seats);
        if companions > places * per_place {
            return Err(Refusal::CompanionNeedsWheelchair { per_place });
        }
    }
    if !rules.no_lone_seats || (places > 0 && !accessible_released) {
        return Ok(Vec::new());
    }
    let view = ordinary_view(seats, accessible_released);
    let lone = lone_seats_counting_all(&view, taking, rules);
    if lone.is_empty() {
        return Ok(lone);
    }
    let category = chosen
        .first()
        .map(|s| s.category.as_str())
        .filter(|c| chosen.iter().all(|s| s.category == *c));
    let search = BlockSearch::new(&view, category, rules, accessible_released);
    let side_by_side = search.runs.iter().any(|run| {
        run.windows(chosen.len())
            .any(|w| w.iter().all(|&i| taking.contains(view[i].code.as_str())))
    });
    let better = match side_by_side {
        true => search.blocks(chosen.len()).iter().any(|(_, _, lone)| !lone),
        false => search.avoids_lone_seats(chosen.len()),
    };
    match better {
        true => Err(Refusal::LoneSeat(lone)),
        false => Ok(lone),
    }
}
