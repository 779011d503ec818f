//! Demo data for a first start: two halls (120 and 300 seats, an aisle, two price categories
//! with youth, senior and disabled prices, wheelchair places) and showtimes over the next days. Safe to run from several processes at
//! once: a hall is created only by the process whose insert wins, and only that one adds its
//! showtimes.

use crate::store::{LayoutSeat, NewHall, Store, StoreError};
use app::domain::{PriceCategory, SeatCode, ShowtimeId, TicketPrices, Won};
use chrono::{DateTime, Days, NaiveTime, Utc};

/// Describes a rectangular hall: `rows` rows of `per_row` seats, aisles after the given seat
/// numbers, premium rows, and wheelchair places (row, number).
struct HallPlan {
    name: &'static str,
    rows: u8,
    per_row: i32,
    aisles_after: &'static [i32],
    premium_rows: std::ops::RangeInclusive<u8>,
    wheelchair: &'static [(u8, i32)],
}

/// Adult prices, and the youth, senior and disabled prices every showtime gets by default.
fn categories() -> Vec<PriceCategory> {
    let category =
        |code: &str, name: &str, [adult, youth, senior, disabled]: [i64; 4]| PriceCategory {
            code: code.into(),
            name: name.into(),
            price: Won::new(adult),
            ticket_prices: TicketPrices {
                youth: Some(Won::new(youth)),
                senior: Some(Won::new(senior)),
                disabled: Some(Won::new(disabled)),
            },
        };
    vec![
        category("STANDARD", "Standard", [12_000, 9_000, 6_000, 5_000]),
        category("PREMIUM", "Premium", [15_000, 12_000, 8_000, 7_000]),
    ]
}

fn build(plan: &HallPlan) -> NewHall {
    let mut seats = Vec::new();
    for r in 0..plan.rows {
        let row = char::from(b'A' + r).to_string();
        for n in 1..=plan.per_row {
            let aisles = plan.aisles_after.iter().filter(|&&a| n > a).count() as i32;
            let premium = plan.premium_rows.contains(&r);
            seats.push(LayoutSeat {
                code: SeatCode::parse(&format!("{row}{n}")).expect("generated codes are valid"),
                row: row.clone(),
                number: n,
                // Column 1 is the row label; each aisle is one empty column.
                x: n + 1 + aisles,
                y: i32::from(r) + 1,
                category: if premium { "PREMIUM" } else { "STANDARD" }.into(),
                wheelchair: plan.wheelchair.contains(&(r, n)),
                companion: false,
            });
        }
    }
    NewHall {
        name: plan.name.into(),
        categories: categories(),
        seats,
        best_seat: None,
    }
}

/// The two demo halls.
pub fn demo_halls() -> Vec<NewHall> {
    vec![
        build(&HallPlan {
            name: "Hall 1",
            rows: 10,
            per_row: 12,
            aisles_after: &[6],
            premium_rows: 4..=6,
            wheelchair: &[(9, 1), (9, 2), (9, 11), (9, 12)],
        }),
        build(&HallPlan {
            name: "Hall 2 (Grand)",
            rows: 15,
            per_row: 20,
            aisles_after: &[4, 16],
            premium_rows: 6..=10,
            wheelchair: &[(14, 1), (14, 2), (14, 19), (14, 20)],
        }),
    ]
}

const PROGRAMME: [(&str, &[(u32, u32)]); 2] = [
    ("Sea of Stars", &[(10, 30), (14, 0), (19, 30)]),
    (
        "The Last Encore — Live in Concert",
        &[(12, 0), (18, 0), (21, 30)],
    ),
];

/// Creates the demo halls and showtimes for `days` days from `today` unless the database
/// already has halls. Returns the showtimes it created.
pub async fn seed_demo(
    store: &Store,
    today: DateTime<Utc>,
    days: u64,
) -> Result<Vec<ShowtimeId>, StoreError> {
    if store.hall_count().await? > 0 {
        return Ok(vec![]);
    }
    let venue = app::format::venue_offset();
    let first_day = today.with_timezone(&venue).date_naive();
    let mut created = Vec::new();
    for (hall, (title, times)) in demo_halls().iter().zip(PROGRAMME) {
        let Some(hall_id) = store.import_hall(hall).await? else {
            continue;
        };
        for day in 0..days {
            let date = first_day
                .checked_add_days(Days::new(day))
                .expect("date in range");
            for &(h, m) in times {
                let local = date.and_time(NaiveTime::from_hms_opt(h, m, 0).expect("valid time"));
                let starts = local
                    .and_local_timezone(venue)
                    .single()
                    .expect("fixed offset")
                    .with_timezone(&Utc);
                created.push(store.create_showtime(hall_id, title, starts).await?);
            }
        }
    }
    Ok(created)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_demo_halls_have_120_and_300_seats_with_wheelchair_places() {
        let halls = demo_halls();
        assert_eq!(halls[0].seats.len(), 120);
        assert_eq!(halls[1].seats.len(), 300);
        for hall in &halls {
            assert_eq!(hall.seats.iter().filter(|s| s.wheelchair).count(), 4);
            assert!(hall.seats.iter().any(|s| s.category == "PREMIUM"));
            assert!(hall.seats.iter().any(|s| s.category == "STANDARD"));
        }
    }

    #[test]
    fn an_aisle_leaves_an_empty_column() {
        let hall = &demo_halls()[0];
        let columns: Vec<i32> = hall
            .seats
            .iter()
            .filter(|s| s.row == "A")
            .map(|s| s.x)
            .collect();
        assert_eq!(columns, [2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14]);
    }
}
