//! Seat-selection rules, pure (the first part of the seat-rules work; the engine does not call
//! them yet): runs of adjacent seats taken from the layout — a gap or an aisle ends a run, seat
//! labels play no part —, the lone-seat rule, and the best-available pick.
//!
//! "Best" is closeness to the hall's optimal point, by default the middle of the seat columns
//! and of the rows: a block's centre is scored by its squared distance to that point, a row
//! counting twice a column (moving back a row matters more than moving sideways). Ties go to
//! the front row, then the left.

use crate::domain::{Seat, SeatStatus};
use std::collections::BTreeSet;

/// How the rules are applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rules {
    /// Refuse (or avoid, when picking) a selection that leaves a single free seat alone.
    pub no_lone_seats: bool,
    /// A seat alone at a row end or an aisle does not count as stranded.
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

/// What best-available picked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pick {
    /// Seat codes, left to right, front to back.
    pub seats: Vec<String>,
    /// All in one run, side by side.
    pub together: bool,
}

/// The hall's runs: seats of one row side by side (grid columns one apart), left to right.
pub fn runs(seats: &[Seat]) -> Vec<Vec<&Seat>> {
    let mut sorted: Vec<&Seat> = seats.iter().collect();
    sorted.sort_by_key(|s| (s.y, s.x));
    let mut out: Vec<Vec<&Seat>> = Vec::new();
    for seat in sorted {
        match out.last_mut() {
            Some(run)
                if run
                    .last()
                    .is_some_and(|l| l.y == seat.y && l.x + 1 == seat.x) =>
            {
                run.push(seat)
            }
            _ => out.push(vec![seat]),
        }
    }
    out
}

fn is_free(seat: &Seat) -> bool {
    seat.status == SeatStatus::Available
}

/// Seats a selection of `taking` would leave alone: free seats that are a free stretch of one
/// after it and were not before it. With `exempt_edges`, a seat at a row end or an aisle is
/// not counted.
pub fn stranded(seats: &[Seat], taking: &BTreeSet<&str>, rules: Rules) -> Vec<String> {
    let mut out = Vec::new();
    for run in runs(seats) {
        let free_before: Vec<bool> = run.iter().map(|s| is_free(s)).collect();
        let free_after: Vec<bool> = run
            .iter()
            .map(|s| is_free(s) && !taking.contains(s.code.as_str()))
            .collect();
        for i in 0..run.len() {
            let alone = |free: &[bool]| {
                free[i] && (i == 0 || !free[i - 1]) && (i + 1 == free.len() || !free[i + 1])
            };
            let at_edge = i == 0 || i + 1 == run.len();
            if alone(&free_after) && !alone(&free_before) && !(rules.exempt_edges && at_edge) {
                out.push(run[i].code.to_string());
            }
        }
    }
    out
}

/// The optimal point `(column, row)`: the middle of the seat columns and of the rows.
fn optimal_point(seats: &[Seat]) -> (f64, f64) {
    let (mut min_x, mut max_x, mut min_y, mut max_y) = (i32::MAX, i32::MIN, i32::MAX, i32::MIN);
    for s in seats {
        min_x = min_x.min(s.x);
        max_x = max_x.max(s.x);
        min_y = min_y.min(s.y);
        max_y = max_y.max(s.y);
    }
    (
        f64::from(min_x + max_x) / 2.0,
        f64::from(min_y + max_y) / 2.0,
    )
}

/// A block's distance from the optimal point: a row counts twice a column.
fn score(block: &[&Seat], point: (f64, f64)) -> f64 {
    let n = block.len() as f64;
    let x = block.iter().map(|s| f64::from(s.x)).sum::<f64>() / n;
    let y = block.iter().map(|s| f64::from(s.y)).sum::<f64>() / n;
    (x - point.0).powi(2) + 2.0 * (y - point.1).powi(2)
}

/// The best `count` free seats (of `category`, if named), never wheelchair places or companion
/// seats: side by side leaving no one alone; else side by side (a lone seat unavoidable); else
/// as close together as possible, leaving no one alone if that can be done. `None` when fewer
/// than `count` seats are free.
pub fn best_available(
    seats: &[Seat],
    count: usize,
    category: Option<&str>,
    rules: Rules,
) -> Option<Pick> {
    if count == 0 {
        return None;
    }
    let point = optimal_point(seats);
    let eligible = |s: &Seat| {
        is_free(s) && !s.accessible && !s.companion && category.is_none_or(|c| s.category == c)
    };
    let strands = |block: &[&Seat]| {
        let taking: BTreeSet<&str> = block.iter().map(|s| s.code.as_str()).collect();
        !stranded(seats, &taking, rules).is_empty()
    };
    let pick = |block: &[&Seat], together: bool| Pick {
        seats: block.iter().map(|s| s.code.to_string()).collect(),
        together,
    };
    // Side by side: every window of `count` eligible seats in a run.
    let mut blocks: Vec<(f64, Vec<&Seat>)> = Vec::new();
    for run in runs(seats) {
        for window in run.windows(count) {
            if window.iter().all(|s| eligible(s)) {
                blocks.push((score(window, point), window.to_vec()));
            }
        }
    }
    blocks.sort_by(|a, b| {
        a.0.total_cmp(&b.0)
            .then_with(|| (a.1[0].y, a.1[0].x).cmp(&(b.1[0].y, b.1[0].x)))
    });
    if let Some((_, block)) = blocks
        .iter()
        .find(|(_, b)| !rules.no_lone_seats || !strands(b))
    {
        return Some(pick(block, true));
    }
    if let Some((_, block)) = blocks.first() {
        return Some(pick(block, true));
    }
    // Apart: around each eligible seat, the nearest others; the tightest group wins.
    let free: Vec<&Seat> = seats.iter().filter(|s| eligible(s)).collect();
    if free.len() < count {
        return None;
    }
    let mut groups: Vec<(f64, Vec<&Seat>)> = free
        .iter()
        .map(|anchor| {
            let mut near = free.clone();
            near.sort_by_key(|s| {
                (
                    (s.y - anchor.y).abs() * 2 + (s.x - anchor.x).abs(),
                    s.y,
                    s.x,
                )
            });
            near.truncate(count);
            near.sort_by_key(|s| (s.y, s.x));
            let spread = near
                .iter()
                .map(|s| f64::from((s.y - anchor.y).abs() * 2 + (s.x - anchor.x).abs()))
                .sum::<f64>();
            (spread + score(&near, point) / 100.0, near)
        })
        .collect();
    groups.sort_by(|a, b| a.0.total_cmp(&b.0));
    let chosen = groups
        .iter()
        .find(|(_, g)| !rules.no_lone_seats || !strands(g))
        .or(groups.first())?;
    Some(pick(&chosen.1, false))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::SeatCode;

    /// Rows of seats from a drawing: `.` free, `x` sold, `w` a free wheelchair place, `c` a free
    /// companion seat, ` ` an aisle. Row letters from A at the front.
    fn hall(rows: &[&str]) -> Vec<Seat> {
        let mut seats = Vec::new();
        for (y, line) in rows.iter().enumerate() {
            let row = char::from(b'A' + y as u8).to_string();
            let mut number = 0;
            for (x, mark) in line.chars().enumerate() {
                if mark == ' ' {
                    continue;
                }
                number += 1;
                seats.push(Seat {
                    code: SeatCode::parse(&format!("{row}{number}")).unwrap(),
                    row: row.clone(),
                    number,
                    x: x as i32 + 1,
                    y: y as i32 + 1,
                    category: "STANDARD".into(),
                    price: 10_000,
                    accessible: mark == 'w',
                    companion: mark == 'c',
                    status: if mark == 'x' {
                        SeatStatus::Booked
                    } else {
                        SeatStatus::Available
                    },
                    version: 0,
                });
            }
        }
        seats
    }

    fn codes(pick: &Option<Pick>) -> Vec<&str> {
        pick.as_ref()
            .map(|p| p.seats.iter().map(String::as_str).collect())
            .unwrap_or_default()
    }

    #[test]
    fn an_aisle_ends_a_run_and_labels_play_no_part() {
        let seats = hall(&["... ..."]);
        let lengths: Vec<usize> = runs(&seats).iter().map(Vec::len).collect();
        assert_eq!(lengths, [3, 3]);
    }

    #[test]
    fn a_selection_that_leaves_one_seat_alone_names_it() {
        let seats = hall(&["x......x"]);
        let taking = |codes: &[&'static str]| codes.iter().copied().collect::<BTreeSet<&str>>();
        assert_eq!(
            stranded(&seats, &taking(&["A3", "A4"]), Rules::default()),
            ["A2"]
        );
        assert!(stranded(&seats, &taking(&["A2", "A3"]), Rules::default()).is_empty());
        // At a row end: counted, unless the venue exempts ends and aisles.
        let seats = hall(&["......"]);
        assert_eq!(
            stranded(&seats, &taking(&["A2", "A3"]), Rules::default()),
            ["A1"]
        );
        let exempt = Rules {
            exempt_edges: true,
            ..Rules::default()
        };
        assert!(stranded(&seats, &taking(&["A2", "A3"]), exempt).is_empty());
        // A seat alone before the selection is not its doing.
        let seats = hall(&[".x...."]);
        assert!(stranded(&seats, &taking(&["A3", "A4"]), Rules::default()).is_empty());
    }

    #[test]
    fn the_published_example_seats_4_and_5_sold() {
        // Front row: seats 4 and 5 sold, so every pair in it leaves someone alone.
        let seats = hall(&["...xx...", "........"]);
        let default = best_available(&seats, 2, None, Rules::default());
        assert_eq!(
            codes(&default),
            ["B4", "B5"],
            "the next row, together, in the middle"
        );
        assert!(default.unwrap().together);
        let off = Rules {
            no_lone_seats: false,
            ..Rules::default()
        };
        let rows = hall(&["...xx..."]);
        assert_eq!(codes(&best_available(&rows, 2, None, off)), ["A2", "A3"]);
    }

    #[test]
    fn best_available_keeps_accessible_seats_and_categories_apart_and_says_when_apart() {
        let seats = hall(&["wc..cw"]);
        assert_eq!(
            codes(&best_available(&seats, 2, None, Rules::default())),
            ["A3", "A4"]
        );
        assert_eq!(
            best_available(&seats, 3, None, Rules::default()),
            None,
            "only two ordinary seats"
        );
        let mut mixed = hall(&["....", "...."]);
        for s in mixed.iter_mut().filter(|s| s.row == "B") {
            s.category = "PREMIUM".into();
        }
        // In a row of four, the middle pair would leave both ends alone: a pair at one end.
        let premium = best_available(&mixed, 2, Some("PREMIUM"), Rules::default());
        assert_eq!(codes(&premium), ["B1", "B2"]);
        // No two side by side: as close as can be, and said to be apart.
        let seats = hall(&[".x.x.", "x.x.x"]);
        let apart = best_available(&seats, 2, None, Rules::default()).unwrap();
        assert!(!apart.together);
        assert_eq!(apart.seats.len(), 2);
    }
}
