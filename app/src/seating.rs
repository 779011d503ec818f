//! Pure logic of the seat picker, shared by the page and its unit tests: the selection limit,
//! the price total, the countdown text and keyboard movement across the hall drawing.

use crate::domain::{Seat, SeatChange, SeatStatus, Won, MAX_SEATS_PER_HOLD};
use std::collections::{BTreeSet, HashMap};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LimitReached;

/// Selects `code` if it was not selected, deselects it if it was. Refuses a seat beyond the
/// limit. Returns whether the seat is now selected.
pub fn toggle(selected: &mut BTreeSet<String>, code: &str) -> Result<bool, LimitReached> {
    if selected.remove(code) {
        return Ok(false);
    }
    if selected.len() >= MAX_SEATS_PER_HOLD {
        return Err(LimitReached);
    }
    selected.insert(code.to_string());
    Ok(true)
}

/// The sum of the prices of the selected seats, in won.
pub fn total(seats: &[Seat], selected: &BTreeSet<String>) -> Won {
    seats
        .iter()
        .filter(|s| selected.contains(s.code.as_str()))
        .map(|s| s.price)
        .sum()
}

/// Seat codes in the order a person reads them: by row, then by seat number (`H9, H10, H11`),
/// not by text (`H10, H11, H9`).
pub fn reading_order<S: AsRef<str>>(codes: impl IntoIterator<Item = S>) -> Vec<String> {
    let mut codes: Vec<String> = codes.into_iter().map(|c| c.as_ref().to_string()).collect();
    codes.sort_unstable_by_key(|c| match crate::domain::SeatCode::parse(c) {
        Ok(code) => (code.row().len(), code.row().to_string(), code.number()),
        Err(_) => (usize::MAX, c.clone(), 0),
    });
    codes
}

/// Applies seat changes that are newer than what the page knows, by each seat's version, so
/// late, repeated or reordered messages cannot undo a newer state. A snapshot (`is_snapshot`)
/// also applies at an equal version: the same row version can read differently once a hold has
/// lapsed. Returns the codes whose status changed.
pub fn merge(
    status: &mut HashMap<String, SeatStatus>,
    versions: &mut HashMap<String, i64>,
    changes: &[SeatChange],
    is_snapshot: bool,
) -> Vec<String> {
    let mut changed = Vec::new();
    for change in changes {
        let code = change.code.as_str();
        let known = versions.get(code).copied();
        let newer =
            known.is_none_or(|v| change.version > v || (is_snapshot && change.version == v));
        if !newer {
            continue;
        }
        versions.insert(code.to_string(), change.version);
        if status.insert(code.to_string(), change.status) != Some(change.status) {
            changed.push(code.to_string());
        }
    }
    changed
}

/// `mm:ss` of the time left, rounded up to the next second, never negative.
pub fn countdown(remaining_ms: i64) -> String {
    let secs = (remaining_ms.max(0) + 999) / 1000;
    format!("{:02}:{:02}", secs / 60, secs % 60)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Left,
    Right,
    Up,
    Down,
}

impl Direction {
    pub fn from_key(key: &str) -> Option<Self> {
        match key {
            "ArrowLeft" => Some(Self::Left),
            "ArrowRight" => Some(Self::Right),
            "ArrowUp" => Some(Self::Up),
            "ArrowDown" => Some(Self::Down),
            _ => None,
        }
    }
}

/// The seat the arrow key moves to from `from`: along the row (skipping aisles), or to the
/// nearest seat of the next row that has seats. `None` at the edge.
pub fn neighbour<'a>(seats: &'a [Seat], from: &str, dir: Direction) -> Option<&'a str> {
    let here = seats.iter().find(|s| s.code.as_str() == from)?;
    let pick = match dir {
        Direction::Left => seats
            .iter()
            .filter(|s| s.y == here.y && s.x < here.x)
            .max_by_key(|s| s.x),
        Direction::Right => seats
            .iter()
            .filter(|s| s.y == here.y && s.x > here.x)
            .min_by_key(|s| s.x),
        Direction::Up | Direction::Down => {
            let row = if dir == Direction::Up {
                seats.iter().filter(|s| s.y < here.y).map(|s| s.y).max()
            } else {
                seats.iter().filter(|s| s.y > here.y).map(|s| s.y).min()
            }?;
            seats
                .iter()
                .filter(|s| s.y == row)
                .min_by_key(|s| ((s.x - here.x).abs(), s.x))
        }
    };
    pick.map(|s| s.code.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{SeatCode, SeatStatus};

    fn seat(code: &str, x: i32, y: i32, price: i64) -> Seat {
        let code = SeatCode::parse(code).unwrap();
        Seat {
            row: code.row().to_string(),
            number: i32::from(code.number()),
            code,
            x,
            y,
            category: "STANDARD".into(),
            price: Won::new(price),
            accessible: false,
            companion: false,
            status: SeatStatus::Available,
            version: 0,
        }
    }

    /// Row A: 1 2 | aisle | 3 ; row B: 1 2 3 4 (no aisle); row C is empty; row D: 1.
    fn hall() -> Vec<Seat> {
        vec![
            seat("A1", 2, 1, 12_000),
            seat("A2", 3, 1, 12_000),
            seat("A3", 5, 1, 15_000),
            seat("B1", 2, 2, 12_000),
            seat("B2", 3, 2, 12_000),
            seat("B3", 4, 2, 12_000),
            seat("B4", 5, 2, 12_000),
            seat("D1", 4, 4, 15_000),
        ]
    }

    #[test]
    fn toggling_selects_then_deselects() {
        let mut s = BTreeSet::new();
        assert_eq!(toggle(&mut s, "F5"), Ok(true));
        assert_eq!(toggle(&mut s, "F5"), Ok(false));
        assert!(s.is_empty());
    }

    #[test]
    fn the_ninth_seat_is_refused_but_a_selected_one_can_still_be_removed() {
        let mut s: BTreeSet<String> = (1..=8).map(|n| format!("A{n}")).collect();
        assert_eq!(toggle(&mut s, "A9"), Err(LimitReached));
        assert_eq!(s.len(), 8);
        assert_eq!(toggle(&mut s, "A3"), Ok(false));
        assert_eq!(toggle(&mut s, "A9"), Ok(true));
    }

    #[test]
    fn the_total_adds_the_prices_of_selected_seats_only() {
        let selected: BTreeSet<String> = ["A1", "A3"].iter().map(|s| s.to_string()).collect();
        assert_eq!(total(&hall(), &selected), Won::new(27_000));
        assert_eq!(total(&hall(), &BTreeSet::new()), Won::ZERO);
    }

    fn change(code: &str, status: SeatStatus, version: i64) -> SeatChange {
        SeatChange {
            code: SeatCode::parse(code).unwrap(),
            status,
            version,
        }
    }

    #[test]
    fn newer_changes_apply_and_older_or_repeated_ones_do_not() {
        let (mut status, mut versions) = (HashMap::new(), HashMap::new());
        merge(
            &mut status,
            &mut versions,
            &[change("F5", SeatStatus::Available, 1)],
            true,
        );
        // Held (v2) then released (v3), delivered out of order and twice.
        assert!(merge(
            &mut status,
            &mut versions,
            &[change("F5", SeatStatus::Available, 3)],
            false
        )
        .is_empty());
        assert_eq!(
            versions["F5"], 3,
            "the newer version is recorded even when the status is the same"
        );
        assert!(merge(
            &mut status,
            &mut versions,
            &[change("F5", SeatStatus::Held, 2)],
            false
        )
        .is_empty());
        assert!(merge(
            &mut status,
            &mut versions,
            &[change("F5", SeatStatus::Available, 3)],
            false
        )
        .is_empty());
        assert_eq!(status["F5"], SeatStatus::Available);
        assert_eq!(versions["F5"], 3);
        assert_eq!(
            merge(
                &mut status,
                &mut versions,
                &[change("F5", SeatStatus::Booked, 4)],
                false
            ),
            ["F5"]
        );
    }

    #[test]
    fn a_snapshot_at_the_same_version_shows_a_lapsed_hold_as_free() {
        let (mut status, mut versions) = (HashMap::new(), HashMap::new());
        merge(
            &mut status,
            &mut versions,
            &[change("A1", SeatStatus::Held, 5)],
            false,
        );
        assert!(merge(
            &mut status,
            &mut versions,
            &[change("A1", SeatStatus::Available, 5)],
            false
        )
        .is_empty());
        assert_eq!(
            merge(
                &mut status,
                &mut versions,
                &[change("A1", SeatStatus::Available, 5)],
                true
            ),
            ["A1"]
        );
        assert!(merge(
            &mut status,
            &mut versions,
            &[change("A1", SeatStatus::Held, 4)],
            true
        )
        .is_empty());
    }

    #[test]
    fn seats_are_listed_by_row_then_number() {
        assert_eq!(
            reading_order(["H10", "H9", "AA1", "B2", "H11"]),
            ["B2", "H9", "H10", "H11", "AA1"]
        );
    }

    #[test]
    fn the_countdown_shows_minutes_and_seconds_rounded_up() {
        assert_eq!(countdown(600_000), "10:00");
        assert_eq!(countdown(59_001), "01:00");
        assert_eq!(countdown(59_000), "00:59");
        assert_eq!(countdown(1), "00:01");
        assert_eq!(countdown(0), "00:00");
        assert_eq!(countdown(-5_000), "00:00");
    }

    #[test]
    fn arrows_move_along_a_row_across_the_aisle_and_stop_at_the_edge() {
        let h = hall();
        assert_eq!(neighbour(&h, "A2", Direction::Right), Some("A3"));
        assert_eq!(neighbour(&h, "A3", Direction::Left), Some("A2"));
        assert_eq!(neighbour(&h, "A1", Direction::Left), None);
        assert_eq!(neighbour(&h, "A3", Direction::Right), None);
    }

    #[test]
    fn arrows_move_to_the_nearest_seat_of_the_next_row_skipping_empty_rows() {
        let h = hall();
        assert_eq!(neighbour(&h, "A3", Direction::Down), Some("B4"));
        assert_eq!(
            neighbour(&h, "B3", Direction::Up),
            Some("A2"),
            "x 4 is as near to 3 as to 5: the smaller x wins the tie"
        );
        assert_eq!(neighbour(&h, "B1", Direction::Down), Some("D1"));
        assert_eq!(neighbour(&h, "D1", Direction::Up), Some("B3"));
        assert_eq!(neighbour(&h, "A1", Direction::Up), None);
    }
}
