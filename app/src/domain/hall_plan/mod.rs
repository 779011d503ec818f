//! A hall's seat layout as JSON, for importing and exporting halls (so a 1,000-seat hall need
//! not be clicked in). Rows go from the screen backwards; within a row, seats go from left to
//! right, each one column further than the last, and a gap (an aisle) skips columns:
//!
//! ```json
//! { "name": "Hall 3",
//!   "categories": [ { "code": "STANDARD", "name": "Standard", "price": 12000 },
//!                   { "code": "PREMIUM",  "name": "Premium",  "price": 15000 } ],
//!   "rows": [ { "label": "A", "seats": [ { "number": 1, "category": "STANDARD" },
//!                                        { "gap": 2 },
//!                                        { "number": 2, "category": "STANDARD", "wheelchair": true } ] },
//!             { "label": "", "seats": [] },
//!             { "label": "B", "seats": [ { "number": 1, "category": "PREMIUM" } ] } ],
//!   "bestSeat": "B1" }
//! ```
//!
//! `bestSeat` (optional) is where best available aims; without it, the middle of the hall.
//!
//! A row with no label and no seats is an empty row (a cross aisle). [`HallPlan::check`] says
//! everything that is wrong with a plan at once; a plan that passes makes a valid hall.

mod problems;

pub use problems::{seats_text, NameFault, PlanProblem};

use super::{PriceCategory, SeatCode, Won, MAX_PRICE};
use serde::{Deserialize, Serialize};
use std::collections::HashSet;

/// Most seats a hall may have.
pub const MAX_HALL_SEATS: usize = 3_000;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HallPlan {
    pub name: String,
    pub categories: Vec<PriceCategory>,
    pub rows: Vec<RowPlan>,
    /// The seat best available aims for (the best view in the hall); none: the middle of the
    /// seat columns and of the rows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub best_seat: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RowPlan {
    #[serde(default)]
    pub label: String,
    #[serde(default)]
    pub seats: Vec<SeatPlan>,
}

/// A seat, or a gap of `gap` empty columns. A field neither has is refused (a misspelt
/// `wheelchiar` is not quietly dropped).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged, deny_unknown_fields)]
pub enum SeatPlan {
    Gap {
        gap: u32,
    },
    #[serde(rename_all = "camelCase")]
    Seat {
        number: u32,
        category: String,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        wheelchair: bool,
        /// A seat for the companion of a wheelchair user.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        companion: bool,
    },
}

/// A hall as the console lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HallSummary {
    pub id: i64,
    pub name: String,
    pub seats: i64,
}

/// A showtime as the console lists it: how many of its seats are sold, held and free.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ShowtimeCounts {
    pub id: i64,
    pub movie_title: String,
    pub hall_name: String,
    #[serde(deserialize_with = "super::rfc3339::deserialize")]
    pub starts_at: chrono::DateTime<chrono::Utc>,
    pub duration_minutes: i32,
    pub sales: super::SalesWindow,
    /// Expected to sell out at once.
    pub hot_sale: bool,
    pub cancelled: bool,
    /// It has begun (by the server's clock): no seats of it are taken off sale any more.
    #[serde(default)]
    pub started: bool,
    /// It has ended: it is no longer cancelled (a show under way still can be: a breakdown).
    #[serde(default)]
    pub ended: bool,
    /// Refunds of its payments asked of the gateway and not yet made, and made.
    pub refunds_due: i64,
    pub refunded: i64,
    pub sold: i64,
    pub held: i64,
    /// Taken off public sale (house or killed seats).
    #[serde(default)]
    pub off_sale: i64,
    /// Tickets checked in at the door.
    #[serde(default)]
    pub checked_in: i64,
    pub free: i64,
}

/// A seat of a checked plan, placed on the grid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlacedSeat {
    pub code: SeatCode,
    pub row: String,
    pub number: i32,
    pub x: i32,
    pub y: i32,
    pub category: String,
    pub wheelchair: bool,
    pub companion: bool,
}

impl PlacedSeat {
    /// The seat as a seat map shows it, at `price`, with its status and version.
    pub fn on_map(
        &self,
        price: super::Won,
        status: super::SeatStatus,
        version: i64,
    ) -> super::Seat {
        super::Seat {
            code: self.code.clone(),
            row: self.row.clone(),
            number: self.number,
            x: self.x,
            y: self.y,
            category: self.category.clone(),
            price,
            accessible: self.wheelchair,
            companion: self.companion,
            status,
            version,
        }
    }
}

impl HallPlan {
    /// Every seat placed on the grid, or everything that is wrong with the plan (a finding
    /// about seats names every seat it concerns).
    pub fn check(&self) -> Result<Vec<PlacedSeat>, Vec<PlanProblem>> {
        use PlanProblem as P;
        let mut problems = Vec::new();
        if let Some(fault) = NameFault::of(&self.name, 80) {
            problems.push(P::HallName(fault));
        }
        let mut codes = HashSet::new();
        if self.categories.is_empty() || self.categories.len() > 20 {
            problems.push(P::CategoryCount);
        }
        for c in &self.categories {
            let code_ok = (1..=16).contains(&c.code.len())
                && c.code
                    .bytes()
                    .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_');
            if !code_ok {
                problems.push(P::CategoryCode(c.code.clone()));
            }
            if !codes.insert(c.code.as_str()) {
                problems.push(P::CategoryTwice(c.code.clone()));
            }
            if let Some(fault) = NameFault::of(&c.name, 40) {
                problems.push(P::CategoryName {
                    code: c.code.clone(),
                    fault,
                });
            }
            if !(Won::ZERO..=MAX_PRICE).contains(&c.price) {
                problems.push(P::CategoryPrice(c.code.clone()));
            }
            // Ticket types other than adult, each priced in every category or in none.
            let types = |p: &super::TicketPrices| p.iter().map(|(t, _)| t).collect::<Vec<_>>();
            let first = self.categories.first().map(|f| types(&f.ticket_prices));
            let same_types = first.is_some_and(|f| f == types(&c.ticket_prices));
            let types_ok = c
                .ticket_prices
                .iter()
                .all(|(_, p)| (Won::ZERO..=MAX_PRICE).contains(&p));
            if !same_types || !types_ok {
                problems.push(P::TicketPrices(c.code.clone()));
            }
        }
        if self.rows.len() > 200 {
            problems.push(P::TooManyRows);
        }
        let mut seats = Vec::new();
        let mut labels = HashSet::new();
        // Findings about seats, one per kind (and per unknown category), naming every seat:
        // kept apart while the seats are read (a lookup each, however many there are).
        let mut twice = Vec::new();
        let mut both = Vec::new();
        let mut unknown: Vec<(String, Vec<String>)> = Vec::new();
        let mut unknown_at: std::collections::HashMap<String, usize> = Default::default();
        for (y, row) in self.rows.iter().enumerate() {
            if row.label.is_empty() && row.seats.is_empty() {
                continue;
            }
            let label = row.label.trim().to_ascii_uppercase();
            let label_ok =
                (1..=2).contains(&label.len()) && label.bytes().all(|b| b.is_ascii_uppercase());
            if !label_ok {
                problems.push(P::RowLabel(row.label.clone()));
                continue;
            }
            if !labels.insert(label.clone()) {
                problems.push(P::RowTwice(label.clone()));
            }
            let mut numbers = HashSet::new();
            let mut bad_numbers = Vec::new();
            let mut bad_gap = false;
            let mut x = 0i32;
            for seat in &row.seats {
                match seat {
                    SeatPlan::Gap { gap } => {
                        bad_gap |= !(1..=20).contains(gap);
                        x += (*gap).min(20) as i32;
                    }
                    SeatPlan::Seat {
                        number,
                        category,
                        wheelchair,
                        companion,
                    } => {
                        let Ok(code) = SeatCode::parse(&format!("{label}{number}")) else {
                            bad_numbers.push(*number);
                            continue;
                        };
                        let name = code.to_string();
                        if !numbers.insert(*number) {
                            twice.push(name.clone());
                        }
                        if !codes.contains(category.as_str()) {
                            let at = *unknown_at.entry(category.clone()).or_insert_with(|| {
                                unknown.push((category.clone(), Vec::new()));
                                unknown.len() - 1
                            });
                            unknown[at].1.push(name.clone());
                        }
                        if *wheelchair && *companion {
                            both.push(name);
                        }
                        x += 1;
                        seats.push(PlacedSeat {
                            code,
                            row: label.clone(),
                            number: *number as i32,
                            x,
                            y: y as i32 + 1,
                            category: category.clone(),
                            wheelchair: *wheelchair,
                            companion: *companion,
                        });
                    }
                }
            }
            if bad_gap {
                problems.push(P::GapWidth(label.clone()));
            }
            if !bad_numbers.is_empty() {
                problems.push(P::SeatNumbers {
                    row: label.clone(),
                    numbers: bad_numbers,
                });
            }
        }
        if !twice.is_empty() {
            problems.push(P::SeatsTwice(twice));
        }
        problems.extend(
            unknown
                .into_iter()
                .map(|(category, seats)| P::UnknownCategory { category, seats }),
        );
        if !both.is_empty() {
            problems.push(P::WheelchairAndCompanion(both));
        }
        if seats.is_empty() {
            problems.push(P::NoSeats);
        }
        if seats.len() > MAX_HALL_SEATS {
            problems.push(P::TooManySeats(seats.len()));
        }
        if let Some(best) = &self.best_seat {
            if !seats.iter().any(|s| s.code.as_str() == best.trim()) {
                problems.push(P::BestSeat(best.clone()));
            }
        }
        if problems.is_empty() {
            Ok(seats)
        } else {
            Err(problems)
        }
    }

    /// The plan of a hall's seats (as [`check`](Self::check) placed them, or as stored):
    /// rows by `y`, seats by `x`, gaps where columns or rows are skipped.
    pub fn from_seats(
        name: String,
        categories: Vec<PriceCategory>,
        mut seats: Vec<PlacedSeat>,
    ) -> Self {
        // (A plan places one seat at a position: no two are equal.)
        seats.sort_unstable_by_key(|s| (s.y, s.x));
        let mut rows: Vec<RowPlan> = Vec::new();
        let mut last_y = 0;
        let mut last_x = 0;
        for seat in seats {
            if rows.is_empty() || seat.y != last_y {
                let skipped = if rows.is_empty() {
                    seat.y - 1
                } else {
                    seat.y - last_y - 1
                };
                rows.extend((0..skipped.max(0)).map(|_| RowPlan {
                    label: String::new(),
                    seats: Vec::new(),
                }));
                rows.push(RowPlan {
                    label: seat.row.clone(),
                    seats: Vec::new(),
                });
                last_y = seat.y;
                last_x = 0;
            }
            let row = rows.last_mut().expect("a row was pushed");
            let mut gap = seat.x - last_x - 1;
            while gap > 0 {
                let step = gap.min(20);
                row.seats.push(SeatPlan::Gap { gap: step as u32 });
                gap -= step;
            }
            last_x = seat.x;
            row.seats.push(SeatPlan::Seat {
                number: seat.number.max(0) as u32,
                category: seat.category,
                wheelchair: seat.wheelchair,
                companion: seat.companion,
            });
        }
        Self {
            name,
            categories,
            rows,
            best_seat: None,
        }
    }
}

#[cfg(test)]
mod tests;
