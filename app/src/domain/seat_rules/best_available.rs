//! Best available: the best seats for a request, by the order in the module's contract. Seats
//! are identified by their index in the slice searched.

use super::lone_seat::{block_leaves_lone_seat, lone_in_run, ordinary_view};
use super::runs::run_indices;
use super::{is_free, Rules};
use crate::domain::Seat;
use std::collections::BTreeSet;

/// What best-available picked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pick {
    /// Seat codes, left to right, front to back.
    pub seats: Vec<String>,
    /// All in one run, side by side.
    pub together: bool,
}

/// The best `count` free seats (of `category`, if named), never wheelchair places or companion
/// seats unless `accessible_released`: side by side leaving no lone seat; else side by side (a
/// lone seat unavoidable); else as close together as possible, leaving no lone seat if that
/// can be done. "Best" is closeness to `best_seat` where the layout names one (else to the
/// middle of the hall). `None` when fewer than `count` seats are free, or `count` is 0.
pub fn best_available(
    seats: &[Seat],
    count: usize,
    category: Option<&str>,
    rules: Rules,
    accessible_released: bool,
    best_seat: Option<&str>,
) -> Option<Pick> {
    if count == 0 {
        return None;
    }
    let view = ordinary_view(seats, accessible_released);
    let mut search = BlockSearch::new(&view, category, rules, accessible_released);
    if let Some(best) = best_seat.and_then(|b| seats.iter().find(|s| s.code.as_str() == b)) {
        search.point = (f64::from(best.x), f64::from(best.y));
    }
    search.pick(count)
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

/// Two seats' distance: a row counts twice a column.
fn distance(a: &Seat, b: &Seat) -> i32 {
    (a.y - b.y).abs() * 2 + (a.x - b.x).abs()
}

/// The hall's runs and the seats a request may be given, computed once per decision. Every
/// seat is named by its index in `seats`.
pub(super) struct BlockSearch<'a> {
    seats: &'a [Seat],
    /// The hall's runs, as [`super::runs()`] gives them.
    pub(super) runs: Vec<Vec<usize>>,
    /// Each seat's run (an index into `runs`).
    run_of: Vec<usize>,
    /// Whether this request may be given each seat.
    eligible: Vec<bool>,
    rules: Rules,
    point: (f64, f64),
}

impl<'a> BlockSearch<'a> {
    pub(super) fn new(
        seats: &'a [Seat],
        category: Option<&str>,
        rules: Rules,
        accessible_released: bool,
    ) -> Self {
        let eligible = seats
            .iter()
            .map(|s| {
                is_free(s)
                    && (accessible_released || (!s.accessible && !s.companion))
                    && category.is_none_or(|c| s.category == c)
            })
            .collect();
        let runs = run_indices(seats);
        let mut run_of = vec![0; seats.len()];
        for (r, run) in runs.iter().enumerate() {
            for &i in run {
                run_of[i] = r;
            }
        }
        Self {
            seats,
            runs,
            run_of,
            eligible,
            rules,
            point: optimal_point(seats),
        }
    }

    /// The eligible seats, in the slice's order.
    fn eligible_seats(&self) -> Vec<usize> {
        (0..self.seats.len())
            .filter(|&i| self.eligible[i])
            .collect()
    }

    /// A block's distance from the optimal point: a row counts twice a column.
    fn score(&self, block: &[usize]) -> f64 {
        let n = block.len() as f64;
        let x = block
            .iter()
            .map(|&i| f64::from(self.seats[i].x))
            .sum::<f64>()
            / n;
        let y = block
            .iter()
            .map(|&i| f64::from(self.seats[i].y))
            .sum::<f64>()
            / n;
        (x - self.point.0).powi(2) + 2.0 * (y - self.point.1).powi(2)
    }

    /// Whether taking `group` would leave a lone seat.
    fn leaves_lone_seat(&self, group: &[usize]) -> bool {
        !self.lone_seats_by(group).is_empty()
    }

    /// The lone seats taking `group` would leave (only its own runs can change).
    fn lone_seats_by(&self, group: &[usize]) -> Vec<usize> {
        let taking: BTreeSet<&str> = group.iter().map(|&i| self.seats[i].code.as_str()).collect();
        let touched: BTreeSet<usize> = group.iter().map(|&i| self.run_of[i]).collect();
        let mut lone = Vec::new();
        for r in touched {
            lone_in_run(self.seats, &self.runs[r], &taking, self.rules, &mut lone);
        }
        lone
    }

    /// Every group of `count` eligible seats that leaves no lone seat, tightest first, when
    /// there are few enough to look at them all (a nearly full hall); `None` when there are too
    /// many.
    fn every_group(&self, count: usize) -> Option<Vec<Vec<usize>>> {
        const MOST: u64 = 5_000;
        let free = self.eligible_seats();
        let n = free.len() as u64;
        let k = count as u64;
        let mut combinations: u64 = 1;
        for i in 0..k.min(n) {
            combinations = combinations * (n - i) / (i + 1);
            if combinations > MOST {
                return None;
            }
        }
        let mut found: Vec<(f64, Vec<usize>)> = Vec::new();
        let mut index: Vec<usize> = (0..count).collect();
        if count > free.len() {
            return Some(Vec::new());
        }
        loop {
            let group: Vec<usize> = index.iter().map(|&i| free[i]).collect();
            if !self.leaves_lone_seat(&group) {
                let spread: i32 = group
                    .iter()
                    .flat_map(|&a| {
                        group
                            .iter()
                            .map(move |&b| distance(&self.seats[a], &self.seats[b]))
                    })
                    .sum();
                found.push((f64::from(spread) + self.score(&group) / 100.0, group));
            }
            // The next combination of indices, in lexicographic order.
            let Some(i) = (0..count)
                .rev()
                .find(|&i| index[i] < free.len() - count + i)
            else {
                break;
            };
            index[i] += 1;
            for j in i + 1..count {
                index[j] = index[j - 1] + 1;
            }
        }
        // Equal spreads in the order they were found: the groups' own (lexicographic) order.
        found.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
        Some(found.into_iter().map(|(_, g)| g).collect())
    }

    /// Every block of `count` eligible seats side by side, best first, each saying whether it
    /// leaves a lone seat (judged from its neighbours only: O(1) a block).
    pub(super) fn blocks(&self, count: usize) -> Vec<(f64, &[usize], bool)> {
        let mut blocks = Vec::new();
        for run in &self.runs {
            if run.len() < count {
                continue;
            }
            let free: Vec<bool> = run.iter().map(|&i| is_free(&self.seats[i])).collect();
            let eligible: Vec<bool> = run.iter().map(|&i| self.eligible[i]).collect();
            for start in 0..=run.len() - count {
                if eligible[start..start + count].iter().all(|&e| e) {
                    let window = &run[start..start + count];
                    let lone = self.rules.no_lone_seats
                        && block_leaves_lone_seat(&free, start, count, self.rules.exempt_edges);
                    blocks.push((self.score(window), window, lone));
                }
            }
        }
        let front_left = |block: &[usize]| (self.seats[block[0]].y, self.seats[block[0]].x);
        // (No two blocks of one size start at the same seat: the order is total.)
        blocks.sort_unstable_by(|a, b| {
            a.0.total_cmp(&b.0)
                .then_with(|| front_left(a.1).cmp(&front_left(b.1)))
        });
        blocks
    }

    /// Groups of `count` eligible seats not side by side, tightest first: around each eligible
    /// seat the nearest others (`careful`: passing over a seat whose taking would leave a lone
    /// seat, so a group that leaves none is found where the nearest ones all do).
    fn groups(&self, count: usize, careful: bool) -> Vec<Vec<usize>> {
        let free = self.eligible_seats();
        if free.len() < count {
            return Vec::new();
        }
        let seat = |i: usize| &self.seats[i];
        // Groups around the best-placed seats only, so that a big hall costs no more than a
        // small one.
        const ANCHORS: usize = 48;
        let mut anchors = free.clone();
        anchors.sort_unstable_by(|&a, &b| {
            self.score(&[a])
                .total_cmp(&self.score(&[b]))
                .then(a.cmp(&b))
        });
        anchors.truncate(ANCHORS);
        let mut groups: Vec<(f64, usize, Vec<usize>)> = anchors
            .iter()
            .enumerate()
            .filter_map(|(rank, &anchor)| {
                // Only the nearest few are ever looked at: found without sorting them all.
                let near_by =
                    |&i: &usize| (distance(seat(i), seat(anchor)), seat(i).y, seat(i).x, i);
                let bound = if careful { count * 4 + 8 } else { count };
                let mut near = free.clone();
                if near.len() > bound {
                    near.select_nth_unstable_by_key(bound - 1, near_by);
                    near.truncate(bound);
                }
                near.sort_unstable_by_key(near_by);
                let mut group: Vec<usize> = Vec::with_capacity(count);
                for i in near {
                    if group.len() == count {
                        break;
                    }
                    if group.iter().any(|&g| seat(g).code == seat(i).code) {
                        continue;
                    }
                    group.push(i);
                    if careful && self.leaves_lone_seat(&group) {
                        // Take the lone seats it would leave too, if they may be given and
                        // fit; else pass over it.
                        let before = group.len() - 1;
                        for lone in self.lone_seats_by(&group) {
                            if self.eligible[lone] {
                                group.push(lone);
                            }
                        }
                        if group.len() > count || self.leaves_lone_seat(&group) {
                            group.truncate(before);
                        }
                    }
                }
                if group.len() < count {
                    return None;
                }
                group.sort_unstable_by_key(|&i| (seat(i).y, seat(i).x, i));
                let spread: i32 = group.iter().map(|&i| distance(seat(i), seat(anchor))).sum();
                Some((f64::from(spread) + self.score(&group) / 100.0, rank, group))
            })
            .collect();
        // Equal spreads in their anchors' order.
        groups.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        groups.into_iter().map(|(_, _, g)| g).collect()
    }

    fn pick(&self, count: usize) -> Option<Pick> {
        let as_pick = |block: &[usize], together: bool| Pick {
            seats: block
                .iter()
                .map(|&i| self.seats[i].code.to_string())
                .collect(),
            together,
        };
        let blocks = self.blocks(count);
        if let Some((_, block, _)) = blocks.iter().find(|(_, _, lone)| !lone) {
            return Some(as_pick(block, true));
        }
        if let Some((_, block, _)) = blocks.first() {
            return Some(as_pick(block, true));
        }
        let groups = self.groups(count, false);
        let first = groups.first()?;
        if !self.rules.no_lone_seats {
            return Some(as_pick(first, false));
        }
        if let Some(group) = groups.iter().find(|g| !self.leaves_lone_seat(g)) {
            return Some(as_pick(group, false));
        }
        if let Some(every) = self.every_group(count) {
            return Some(as_pick(every.first().unwrap_or(first), false));
        }
        let careful = self.groups(count, true);
        let chosen = careful
            .iter()
            .find(|g| !self.leaves_lone_seat(g))
            .unwrap_or(first);
        Some(as_pick(chosen, false))
    }

    /// Whether some selection of `count` eligible seats leaves no lone seat.
    pub(super) fn avoids_lone_seats(&self, count: usize) -> bool {
        if self.blocks(count).iter().any(|(_, _, lone)| !lone)
            || self
                .groups(count, false)
                .iter()
                .any(|g| !self.leaves_lone_seat(g))
        {
            return true;
        }
        match self.every_group(count) {
            Some(every) => !every.is_empty(),
            None => self
                .groups(count, true)
                .iter()
                .any(|g| !self.leaves_lone_seat(g)),
        }
    }
}
