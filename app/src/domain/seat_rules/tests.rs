//! The seat rules by example, and best available's promises as properties.

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
                price: crate::domain::Won::new(10_000),
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
fn a_selection_that_leaves_a_lone_seat_names_it() {
    let seats = hall(&["x......x"]);
    let taking = |codes: &[&'static str]| codes.iter().copied().collect::<BTreeSet<&str>>();
    assert_eq!(
        lone_seats_counting_all(&seats, &taking(&["A3", "A4"]), Rules::default()),
        ["A2"]
    );
    assert!(lone_seats_counting_all(&seats, &taking(&["A2", "A3"]), Rules::default()).is_empty());
    // At a row end: counted, unless the venue exempts ends and aisles.
    let seats = hall(&["......"]);
    assert_eq!(
        lone_seats_counting_all(&seats, &taking(&["A2", "A3"]), Rules::default()),
        ["A1"]
    );
    let exempt = Rules {
        exempt_edges: true,
        ..Rules::default()
    };
    assert!(lone_seats_counting_all(&seats, &taking(&["A2", "A3"]), exempt).is_empty());
    // A lone seat before the selection is not its doing.
    let seats = hall(&[".x...."]);
    assert!(lone_seats_counting_all(&seats, &taking(&["A3", "A4"]), Rules::default()).is_empty());
}

#[test]
fn the_published_example_seats_4_and_5_sold() {
    // Front row: seats 4 and 5 sold, so every pair in it leaves a lone seat.
    let seats = hall(&["...xx...", "........"]);
    let default = best_available(&seats, 2, None, Rules::default(), false, None);
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
        codes(&best_available(&rows, 2, None, off, false, None)),
        ["A2", "A3"]
    );
}

fn set(codes: &[&'static str]) -> BTreeSet<&'static str> {
    codes.iter().copied().collect()
}

#[test]
fn a_hold_that_leaves_a_lone_seat_is_refused_unless_nothing_else_would_do() {
    let rules = Rules::default();
    // Taking A3-A4 leaves A2 a lone seat; A2-A3 would not.
    let seats = hall(&["x......x"]);
    assert_eq!(
        judge(&seats, &set(&["A3", "A4"]), rules, false),
        Err(Refusal::LoneSeat(vec!["A2".into()]))
    );
    assert_eq!(judge(&seats, &set(&["A2", "A3"]), rules, false), Ok(vec![]));
    // Three free seats between sold ones: every pair leaves a lone seat, so it is allowed and
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
fn a_wheelchair_place_is_never_a_lone_seat_and_the_hold_agrees_with_best_available() {
    let rules = Rules::default();
    // Until released, a free wheelchair place next to a selection is not a lone seat.
    let seats = hall(&["w......"]);
    assert_eq!(judge(&seats, &set(&["A2", "A3"]), rules, false), Ok(vec![]));
    assert_eq!(
        judge(&seats, &set(&["A2", "A3"]), rules, true),
        Err(Refusal::LoneSeat(vec!["A1".into()]))
    );
    // No pair side by side avoids a lone seat, so best available takes one that leaves A4 a
    // lone seat, and the same seats chosen by hand are allowed too (seats apart that would
    // leave no lone seat do not count against seats side by side).
    let seats = hall(&["x...x", ".x.x."]);
    let best = best_available(&seats, 2, None, rules, false, None).unwrap();
    assert!(best.together);
    let taking: BTreeSet<&str> = best.seats.iter().map(String::as_str).collect();
    assert_eq!(judge(&seats, &taking, rules, false).unwrap().len(), 1);
    assert_eq!(
        judge(&seats, &set(&["A2", "A3"]), rules, false),
        Ok(vec!["A4".into()])
    );
    // Seats apart that leave a lone seat while others would not: refused.
    assert!(matches!(
        judge(&seats, &set(&["A3", "B1"]), rules, false),
        Err(Refusal::LoneSeat(_))
    ));
}

#[test]
fn best_available_aims_for_the_halls_best_seat_when_it_has_one() {
    let seats = hall(&["........", "........", "........"]);
    let middle = best_available(&seats, 2, None, Rules::default(), false, None);
    assert_eq!(codes(&middle), ["B4", "B5"]);
    let near = best_available(&seats, 2, None, Rules::default(), false, Some("C7"));
    assert_eq!(
        codes(&near),
        ["C7", "C8"],
        "C6-C7 would leave C8 a lone seat"
    );
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
        codes(&best_available(&seats, 8, None, rules, true, None)).len(),
        8,
        "released: best available may give them"
    );
}

#[test]
fn best_available_keeps_accessible_seats_and_categories_apart_and_says_when_apart() {
    let seats = hall(&["wc..cw"]);
    assert_eq!(
        codes(&best_available(
            &seats,
            2,
            None,
            Rules::default(),
            false,
            None
        )),
        ["A3", "A4"]
    );
    assert_eq!(
        best_available(&seats, 3, None, Rules::default(), false, None),
        None,
        "only two ordinary seats"
    );
    let mut mixed = hall(&["....", "...."]);
    for s in mixed.iter_mut().filter(|s| s.row == "B") {
        s.category = "PREMIUM".into();
    }
    // In a row of four, the middle pair would leave both ends lone seats: a pair at one end.
    let premium = best_available(&mixed, 2, Some("PREMIUM"), Rules::default(), false, None);
    assert_eq!(codes(&premium), ["B1", "B2"]);
    // No two side by side: as close as can be, and said to be apart.
    let seats = hall(&[".x.x.", "x.x.x"]);
    let apart = best_available(&seats, 2, None, Rules::default(), false, None).unwrap();
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
            let Some(pick) = best_available(&seats, count, None, rules, false, None) else {
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
            let leaves_lone_seat = |group: &[&Seat]| {
                let taking = group.iter().map(|s| s.code.as_str()).collect();
                !lone_seats(&seats, &taking, rules, false).is_empty()
            };
            // Side by side leaving a lone seat only when no block side by side avoids
            // it (together comes first); apart leaving a lone seat only when nothing
            // avoids it.
            let side_by_side = |g: &[&Seat]| {
                g.windows(2).all(|p| p[0].y == p[1].y && p[0].x + 1 == p[1].x)
            };
            if leaves_lone_seat(&picked) {
                let alternative = every_selection(&ordinary, count).into_iter().find(|g| {
                    !leaves_lone_seat(g) && (!pick.together || side_by_side(g))
                });
                prop_assert!(
                    alternative.is_none(),
                    "{:?} leaves a lone seat, {:?} would not", pick.seats,
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
