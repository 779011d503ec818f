//! The editor's drafts and what they make: rows, seat numbers, the hall's plan and its
//! preview (pure, tested in `tests`).

use super::*;
use crate::domain::{PlanProblem, Won};

/// Seats in one row of the editor, at most.
pub(super) const MAX_ROW_SEATS: u32 = 100;
/// Empty columns before a row's first seat, at most (a gap of the plan is at most 20).
pub(super) const MAX_OFFSET: u32 = 20;

#[derive(Clone, Copy)]
pub(super) struct CategoryDraft {
    pub(super) id: usize,
    pub(super) code: RwSignal<String>,
    pub(super) name: RwSignal<String>,
    pub(super) price: RwSignal<String>,
    /// Its price of each ticket type besides adult, in [`TYPES`]' order: empty, not sold.
    pub(super) types: [RwSignal<String>; 3],
}

/// The ticket types a category may price besides adult, as the editor's columns show them.
pub(super) const TYPES: [crate::domain::TicketType; 3] = [
    crate::domain::TicketType::Youth,
    crate::domain::TicketType::Senior,
    crate::domain::TicketType::Disabled,
];

#[derive(Clone, Copy)]
pub(super) struct RowDraft {
    pub(super) id: usize,
    pub(super) label: RwSignal<String>,
    /// Empty columns before the first seat: a short row moved to the centre, or seats lined up
    /// with the aisles of the rows around them.
    pub(super) offset: RwSignal<String>,
    pub(super) seats: RwSignal<String>,
    pub(super) category: RwSignal<String>,
    /// Seat numbers an aisle follows: "4, 10".
    pub(super) aisles: RwSignal<String>,
    /// Wheelchair places by seat number: "1, 2".
    pub(super) wheelchair: RwSignal<String>,
    /// Companion seats by seat number.
    pub(super) companion: RwSignal<String>,
}

pub(super) fn category(
    id: usize,
    code: &str,
    name: &str,
    price: i64,
    types: crate::domain::TicketPrices,
) -> CategoryDraft {
    CategoryDraft {
        id,
        code: RwSignal::new(code.into()),
        name: RwSignal::new(name.into()),
        price: RwSignal::new(price.to_string()),
        types: TYPES.map(|t| RwSignal::new(types.get(t).map_or(String::new(), |p| p.to_string()))),
    }
}

pub(super) fn row(id: usize, label: &str, seats: u32, category: &str, aisles: &str) -> RowDraft {
    RowDraft {
        id,
        label: RwSignal::new(label.into()),
        offset: RwSignal::new(String::new()),
        seats: RwSignal::new(seats.to_string()),
        category: RwSignal::new(category.into()),
        aisles: RwSignal::new(aisles.into()),
        wheelchair: RwSignal::new(String::new()),
        companion: RwSignal::new(String::new()),
    }
}

/// Seat numbers written as "4, 10" (spaces and commas between them); what is not one, as typed.
pub fn seat_numbers(text: &str) -> Result<Vec<u32>, String> {
    text.split(|c: char| c == ',' || c.is_whitespace())
        .filter(|part| !part.is_empty())
        .map(|part| part.parse::<u32>().map_err(|_| part.to_string()))
        .collect()
}

/// A mark the editor puts on seat numbers of a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    /// An aisle after the seat.
    Aisle,
    Wheelchair,
    Companion,
}

/// What is wrong with the editor's drafts: the fields' own findings, then the plan's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DraftProblem {
    /// The price of this category is not a whole number of won.
    Price(String),
    /// This row has not 1 to [`MAX_ROW_SEATS`] seats.
    SeatCount(String),
    /// Something typed among a row's seat numbers that is not one.
    NotANumber {
        row: String,
        text: String,
    },
    /// Seat numbers of a row marked `mark` that are not among its `seats` seats.
    PastTheRow {
        row: String,
        mark: Mark,
        numbers: Vec<u32>,
        seats: u32,
    },
    /// An aisle after the row's last seat.
    AisleAfterLast {
        row: String,
        seats: u32,
    },
    /// The row's offset (empty columns before its first seat) is not 0 to [`MAX_OFFSET`].
    Offset(String),
    Plan(PlanProblem),
}

/// Where a problem is: the field a person fixes it in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    Name,
    Category(String),
    /// The categories' table as a whole (a row's category the table no longer has).
    Categories,
    Row(String),
    /// The hall as a whole (no seats, too many…).
    Hall,
}

impl DraftProblem {
    /// The fields a person fixes it in.
    pub fn sources(&self) -> Vec<Source> {
        use PlanProblem as P;
        let row_of = |seat: &String| {
            Source::Row(
                seat.trim_end_matches(|c: char| c.is_ascii_digit())
                    .to_string(),
            )
        };
        match self {
            Self::Price(code) => vec![Source::Category(code.clone())],
            Self::SeatCount(row)
            | Self::NotANumber { row, .. }
            | Self::PastTheRow { row, .. }
            | Self::AisleAfterLast { row, .. }
            | Self::Offset(row) => vec![Source::Row(row.clone())],
            Self::Plan(p) => match p {
                P::HallName(_) => vec![Source::Name],
                P::CategoryCode(code)
                | P::CategoryTwice(code)
                | P::CategoryName { code, .. }
                | P::CategoryPrice(code)
                | P::TicketPrices(code) => vec![Source::Category(code.clone())],
                P::RowLabel(row)
                | P::RowTwice(row)
                | P::GapWidth(row)
                | P::SeatNumbers { row, .. } => vec![Source::Row(row.clone())],
                P::SeatsTwice(seats) | P::WheelchairAndCompanion(seats) => {
                    let mut rows: Vec<Source> = seats.iter().map(row_of).collect();
                    rows.dedup();
                    rows
                }
                // Fixed in its rows, or made by renaming a category in the table.
                P::UnknownCategory { seats, .. } => {
                    let mut rows: Vec<Source> = seats.iter().map(row_of).collect();
                    rows.dedup();
                    rows.push(Source::Categories);
                    rows
                }
                P::CategoryCount
                | P::TooManyRows
                | P::NoSeats
                | P::TooManySeats(_)
                | P::BestSeat(_) => vec![Source::Hall],
            },
        }
    }
}

/// Every seat number typed for a row of `seats` seats is kept or named here: none is dropped
/// for being past the row (or 0), and an aisle after the last seat would be past it too.
pub fn past_the_row(
    label: &str,
    seats: u32,
    aisles: &[u32],
    wheelchair: &[u32],
    companion: &[u32],
) -> Vec<DraftProblem> {
    let mut problems = Vec::new();
    for (mark, list) in [
        (Mark::Aisle, aisles),
        (Mark::Wheelchair, wheelchair),
        (Mark::Companion, companion),
    ] {
        let numbers: Vec<u32> = list
            .iter()
            .copied()
            .filter(|n| *n == 0 || *n > seats)
            .collect();
        if !numbers.is_empty() {
            problems.push(DraftProblem::PastTheRow {
                row: label.to_string(),
                mark,
                numbers,
                seats,
            });
        }
    }
    if seats > 0 && aisles.contains(&seats) {
        problems.push(DraftProblem::AisleAfterLast {
            row: label.to_string(),
            seats,
        });
    }
    problems
}

/// Seat numbers of a row with a mark: wheelchair places and companion seats.
pub struct Marked<'a> {
    pub wheelchair: &'a [u32],
    pub companion: &'a [u32],
}

/// The plan the drafts describe, or what is wrong with them (the plan's own check follows).
pub(super) fn plan_of(
    name: &str,
    categories: &[CategoryDraft],
    rows: &[RowDraft],
) -> Result<HallPlan, Vec<DraftProblem>> {
    let mut problems = Vec::new();
    let categories: Vec<PriceCategory> = categories
        .iter()
        .map(|c| {
            let code = c.code.get().trim().to_ascii_uppercase();
            let price = c
                .price
                .get()
                .trim()
                .parse::<i64>()
                .map(Won::new)
                .unwrap_or_else(|_| {
                    problems.push(DraftProblem::Price(code.clone()));
                    Won::ZERO
                });
            let mut ticket_prices = crate::domain::TicketPrices::default();
            for (t, typed) in TYPES.into_iter().zip(c.types) {
                match typed.get().trim() {
                    "" => {}
                    text => match text.parse::<i64>() {
                        Ok(won) => ticket_prices.set(t, Won::new(won)),
                        Err(_) => problems.push(DraftProblem::Price(code.clone())),
                    },
                }
            }
            PriceCategory {
                code,
                name: c.name.get().trim().to_string(),
                price,
                ticket_prices,
            }
        })
        .collect();
    let rows: Vec<RowPlan> = rows
        .iter()
        .map(|r| {
            let label = r.label.get().trim().to_ascii_uppercase();
            let seats = match r.seats.get().trim().parse::<u32>() {
                Ok(n) if (1..=MAX_ROW_SEATS).contains(&n) => n,
                _ => {
                    problems.push(DraftProblem::SeatCount(label.clone()));
                    0
                }
            };
            let offset = match r.offset.get().trim() {
                "" => 0,
                text => match text.parse::<u32>() {
                    Ok(n) if n <= MAX_OFFSET => n,
                    _ => {
                        problems.push(DraftProblem::Offset(label.clone()));
                        0
                    }
                },
            };
            let mut numbers = |text: String| {
                seat_numbers(&text).unwrap_or_else(|text| {
                    problems.push(DraftProblem::NotANumber {
                        row: label.clone(),
                        text,
                    });
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
            row_plan(
                &label,
                offset,
                seats,
                r.category.get().trim(),
                &aisles,
                marked,
            )
        })
        .collect();
    let plan = HallPlan {
        name: name.trim().to_string(),
        categories,
        rows,
        best_seat: None,
    };
    match plan.check() {
        Ok(_) if problems.is_empty() => Ok(plan),
        Ok(_) => Err(problems),
        Err(more) => {
            problems.extend(more.into_iter().map(DraftProblem::Plan));
            Err(problems)
        }
    }
}

/// The plan drawn as a showtime's seat map with every seat free.
pub(super) fn preview_map(plan: &HallPlan) -> Option<SeatMap> {
    let placed = plan.check().ok()?;
    let price = |code: &str| {
        plan.categories
            .iter()
            .find(|c| c.code == code)
            .map_or(Won::ZERO, |c| c.price)
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
