use super::*;

#[test]
fn a_wheelchair_place_or_aisle_past_the_row_is_named_not_dropped() {
    assert_eq!(
        super::past_the_row("A", 12, &[4], &[12], &[11]),
        Vec::<String>::new()
    );
    let problems = super::past_the_row("A", 12, &[12], &[14], &[0]);
    assert_eq!(problems.len(), 3, "{problems:?}");
    assert!(
        problems.iter().any(|p| p.contains("wheelchair place 14")),
        "{problems:?}"
    );
    assert!(
        problems.iter().any(|p| p.contains("companion seat 0")),
        "{problems:?}"
    );
    assert!(
        problems
            .iter()
            .any(|p| p.contains("after seat 12, the last")),
        "{problems:?}"
    );
}

#[test]
fn a_row_gets_its_aisles_after_the_named_seats_and_its_wheelchair_places() {
    let marked = Marked {
        wheelchair: &[1],
        companion: &[2],
    };
    let row = row_plan(" b ", 5, "STANDARD", &[2, 5], marked);
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
