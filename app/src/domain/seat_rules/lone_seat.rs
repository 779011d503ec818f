//! The lone-seat rule: a lone seat is a free seat with no free seat beside it in its run (see
//! the contract in `seat_rules`). A selection leaves a lone seat when a seat is lone after it and was
//! not before; with `exempt_edges`, a lone seat at a row end or an aisle is not counted.

use super::runs::run_indices;
use super::{is_free, Rules};
use crate::domain::{Seat, SeatStatus};
use std::borrow::Cow;
use std::collections::BTreeSet;

/// The lone seats a selection of `taking` would leave, wheelchair places and companion seats
/// not counted until they are released (see [`lone_seats_counting_all`]).
pub fn lone_seats(
    seats: &[Seat],
    taking: &BTreeSet<&str>,
    rules: Rules,
    accessible_released: bool,
) -> Vec<String> {
    lone_seats_counting_all(&ordinary_view(seats, accessible_released), taking, rules)
}

/// The lone seats a selection of `taking` would leave, every seat counted as it is (wheelchair
/// places and companion seats too): free seats that are a free stretch of one after it and
/// were not before it. With `exempt_edges`, a seat at a row end or an aisle is not counted.
pub fn lone_seats_counting_all(
    seats: &[Seat],
    taking: &BTreeSet<&str>,
    rules: Rules,
) -> Vec<String> {
    let mut lone = Vec::new();
    for run in run_indices(seats) {
        if run.iter().any(|&i| taking.contains(seats[i].code.as_str())) {
            lone_in_run(seats, &run, taking, rules, &mut lone);
        }
    }
    lone.into_iter()
        .map(|i| seats[i].code.to_string())
        .collect()
}

/// The lone seats taking `taking` leaves within one run (`run`: indices into `seats`), pushed
/// to `out` as indices into `seats`, left to right (a selection only ever leaves lone seats in
/// the runs it takes from).
pub(super) fn lone_in_run(
    seats: &[Seat],
    run: &[usize],
    taking: &BTreeSet<&str>,
    rules: Rules,
    out: &mut Vec<usize>,
) {
    let free_before: Vec<bool> = run.iter().map(|&i| is_free(&seats[i])).collect();
    let free_after: Vec<bool> = run
        .iter()
        .map(|&i| is_free(&seats[i]) && !taking.contains(seats[i].code.as_str()))
        .collect();
    for at in 0..run.len() {
        let lone = |free: &[bool]| {
            free[at] && (at == 0 || !free[at - 1]) && (at + 1 == free.len() || !free[at + 1])
        };
        let at_edge = at == 0 || at + 1 == run.len();
        if lone(&free_after) && !lone(&free_before) && !(rules.exempt_edges && at_edge) {
            out.push(run[at]);
        }
    }
}

/// Whether taking seats `start..start + len` of a run (all free; `free`: which of the run's
/// seats are) leaves a lone seat just before or just after them: it had a free neighbour (the
/// seat taken) and has none after.
pub(super) fn block_leaves_lone_seat(
    free: &[bool],
    start: usize,
    len: usize,
    exempt_edges: bool,
) -> bool {
    let n = free.len();
    let end = start + len;
    let left = start
        .checked_sub(1)
        .is_some_and(|l| free[l] && (l == 0 || !free[l - 1]) && !(exempt_edges && l == 0));
    let right =
        end < n && free[end] && (end + 1 == n || !free[end + 1]) && !(exempt_edges && end + 1 == n);
    left || right
}

/// The seats as the lone-seat rule sees them: until the showtime's accessible seats are
/// released, a free wheelchair place or companion seat is not a seat an ordinary customer could
/// be left in as a lone seat (nobody else would take it anyway), so it counts as taken. The
/// seats keep their order, so an index means the same seat in both.
pub(super) fn ordinary_view(seats: &[Seat], accessible_released: bool) -> Cow<'_, [Seat]> {
    if accessible_released
        || !seats
            .iter()
            .any(|s| (s.accessible || s.companion) && is_free(s))
    {
        return Cow::Borrowed(seats);
    }
    Cow::Owned(
        seats
            .iter()
            .map(|s| match (s.accessible || s.companion) && is_free(s) {
                true => Seat {
                    status: SeatStatus::Held,
                    ..s.clone()
                },
                false => s.clone(),
            })
            .collect(),
    )
}
