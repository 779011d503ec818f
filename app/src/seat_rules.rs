//! Seat-selection rules, pure (the engine applies them inside every hold): runs of adjacent
//! seats taken from the layout — a gap or an aisle ends a run, seat
//! labels play no part —, the lone-seat rule, and the best-available pick.
//!
//! "Best" is closeness to the hall's optimal point — its best seat where the layout names one,
//! else the middle of the seat columns and of the rows: a block's centre is scored by its squared distance to that point, a row
//! counting twice a column (moving back a row matters more than moving sideways). Ties go to
//! the front row, then the left.

use crate::domain::{Seat, SeatStatus};
use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap, HashSet};

/// How the rules are applied (a venue setting; seat maps carry it so pages explain it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase", default)]
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
        if run.iter().any(|s| taking.contains(s.code.as_str())) {
            stranded_in_run(&run, taking, rules, &mut out);
        }
    }
    out
}

/// `stranded` within one run (a selection only ever strands seats of the runs it takes from).
fn stranded_in_run(run: &[&Seat], taking: &BTreeSet<&str>, rules: Rules, out: &mut Vec<String>) {
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

/// The seats as the lone-seat rule sees them: until the showtime's accessible seats are released,
/// a free wheelchair place or companion seat is not a seat an ordinary customer could be left
/// alone in (nobody else would take it anyway), so it counts as taken.
fn ordinary_view(seats: &[Seat], accessible_released: bool) -> Cow<'_, [Seat]> {
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

/// The seats a selection of `taking` would leave alone, wheelchair and companion seats not
/// counted until they are released (see [`stranded`]).
pub fn left_alone(
    seats: &[Seat],
    taking: &BTreeSet<&str>,
    rules: Rules,
    accessible_released: bool,
) -> Vec<String> {
    stranded(&ordinary_view(seats, accessible_released), taking, rules)
}

/// Why a selection of seats may not be held (apart from a seat being taken).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// It would leave these seats alone, and a selection of the same size would not.
    LoneSeat(Vec<String>),
    /// Companion seats without a wheelchair place, or more of them than one place comes with.
    CompanionNeedsWheelchair { per_place: usize },
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

/// Judges a selection by the rules: `Ok` with the seats it leaves alone because nothing better
/// could be chosen (usually none), or why it is refused. `accessible_released`: the showtime's
/// accessible seats are ordinary seats by now.
///
/// "Nothing better" follows best available's order: seats side by side that leave someone alone
/// are refused only when seats side by side that leave no one alone are free (in the same
/// category, of the same number); seats apart that leave someone alone, when any selection that
/// leaves no one alone is free. A selection with a wheelchair place is not held to the lone-seat
/// rule: where those places are is the layout's doing, not the customer's.
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
    let alone = stranded(&view, taking, rules);
    if alone.is_empty() {
        return Ok(alone);
    }
    let category = chosen
        .first()
        .map(|s| s.category.as_str())
        .filter(|c| chosen.iter().all(|s| s.category == *c));
    let picker = Picker::new(&view, category, rules, accessible_released);
    let side_by_side = picker.runs.iter().any(|run| {
        run.windows(chosen.len())
            .any(|w| w.iter().all(|s| taking.contains(s.code.as_str())))
    });
    let better = match side_by_side {
        true => picker
            .blocks(chosen.len())
            .iter()
            .any(|(_, _, strands)| !strands),
        false => picker.avoids_lone_seats(chosen.len()),
    };
    match better {
        true => Err(Refusal::LoneSeat(alone)),
        false => Ok(alone),
    }
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

/// The hall's runs and the seats a request may be given, computed once per decision.
struct Picker<'a> {
    seats: &'a [Seat],
    runs: Vec<Vec<&'a Seat>>,
    /// Each seat's run (an index into `runs`), by the seat's identity (see `key`).
    run_of: HashMap<usize, usize>,
    /// The seats this request may be given, by identity.
    eligible: HashSet<usize>,
    rules: Rules,
    point: (f64, f64),
}

/// A seat's identity within the slice a `Picker` works on: its address (cheaper than its code).
fn key(seat: &Seat) -> usize {
    seat as *const Seat as usize
}

/// Whether taking seats `start..start + len` of a run (all free) leaves the seat just before or
/// just after them alone: it had a free neighbour (the seat taken) and has none after.
fn window_strands(free: &[bool], start: usize, len: usize, exempt_edges: bool) -> bool {
    let n = free.len();
    let end = start + len;
    let left = start
        .checked_sub(1)
        .is_some_and(|l| free[l] && (l == 0 || !free[l - 1]) && !(exempt_edges && l == 0));
    let right =
        end < n && free[end] && (end + 1 == n || !free[end + 1]) && !(exempt_edges && end + 1 == n);
    left || right
}

impl<'a> Picker<'a> {
    fn new(
        seats: &'a [Seat],
        category: Option<&str>,
        rules: Rules,
        accessible_released: bool,
    ) -> Self {
        let eligible = seats
            .iter()
            .filter(|s| {
                is_free(s)
                    && (accessible_released || (!s.accessible && !s.companion))
                    && category.is_none_or(|c| s.category == c)
            })
            .map(key)
            .collect();
        let runs = runs(seats);
        let run_of = runs
            .iter()
            .enumerate()
            .flat_map(|(i, run)| run.iter().map(move |s| (key(s), i)))
            .collect();
        Self {
            seats,
            runs,
            run_of,
            eligible,
            rules,
            point: optimal_point(seats),
        }
    }

    fn is_eligible(&self, seat: &Seat) -> bool {
        self.eligible.contains(&key(seat))
    }

    /// Whether taking `group` would leave someone alone.
    fn strands(&self, group: &[&Seat]) -> bool {
        !self.left_by(group).is_empty()
    }

    /// The seats taking `group` would leave alone (only its own runs can change).
    fn left_by(&self, group: &[&Seat]) -> Vec<&'a Seat> {
        let taking: BTreeSet<&str> = group.iter().map(|s| s.code.as_str()).collect();
        let touched: BTreeSet<usize> = group
            .iter()
            .filter_map(|s| self.run_of.get(&key(s)).copied())
            .collect();
        let mut out = Vec::new();
        for i in touched {
            let mut codes = Vec::new();
            stranded_in_run(&self.runs[i], &taking, self.rules, &mut codes);
            out.extend(
                self.runs[i]
                    .iter()
                    .filter(|s| codes.iter().any(|c| c == s.code.as_str()))
                    .copied(),
            );
        }
        out
    }

    /// Every group of `count` eligible seats that leaves no one alone, tightest first, when
    /// there are few enough to look at them all (a nearly full hall); `None` when there are too
    /// many.
    fn every_group(&self, count: usize) -> Option<Vec<Vec<&'a Seat>>> {
        const MOST: u64 = 5_000;
        let free: Vec<&Seat> = self.seats.iter().filter(|s| self.is_eligible(s)).collect();
        let n = free.len() as u64;
        let k = count as u64;
        let mut combinations: u64 = 1;
        for i in 0..k.min(n) {
            combinations = combinations * (n - i) / (i + 1);
            if combinations > MOST {
                return None;
            }
        }
        let distance = |a: &Seat, b: &Seat| (a.y - b.y).abs() * 2 + (a.x - b.x).abs();
        let mut found: Vec<(f64, Vec<&Seat>)> = Vec::new();
        let mut index: Vec<usize> = (0..count).collect();
        if count > free.len() {
            return Some(Vec::new());
        }
        loop {
            let group: Vec<&Seat> = index.iter().map(|&i| free[i]).collect();
            if !self.strands(&group) {
                let spread: i32 = group
                    .iter()
                    .flat_map(|a| group.iter().map(move |b| distance(a, b)))
                    .sum();
                found.push((f64::from(spread) + score(&group, self.point) / 100.0, group));
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
        found.sort_by(|a, b| a.0.total_cmp(&b.0));
        Some(found.into_iter().map(|(_, g)| g).collect())
    }

    /// Every block of `count` eligible seats side by side, best first, each saying whether it
    /// leaves someone alone (judged from its neighbours alone: O(1) a block).
    fn blocks(&self, count: usize) -> Vec<(f64, &[&'a Seat], bool)> {
        let mut blocks = Vec::new();
        for run in &self.runs {
            if run.len() < count {
                continue;
            }
            let free: Vec<bool> = run.iter().map(|s| is_free(s)).collect();
            let eligible: Vec<bool> = run.iter().map(|s| self.is_eligible(s)).collect();
            for start in 0..=run.len() - count {
                if eligible[start..start + count].iter().all(|&e| e) {
                    let window = &run[start..start + count];
                    let strands = self.rules.no_lone_seats
                        && window_strands(&free, start, count, self.rules.exempt_edges);
                    blocks.push((score(window, self.point), window, strands));
                }
            }
        }
        blocks.sort_by(|a, b| {
            a.0.total_cmp(&b.0)
                .then_with(|| (a.1[0].y, a.1[0].x).cmp(&(b.1[0].y, b.1[0].x)))
        });
        blocks
    }

    /// Groups of `count` eligible seats not side by side, tightest first: around each eligible
    /// seat the nearest others (`careful`: passing over a seat whose taking would leave someone
    /// alone, so a group that strands nobody is found where the nearest ones all do).
    fn groups(&self, count: usize, careful: bool) -> Vec<Vec<&'a Seat>> {
        let free: Vec<&Seat> = self.seats.iter().filter(|s| self.is_eligible(s)).collect();
        if free.len() < count {
            return Vec::new();
        }
        let distance = |a: &Seat, b: &Seat| (a.y - b.y).abs() * 2 + (a.x - b.x).abs();
        // Groups around the best-placed seats only, so that a big hall costs no more than a
        // small one.
        const ANCHORS: usize = 48;
        let mut anchors = free.clone();
        anchors.sort_by(|a, b| score(&[a], self.point).total_cmp(&score(&[b], self.point)));
        anchors.truncate(ANCHORS);
        let mut groups: Vec<(f64, Vec<&Seat>)> = anchors
            .iter()
            .filter_map(|anchor| {
                // Only the nearest few are ever looked at: found without sorting them all.
                let near_by = |s: &&Seat| (distance(s, anchor), s.y, s.x);
                let bound = if careful { count * 4 + 8 } else { count };
                let mut near = free.clone();
                if near.len() > bound {
                    near.select_nth_unstable_by_key(bound - 1, near_by);
                    near.truncate(bound);
                }
                near.sort_by_key(near_by);
                let mut group: Vec<&Seat> = Vec::with_capacity(count);
                for seat in near {
                    if group.len() == count {
                        break;
                    }
                    if group.iter().any(|g| g.code == seat.code) {
                        continue;
                    }
                    group.push(seat);
                    if careful && self.strands(&group) {
                        // Take the seats it would leave alone too, if they may be given and
                        // fit; else pass over it.
                        let before = group.len() - 1;
                        for alone in self.left_by(&group) {
                            if self.is_eligible(alone) {
                                group.push(alone);
                            }
                        }
                        if group.len() > count || self.strands(&group) {
                            group.truncate(before);
                        }
                    }
                }
                if group.len() < count {
                    return None;
                }
                group.sort_by_key(|s| (s.y, s.x));
                let spread: i32 = group.iter().map(|s| distance(s, anchor)).sum();
                Some((f64::from(spread) + score(&group, self.point) / 100.0, group))
            })
            .collect();
        groups.sort_by(|a, b| a.0.total_cmp(&b.0));
        groups.into_iter().map(|(_, g)| g).collect()
    }

    fn pick(&self, count: usize) -> Option<Pick> {
        let as_pick = |block: &[&Seat], together: bool| Pick {
            seats: block.iter().map(|s| s.code.to_string()).collect(),
            together,
        };
        let blocks = self.blocks(count);
        if let Some((_, block, _)) = blocks.iter().find(|(_, _, strands)| !strands) {
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
        if let Some(group) = groups.iter().find(|g| !self.strands(g)) {
            return Some(as_pick(group, false));
        }
        if let Some(every) = self.every_group(count) {
            return Some(as_pick(every.first().unwrap_or(first), false));
        }
        let careful = self.groups(count, true);
        let chosen = careful.iter().find(|g| !self.strands(g)).unwrap_or(first);
        Some(as_pick(chosen, false))
    }

    /// Whether some selection of `count` eligible seats leaves no one alone.
    fn avoids_lone_seats(&self, count: usize) -> bool {
        if self.blocks(count).iter().any(|(_, _, strands)| !strands)
            || self.groups(count, false).iter().any(|g| !self.strands(g))
        {
            return true;
        }
        match self.every_group(count) {
            Some(every) => !every.is_empty(),
            None => self.groups(count, true).iter().any(|g| !self.strands(g)),
        }
    }
}

/// The best `count` free seats (of `category`, if named), never wheelchair places or companion
/// seats unless `accessible_released`: side by side leaving no one alone; else side by side (a
/// lone seat unavoidable); else as close together as possible, leaving no one alone if that
/// can be done. `None` when fewer than `count` seats are free.
pub fn best_available(
    seats: &[Seat],
    count: usize,
    category: Option<&str>,
    rules: Rules,
    accessible_released: bool,
) -> Option<Pick> {
    if count == 0 {
        return None;
    }
    best_available_near(seats, count, category, rules, accessible_released, None)
}

/// [`best_available`] aiming for the hall's best seat, where the layout names one (else the
/// middle of the hall).
pub fn best_available_near(
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
    let mut picker = Picker::new(&view, category, rules, accessible_released);
    if let Some(best) = best_seat.and_then(|b| seats.iter().find(|s| s.code.as_str() == b)) {
        picker.point = (f64::from(best.x), f64::from(best.y));
    }
    picker.pick(count)
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
        let default = best_available(&seats, 2, None, Rules::default(), false);
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
        assert_eq!(
            codes(&best_available(&rows, 2, None, off, false)),
            ["A2", "A3"]
        );
    }

    fn set(codes: &[&'static str]) -> BTreeSet<&'static str> {
        codes.iter().copied().collect()
    }

    #[test]
    fn a_hold_that_strands_a_seat_is_refused_unless_nothing_else_would_do() {
        let rules = Rules::default();
        // Taking A3-A4 leaves A2 alone; A2-A3 would not.
        let seats = hall(&["x......x"]);
        assert_eq!(
            judge(&seats, &set(&["A3", "A4"]), rules, false),
            Err(Refusal::LoneSeat(vec!["A2".into()]))
        );
        assert_eq!(judge(&seats, &set(&["A2", "A3"]), rules, false), Ok(vec![]));
        // Three free seats between sold ones: every pair leaves one alone, so it is allowed and
        // the answer names the seat.
        let seats = hall(&["x...x"]);
        assert_eq!(
            judge(&seats, &set(&["A2", "A3"]), rules, false),
            Ok(vec!["A4".into()])
        );
        // The rule off: anything goes.
        let off = Rules {
            no_lone_seats: false,
            ..rules
        };
        let seats = hall(&["x......x"]);
        assert_eq!(judge(&seats, &set(&["A3", "A4"]), off, false), Ok(vec![]));
    }

    #[test]
    fn a_wheelchair_place_is_nobody_left_alone_and_the_hold_agrees_with_best_available() {
        let rules = Rules::default();
        // Until released, a free wheelchair place next to a selection is not a stranded seat.
        let seats = hall(&["w......"]);
        assert_eq!(judge(&seats, &set(&["A2", "A3"]), rules, false), Ok(vec![]));
        assert_eq!(
            judge(&seats, &set(&["A2", "A3"]), rules, true),
            Err(Refusal::LoneSeat(vec!["A1".into()]))
        );
        // No pair side by side avoids a lone seat, so best available takes one that leaves A4
        // alone, and the same seats chosen by hand are allowed too (seats apart that would
        // leave no one alone do not count against seats side by side).
        let seats = hall(&["x...x", ".x.x."]);
        let best = best_available(&seats, 2, None, rules, false).unwrap();
        assert!(best.together);
        let taking: BTreeSet<&str> = best.seats.iter().map(String::as_str).collect();
        assert_eq!(judge(&seats, &taking, rules, false).unwrap().len(), 1);
        assert_eq!(
            judge(&seats, &set(&["A2", "A3"]), rules, false),
            Ok(vec!["A4".into()])
        );
        // Seats apart that leave someone alone while others would not: refused.
        assert!(matches!(
            judge(&seats, &set(&["A3", "B1"]), rules, false),
            Err(Refusal::LoneSeat(_))
        ));
    }

    #[test]
    fn best_available_aims_for_the_halls_best_seat_when_it_has_one() {
        let seats = hall(&["........", "........", "........"]);
        let middle = best_available(&seats, 2, None, Rules::default(), false);
        assert_eq!(codes(&middle), ["B4", "B5"]);
        let near = best_available_near(&seats, 2, None, Rules::default(), false, Some("C7"));
        assert_eq!(codes(&near), ["C7", "C8"], "C6-C7 would leave C8 alone");
    }

    #[test]
    fn companion_seats_come_with_a_wheelchair_place() {
        let rules = Rules::default();
        let seats = hall(&["wc....cw"]);
        let refused = Err(Refusal::CompanionNeedsWheelchair { per_place: 1 });
        assert_eq!(judge(&seats, &set(&["A2"]), rules, false), refused);
        assert_eq!(judge(&seats, &set(&["A2", "A7"]), rules, false), refused);
        assert!(judge(&seats, &set(&["A1", "A2"]), rules, false).is_ok());
        // Two companion seats per place in this hall.
        let seats = hall(&["cwc....."]);
        assert!(judge(&seats, &set(&["A1", "A2", "A3"]), rules, false).is_ok());
        // Once the showtime's accessible seats are released, a companion seat is any seat.
        let seats = hall(&["c.....w"]);
        assert!(judge(&seats, &set(&["A1"]), rules, false).is_err());
        assert!(judge(&seats, &set(&["A1"]), rules, true).is_ok());
        let seats = hall(&["wc....cw"]);
        assert_eq!(
            codes(&best_available(&seats, 8, None, rules, true)).len(),
            8,
            "released: best available may give them"
        );
    }

    #[test]
    fn best_available_keeps_accessible_seats_and_categories_apart_and_says_when_apart() {
        let seats = hall(&["wc..cw"]);
        assert_eq!(
            codes(&best_available(&seats, 2, None, Rules::default(), false)),
            ["A3", "A4"]
        );
        assert_eq!(
            best_available(&seats, 3, None, Rules::default(), false),
            None,
            "only two ordinary seats"
        );
        let mut mixed = hall(&["....", "...."]);
        for s in mixed.iter_mut().filter(|s| s.row == "B") {
            s.category = "PREMIUM".into();
        }
        // In a row of four, the middle pair would leave both ends alone: a pair at one end.
        let premium = best_available(&mixed, 2, Some("PREMIUM"), Rules::default(), false);
        assert_eq!(codes(&premium), ["B1", "B2"]);
        // No two side by side: as close as can be, and said to be apart.
        let seats = hall(&[".x.x.", "x.x.x"]);
        let apart = best_available(&seats, 2, None, Rules::default(), false).unwrap();
        assert!(!apart.together);
        assert_eq!(apart.seats.len(), 2);
    }

    mod properties {
        use super::super::*;
        use super::hall;
        use proptest::prelude::*;

        /// Rows of up to 9 marks: free, sold, wheelchair place, companion seat, aisle.
        fn drawing() -> impl Strategy<Value = Vec<String>> {
            let mark = prop_oneof![
                6 => Just('.'),
                4 => Just('x'),
                1 => Just('w'),
                1 => Just('c'),
                1 => Just(' '),
            ];
            prop::collection::vec(
                prop::collection::vec(mark, 1..9).prop_map(|m| m.into_iter().collect()),
                1..4,
            )
        }

        fn every_selection<'a>(of: &[&'a Seat], count: usize) -> Vec<Vec<&'a Seat>> {
            if count == 0 {
                return vec![Vec::new()];
            }
            let mut out = Vec::new();
            for (i, seat) in of.iter().enumerate() {
                for mut rest in every_selection(&of[i + 1..], count - 1) {
                    rest.insert(0, *seat);
                    out.push(rest);
                }
            }
            out
        }

        proptest! {
            #[test]
            fn best_available_keeps_its_promises(
                rows in drawing(),
                count in 1usize..4,
                exempt_edges in any::<bool>(),
            ) {
                let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
                let seats = hall(&rows);
                prop_assume!(!seats.is_empty());
                let rules = Rules { no_lone_seats: true, exempt_edges };
                let ordinary: Vec<&Seat> = seats
                    .iter()
                    .filter(|s| is_free(s) && !s.accessible && !s.companion)
                    .collect();
                let Some(pick) = best_available(&seats, count, None, rules, false) else {
                    prop_assert!(ordinary.len() < count, "nothing picked, yet enough seats free");
                    return Ok(());
                };
                let picked: Vec<&Seat> = pick
                    .seats
                    .iter()
                    .map(|c| seats.iter().find(|s| s.code.as_str() == c).unwrap())
                    .collect();
                prop_assert_eq!(picked.len(), count);
                let distinct: BTreeSet<&str> = pick.seats.iter().map(String::as_str).collect();
                prop_assert_eq!(distinct.len(), count, "a seat twice");
                for seat in &picked {
                    prop_assert!(is_free(seat), "{} is not free", seat.code);
                    prop_assert!(!seat.accessible && !seat.companion, "{} is accessible", seat.code);
                }
                if pick.together {
                    // One row, neighbouring grid columns: never across an aisle or a gap.
                    for pair in picked.windows(2) {
                        prop_assert!(pair[0].y == pair[1].y && pair[0].x + 1 == pair[1].x,
                            "{} and {} are not side by side", pair[0].code, pair[1].code);
                    }
                }
                let leaves_alone = |group: &[&Seat]| {
                    let taking = group.iter().map(|s| s.code.as_str()).collect();
                    !left_alone(&seats, &taking, rules, false).is_empty()
                };
                // Side by side leaving someone alone only when no block side by side avoids
                // it (together comes first); apart leaving someone alone only when nothing
                // avoids it.
                let side_by_side = |g: &[&Seat]| {
                    g.windows(2).all(|p| p[0].y == p[1].y && p[0].x + 1 == p[1].x)
                };
                if leaves_alone(&picked) {
                    let alternative = every_selection(&ordinary, count).into_iter().find(|g| {
                        !leaves_alone(g) && (!pick.together || side_by_side(g))
                    });
                    prop_assert!(
                        alternative.is_none(),
                        "{:?} leaves a seat alone, {:?} would not", pick.seats,
                        alternative.map(|g| g.iter().map(|s| s.code.to_string()).collect::<Vec<_>>())
                    );
                }
                // What best available gives, a hold of the same seats by hand is allowed.
                let judged = judge(&seats, &pick.seats.iter().map(String::as_str).collect(), rules, false);
                prop_assert!(judged.is_ok(), "{:?} picked, then refused: {:?}", pick.seats, judged);
                if !pick.together {
                    prop_assert!(
                        !every_selection(&ordinary, count).iter().any(|g| side_by_side(g)),
                        "apart, yet a block side by side is free"
                    );
                }
            }
        }
    }
}
