//! Runs of seats: the seats of one row side by side, as the layout places them.

use crate::domain::Seat;

/// The hall's runs: seats of one row side by side (grid columns one apart), left to right. A
/// gap or an aisle ends a run; seat labels play no part.
pub fn runs(seats: &[Seat]) -> Vec<Vec<&Seat>> {
    run_indices(seats)
        .into_iter()
        .map(|run| run.into_iter().map(|i| &seats[i]).collect())
        .collect()
}

/// [`runs`], each seat given by its index in `seats`.
pub(super) fn run_indices(seats: &[Seat]) -> Vec<Vec<usize>> {
    let mut sorted: Vec<usize> = (0..seats.len()).collect();
    sorted.sort_unstable_by_key(|&i| (seats[i].y, seats[i].x, i));
    let mut out: Vec<Vec<usize>> = Vec::new();
    for i in sorted {
        let seat = &seats[i];
        match out.last_mut() {
            Some(run)
                if run.last().is_some_and(|&l| {
                    let last = &seats[l];
                    last.y == seat.y && last.x + 1 == seat.x
                }) =>
            {
                run.push(i)
            }
            _ => out.push(vec![i]),
        }
    }
    out
}
