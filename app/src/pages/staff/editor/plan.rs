//! The editor's drafts and what they make: rows, seat numbers, the hall's plan and its
//! preview (pure, tested in `tests`).

use super::*;

/// Seats in one row of the editor, at most.
pub(super) const MAX_ROW_SEATS: u32 = 100;

#[derive(Clone, Copy)]
pub(super) struct CategoryDraft {
    pub(super) id: usize,
    pub(super) code: RwSignal<String>,
    pub(super) name: RwSignal<String>,
    pub(super) price: RwSignal<String>,
}

#[derive(Clone, Copy)]
pub(super) struct RowDraft {
    pub(super) id: usize,
    pub(super) label: RwSignal<String>,
    pub(super) seats: RwSignal<String>,
    pub(super) category: RwSignal<String>,
    /// Seat numbers an aisle follows: "4, 10".
    pub(super) aisles: RwSignal<String>,
    /// Wheelchair places by seat number: "1, 2".
    pub(super) wheelchair: RwSignal<String>,
    /// Companion seats by seat number.
    pub(super) companion: RwSignal<String>,
}

pub(super) fn category(id: usize, code: &str, name: &str, price: i64) -> CategoryDraft {
    CategoryDraft {
        id,
        code: RwSignal::new(code.into()),
        name: RwSignal::new(name.into()),
        price: RwSignal::new(price.to_string()),
    }
}

pub(super) fn row(id: usize, label: &str, seats: u32, category: &str, aisles: &str) -> RowDraft {
    RowDraft {
        id,
        label: RwSignal::new(label.into()),
        seats: RwSignal::new(seats.to_string()),
        category: RwSignal::new(category.into()),
        aisles: RwSignal::new(aisles.into()),
        wheelchair: RwSignal::new(String::new()),
        companion: RwSignal::new(String::new()),
    }
}

/// Seat numbers written as "4, 10" (spaces and commas between them).
pub fn seat_numbers(text: &str) -> Result<Vec<u32>, String> {
    text.split(|c: char| c == ',' || c.is_whitespace())
        .filter(|part| !part.is_empty())
        .map(|part| {
            part.parse::<u32>()
                .map_err(|_| format!("{part:?} is not a seat number"))
        })
        .collect()
}

/// Every seat number typed for a row of `seats` seats is kept or named here: none is dropped
/// for being past the row (or 0), and an aisle after the last seat would be past it too.
pub fn past_the_row(
    label: &str,
    seats: u32,
    aisles: &[u32],
    wheelchair: &[u32],
    companion: &[u32],
) -> Vec<String> {
    let mut problems = Vec::new();
    for (what, list) in [
        ("an aisle after seat", aisles),
        ("wheelchair place", wheelchair),
        ("companion seat", companion),
    ] {
        for n in list.iter().filter(|n| **n == 0 || **n > seats) {
            problems.push(format!(
                "row {label}: {what} {n} is not one of its {seats} seats"
            ));
        }
    }
    if seats > 0 && aisles.contains(&seats) {
        problems.push(format!(
            "row {label}: an aisle after seat {seats}, the last, would be past the row"
        ));
    }
    problems
}

/// Seat numbers of a row with a mark: wheelchair places and companion seats.
pub struct Marked<'a> {
    pub wheelchair: &'a [u32],
    pub companion: &'a [u32],
}

/// One row of seats numbered from 1, with an aisle (one empty column) after each seat of
/// `aisles` that is not the last.
pub fn row_plan(
    label: &str,
    seats: u32,
    category: &str,
    aisles: &[u32],
    marked: Marked,
) -> RowPlan {
    let mut plan = Vec::new();
    for number in 1..=seats {
        plan.push(SeatPlan::Seat {
            number,
            category: category.to_string(),
            wheelchair: marked.wheelchair.contains(&number),
            companion: marked.companion.contains(&number),
        });
        if aisles.contains(&number) && number < seats {
            plan.push(SeatPlan::Gap { gap: 1 });
        }
    }
    RowPlan {
        label: label.trim().to_uppercase(),
        seats: plan,
    }
}

/// A row as the editor's fields hold it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowFields {
    pub seats: u32,
    pub category: String,
    pub aisles: Vec<u32>,
    pub wheelchair: Vec<u32>,
    pub companion: Vec<u32>,
}

/// A row of a plan as the editor writes rows: seats numbered from 1 in one category, with
/// one-column aisles; `None` for a row the editor cannot show (edit its JSON instead).
pub fn row_fields(row: &RowPlan) -> Option<RowFields> {
    let (mut seats, mut category) = (0u32, None::<String>);
    let (mut aisles, mut wheelchair, mut companion) = (Vec::new(), Vec::new(), Vec::new());
    for item in &row.seats {
        match item {
            SeatPlan::Gap { gap: 1 } if seats > 0 => aisles.push(seats),
            SeatPlan::Gap { .. } => return None,
            SeatPlan::Seat {
                number,
                category: c,
                wheelchair: w,
                companion: m,
            } => {
                seats += 1;
                if *number != seats || category.get_or_insert_with(|| c.clone()) != c {
                    return None;
                }
                if *w {
                    wheelchair.push(seats);
                }
                if *m {
                    companion.push(seats);
                }
            }
        }
    }
    if seats == 0 || aisles.last() == Some(&seats) {
        return None;
    }
    Some(RowFields {
        seats,
        category: category?,
        aisles,
        wheelchair,
        companion,
    })
}

pub(super) fn listed(numbers: &[u32]) -> String {
    numbers
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The plan the drafts describe, or what is wrong with them (the plan's own check follows).
pub(super) fn plan_of(
    name: &str,
    categories: &[CategoryDraft],
    rows: &[RowDraft],
) -> Result<HallPlan, Vec<String>> {
    let mut problems = Vec::new();
    let categories: Vec<PriceCategory> = categories
        .iter()
        .map(|c| {
            let code = c.code.get().trim().to_uppercase();
            let price = c.price.get().trim().parse::<i64>().unwrap_or_else(|_| {
                problems.push(format!("the price of {code} is not a whole number of won"));
                0
            });
            PriceCategory {
                code,
                name: c.name.get().trim().to_string(),
                price,
            }
        })
        .collect();
    let rows: Vec<RowPlan> = rows
        .iter()
        .map(|r| {
            let label = r.label.get();
            let seats = match r.seats.get().trim().parse::<u32>() {
                Ok(n) if (1..=MAX_ROW_SEATS).contains(&n) => n,
                _ => {
                    problems.push(format!("row {label}: 1 to {MAX_ROW_SEATS} seats"));
                    0
                }
            };
            let mut numbers = |text: String| {
                seat_numbers(&text).unwrap_or_else(|e| {
                    problems.push(format!("row {label}: {e}"));
                    Vec::new()
                })
            };
            let aisles = numbers(r.aisles.get());
            let wheelchair = numbers(r.wheelchair.get());
            let companion = numbers(r.companion.get());
            problems.extend(past_the_row(
                &label,
                seats,
                &aisles,
                &wheelchair,
                &companion,
            ));
            let marked = Marked {
                wheelchair: &wheelchair,
                companion: &companion,
            };
            row_plan(&label, seats, r.category.get().trim(), &aisles, marked)
        })
        .collect();
    let plan = HallPlan {
        name: name.trim().to_string(),
        categories,
        rows,
        best_seat: None,
    };
    match (problems.is_empty(), plan.check()) {
        (true, Ok(_)) => Ok(plan),
        (_, Err(more)) => {
            problems.extend(more);
            Err(problems)
        }
        (false, Ok(_)) => Err(problems),
    }
}

/// The plan drawn as a showtime's seat map with every seat free.
pub(super) fn preview_map(plan: &HallPlan) -> Option<SeatMap> {
    let placed = plan.check().ok()?;
    let price = |code: &str| {
        plan.categories
            .iter()
            .find(|c| c.code == code)
            .map_or(0, |c| c.price)
    };
    Some(SeatMap {
        showtime_id: ShowtimeId::try_from(1).ok()?,
        movie_title: String::new(),
        hall_name: plan.name.clone(),
        starts_at: chrono::DateTime::UNIX_EPOCH,
        categories: plan.categories.clone(),
        seats: placed
            .iter()
            .map(|s| s.on_map(price(&s.category), SeatStatus::Available, 0))
            .collect(),
        sales_open: true,
        sales_opens_at: None,
        cancelled: false,

        seat_rules: Default::default(),
        accessible_released: false,
    })
}
