#[test]
fn a_misspelt_field_of_a_seat_is_refused_not_dropped() {
    let seat: Result<SeatPlan, _> =
        serde_json::from_str(r#"{"number": 1, "category": "STANDARD", "wheelchiar": true}"#);
    assert!(seat.is_err(), "{seat:?}");
    let gap: Result<SeatPlan, _> = serde_json::from_str(r#"{"gap": 1, "wide": true}"#);
    assert!(gap.is_err(), "{gap:?}");
    let seat: SeatPlan =
        serde_json::from_str(r#"{"number": 1, "category": "STANDARD", "wheelchair": true}"#)
            .unwrap();
    assert!(matches!(
        seat,
        SeatPlan::Seat {
            wheelchair: true,
            ..
        }
    ));
}

use super::*;

fn plan(json: &str) -> HallPlan {
    serde_json::from_str(json).unwrap()
}

const SMALL: &str = r#"{ "name": "Hall 3",
    "categories": [ { "code": "STANDARD", "name": "Standard", "price": 12000 },
                    { "code": "PREMIUM", "name": "Premium", "price": 15000 } ],
    "rows": [ { "label": "A", "seats": [ { "number": 1, "category": "STANDARD" }, { "gap": 2 },
                                         { "number": 2, "category": "STANDARD", "wheelchair": true } ] },
              { "label": "", "seats": [] },
              { "label": "b", "seats": [ { "number": 1, "category": "PREMIUM" },
                                         { "number": 2, "category": "PREMIUM", "companion": true } ] } ] }"#;

#[test]
fn a_plan_places_seats_with_gaps_and_empty_rows_and_round_trips() {
    let plan = plan(SMALL);
    let seats = plan.check().unwrap();
    let placed: Vec<(&str, i32, i32, bool, bool)> = seats
        .iter()
        .map(|s| (s.code.as_str(), s.x, s.y, s.wheelchair, s.companion))
        .collect();
    assert_eq!(
        placed,
        [
            ("A1", 1, 1, false, false),
            ("A2", 4, 1, true, false),
            ("B1", 1, 3, false, false),
            ("B2", 2, 3, false, true)
        ]
    );
    let again = HallPlan::from_seats(plan.name.clone(), plan.categories.clone(), seats.clone());
    assert_eq!(
        again.check().unwrap(),
        seats,
        "export then import places every seat alike"
    );
    assert_eq!(
        again.rows[1],
        RowPlan {
            label: String::new(),
            seats: Vec::new()
        }
    );
}

#[test]
fn everything_wrong_with_a_plan_is_said_at_once() {
    let bad = plan(
        r#"{ "name": " ", "categories": [ { "code": "std", "name": "", "price": -1 } ],
             "rows": [ { "label": "A1", "seats": [] },
                       { "label": "B", "seats": [ { "number": 0, "category": "std" },
                                                  { "number": 3, "category": "VIP" },
                                                  { "number": 3, "category": "std" },
                                                  { "number": 4, "category": "std", "wheelchair": true, "companion": true },
                                                  { "gap": 0 } ] } ] }"#,
    );
    let problems: Vec<String> = bad
        .check()
        .unwrap_err()
        .iter()
        .map(|p| p.to_string())
        .collect();
    let problems = problems.join("\n");
    for says in [
        "Seat B4 is a wheelchair place or a companion seat, not both",
        "name is 1 to 80",
        "“std” is not 1 to 16",
        "std's name",
        "std's price",
        "Row label “A1”",
        "Seat number 0 in row B",
        "B3's category VIP",
        "Seat B3 is there twice",
        "A gap in row B",
    ] {
        assert!(
            problems.contains(says),
            "{says:?} missing from:\n{problems}"
        );
    }
    assert!(serde_json::from_str::<HallPlan>(
        r#"{"name":"x","categories":[],"rows":[],"extra":1}"#
    )
    .is_err());
}

#[test]
fn each_unknown_category_is_one_problem_naming_its_seats_in_order() {
    let bad = plan(
        r#"{ "name": "Hall", "categories": [ { "code": "STANDARD", "name": "Standard", "price": 1 } ],
             "rows": [ { "label": "A", "seats": [ { "number": 1, "category": "STANDRAD" },
                                                  { "number": 2, "category": "GOLD" },
                                                  { "number": 3, "category": "STANDRAD" } ] },
                       { "label": "B", "seats": [ { "number": 1, "category": "GOLD" } ] } ] }"#,
    );
    let problems = bad.check().unwrap_err();
    assert_eq!(
        problems,
        vec![
            PlanProblem::UnknownCategory {
                category: "STANDRAD".into(),
                seats: vec!["A1".into(), "A3".into()]
            },
            PlanProblem::UnknownCategory {
                category: "GOLD".into(),
                seats: vec!["A2".into(), "B1".into()]
            },
        ]
    );
}
