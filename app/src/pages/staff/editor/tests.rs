use super::*;

#[test]
fn a_wheelchair_place_or_aisle_past_the_row_is_named_not_dropped() {
    assert_eq!(super::past_the_row("A", 12, &[4], &[12], &[11]), Vec::new());
    let problems = super::past_the_row("A", 12, &[12], &[14, 15], &[0]);
    assert_eq!(
        problems,
        vec![
            DraftProblem::PastTheRow {
                row: "A".into(),
                mark: Mark::Wheelchair,
                numbers: vec![14, 15],
                seats: 12
            },
            DraftProblem::PastTheRow {
                row: "A".into(),
                mark: Mark::Companion,
                numbers: vec![0],
                seats: 12
            },
            DraftProblem::AisleAfterLast {
                row: "A".into(),
                seats: 12
            },
        ]
    );
    let said: Vec<String> = problems
        .iter()
        .map(|p| super::problems::problem_text(crate::i18n::Lang::En, p))
        .collect();
    assert_eq!(
        said,
        [
            "Row A: wheelchair place 14, 15, but the row has seats 1 to 12.",
            "Row A: companion seat 0, but the row has seats 1 to 12.",
            "Row A: an aisle after seat 12, the last, would be past the row."
        ]
    );
}

/// A category typo on a 20-seat row is one problem naming the row's seats, in both languages,
/// and in the row the operator fixes it in.
#[test]
fn a_mistake_on_a_whole_row_is_one_problem_naming_its_seats() {
    let plan = crate::domain::HallPlan {
        name: "Hall".into(),
        categories: vec![crate::domain::PriceCategory {
            code: "STANDARD".into(),
            name: "Standard".into(),
            price: crate::domain::Won::new(12_000),
            ticket_prices: Default::default(),
        }],
        rows: vec![
            row_plan(
                "A",
                0,
                20,
                "STANDRAD",
                &[],
                Marked {
                    wheelchair: &[],
                    companion: &[],
                },
            ),
            row_plan(
                "B",
                0,
                4,
                "STANDARD",
                &[],
                Marked {
                    wheelchair: &[],
                    companion: &[],
                },
            ),
        ],
        best_seat: None,
    };
    let problems: Vec<DraftProblem> = plan
        .check()
        .unwrap_err()
        .into_iter()
        .map(DraftProblem::Plan)
        .collect();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(
        problems[0].sources(),
        vec![Source::Row("A".into()), Source::Categories]
    );
    assert_eq!(
        super::problems::problem_text(crate::i18n::Lang::En, &problems[0]),
        "Seat A1–A20's category STANDRAD is not one of the hall's."
    );
    assert_eq!(
        super::problems::problem_text(crate::i18n::Lang::Ko, &problems[0]),
        "STANDRAD는 이 상영관의 등급이 아닙니다(좌석 A1–A20)."
    );
    // Shown once row A was touched, not before.
    assert!(!super::problems::shown(&problems[0], |_| false));
    assert!(super::problems::shown(&problems[0], |s| *s == Source::Row("A".into())));
}

/// Every finding of a plan's check is said in Korean from the locale, not in English.
#[test]
fn every_plan_problem_is_said_in_korean() {
    use crate::domain::{NameFault, PlanProblem as P};
    let seats = vec!["A1".to_string(), "A2".to_string()];
    for p in [
        P::HallName(NameFault::Length(80)),
        P::HallName(NameFault::Unprintable('\u{202E}')),
        P::CategoryCount,
        P::CategoryCode("x".into()),
        P::CategoryTwice("VIP".into()),
        P::CategoryName {
            code: "VIP".into(),
            fault: NameFault::Length(40),
        },
        P::CategoryPrice("VIP".into()),
        P::TooManyRows,
        P::RowLabel("A1".into()),
        P::RowTwice("A".into()),
        P::GapWidth("A".into()),
        P::SeatNumbers {
            row: "A".into(),
            numbers: vec![0],
        },
        P::SeatsTwice(seats.clone()),
        P::UnknownCategory {
            category: "GOLD".into(),
            seats: seats.clone(),
        },
        P::WheelchairAndCompanion(seats),
        P::NoSeats,
        P::TooManySeats(3001),
        P::BestSeat("Z9".into()),
    ] {
        let ko =
            super::problems::problem_text(crate::i18n::Lang::Ko, &DraftProblem::Plan(p.clone()));
        assert!(
            ko.chars().any(|c| ('가'..='힣').contains(&c)) && !ko.contains("%{"),
            "{p:?}: {ko}"
        );
    }
}

/// Centring puts each row's offset at half the difference to the widest row.
#[test]
fn short_rows_are_centred_under_the_widest() {
    assert_eq!(row_width(12, &[6]), 13);
    assert_eq!(
        row_width(8, &[8]),
        8,
        "an aisle after the last seat is no column"
    );
    assert_eq!(
        centred_offsets(&[Some(13), Some(9), None, Some(8)]),
        vec![Some(0), Some(2), None, Some(2)]
    );
    let row = row_plan(
        "C",
        2,
        3,
        "STANDARD",
        &[],
        Marked {
            wheelchair: &[],
            companion: &[],
        },
    );
    assert_eq!(row.seats[0], SeatPlan::Gap { gap: 2 });
    assert_eq!(
        row_fields(&row).map(|f| f.offset),
        Some(2),
        "read back as an offset"
    );
}

#[test]
fn a_row_gets_its_aisles_after_the_named_seats_and_its_wheelchair_places() {
    let marked = Marked {
        wheelchair: &[1],
        companion: &[2],
    };
    let row = row_plan(" b ", 0, 5, "STANDARD", &[2, 5], marked);
    assert_eq!(row.label, "B");
    let shape: Vec<String> = row
        .seats
        .iter()
        .map(|s| match s {
            SeatPlan::Gap { gap } => format!("_{gap}"),
            SeatPlan::Seat {
                number,
                wheelchair,
                companion,
                ..
            } => format!(
                "{number}{}{}",
                if *wheelchair { "w" } else { "" },
                if *companion { "c" } else { "" }
            ),
        })
        .collect();
    assert_eq!(
        shape,
        ["1w", "2c", "_1", "3", "4", "5"],
        "no aisle after the last seat"
    );
    assert_eq!(
        row_fields(&row),
        Some(RowFields {
            offset: 0,
            seats: 5,
            category: "STANDARD".into(),
            aisles: vec![2],
            wheelchair: vec![1],
            companion: vec![2],
        }),
        "read back as the editor wrote it"
    );
    let mut mixed = row.clone();
    mixed.seats[0] = SeatPlan::Seat {
        number: 1,
        category: "VIP".into(),
        wheelchair: false,
        companion: false,
    };
    assert_eq!(row_fields(&mixed), None, "two categories in a row");
    let mut wide = row.clone();
    wide.seats[2] = SeatPlan::Gap { gap: 3 };
    assert_eq!(row_fields(&wide), None, "an aisle wider than one column");
    assert_eq!(seat_numbers("4, 10 12"), Ok(vec![4, 10, 12]));
    assert!(seat_numbers("4, x").is_err());
}

/// A category's youth, senior and disabled prices go into the plan as typed; an empty one is
/// a type not sold, and one that is not a number is named by its category.
#[test]
fn ticket_type_prices_typed_in_the_editor_make_the_plans_prices() {
    use crate::domain::{TicketPrices, TicketType, Won};
    // The drafts are signals: they live in an owner (its arena, when the server's features
    // sandbox them).
    let owner = Owner::new();
    owner.set();
    let youth = TicketPrices {
        youth: Some(Won::new(9_000)),
        ..Default::default()
    };
    let standard = category(0, "STANDARD", "Standard", 12_000, youth);
    let rows = [row(1, "A", 4, "STANDARD", "")];
    let plan = plan_of("Hall", &[standard], &rows).expect("a plan");
    assert_eq!(plan.categories[0].ticket_prices, youth);
    standard.types[1].set("7000".into());
    let plan = plan_of("Hall", &[standard], &rows).expect("a plan");
    assert_eq!(
        plan.categories[0].ticket_prices.get(TicketType::Senior),
        Some(Won::new(7_000))
    );
    standard.types[0].set("9k".into());
    assert_eq!(
        plan_of("Hall", &[standard], &rows).unwrap_err(),
        vec![DraftProblem::Price("STANDARD".into())]
    );
    // Priced in one category and not in the other: the plan's check names the other.
    standard.types[0].set("9000".into());
    let vip = category(2, "VIP", "VIP", 20_000, youth);
    let problems = plan_of("Hall", &[standard, vip], &rows).unwrap_err();
    assert_eq!(
        problems,
        vec![DraftProblem::Plan(
            crate::domain::PlanProblem::TicketPrices("VIP".into())
        )]
    );
}
