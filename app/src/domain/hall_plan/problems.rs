//! What can be wrong with a hall's plan, one value per finding. A finding about seats names all
//! the seats it concerns (a category typo on a 20-seat row is one finding naming 20 seats, not
//! 20 findings). `Display` says it in English — the REST API's message — and the console says
//! it in the page's language from the same value.

use crate::error::Reason;
use std::fmt;

/// Why a typed name may not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NameFault {
    /// Empty (after trimming) or longer than this many characters.
    Length(usize),
    /// Holds this control, invisible or direction-changing character.
    Unprintable(char),
}

impl NameFault {
    /// Why `text` may not be a name of 1 to `max` characters (trimmed, all printable), if it
    /// may not.
    pub fn of(text: &str, max: usize) -> Option<Self> {
        let trimmed = text.trim();
        if trimmed.is_empty() || trimmed.chars().count() > max {
            return Some(Self::Length(max));
        }
        super::super::unprintable(text).map(Self::Unprintable)
    }

    /// The fault of the name the locale key `what_key` names.
    pub fn reason(&self, what_key: &str) -> Reason {
        let what = ("what_key", what_key.to_string());
        match self {
            Self::Length(max) => {
                Reason::new("invalid.name_length", &[what, ("max", max.to_string())])
            }
            Self::Unprintable(c) => Reason::new(
                "invalid.name_unprintable",
                &[what, ("code", format!("U+{:04X}", *c as u32))],
            ),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlanProblem {
    HallName(NameFault),
    /// Fewer than 1 or more than 20 price categories.
    CategoryCount,
    /// A code that is not 1 to 16 of A-Z, 0-9, _.
    CategoryCode(String),
    CategoryTwice(String),
    CategoryName {
        code: String,
        fault: NameFault,
    },
    /// A price outside 0 to 10,000,000 won.
    CategoryPrice(String),
    /// Ticket-type prices of this category that are out of range, or for other types than the
    /// other categories price.
    TicketPrices(String),
    /// More than 200 rows.
    TooManyRows,
    /// A label that is not one or two letters.
    RowLabel(String),
    RowTwice(String),
    /// A gap of this row is not 1 to 20 columns.
    GapWidth(String),
    /// Seat numbers of this row that are not 1 to 999.
    SeatNumbers {
        row: String,
        numbers: Vec<u32>,
    },
    /// Seats that are there twice.
    SeatsTwice(Vec<String>),
    /// Seats whose category the hall does not have.
    UnknownCategory {
        category: String,
        seats: Vec<String>,
    },
    /// Seats marked both a wheelchair place and a companion seat.
    WheelchairAndCompanion(Vec<String>),
    NoSeats,
    TooManySeats(usize),
    BestSeat(String),
}

impl PlanProblem {
    /// The problem as the locale says it.
    pub fn reason(&self) -> Reason {
        let r = |key: &str, args: &[(&str, String)]| Reason::new(key, args);
        match self {
            Self::HallName(fault) => fault.reason("invalid.what.hall_name"),
            Self::CategoryCount => r("editor.problem.category_count", &[]),
            Self::CategoryCode(code) => {
                r("editor.problem.category_code", &[("code", code.clone())])
            }
            Self::CategoryTwice(code) => {
                r("editor.problem.category_twice", &[("code", code.clone())])
            }
            Self::CategoryName { code, fault } => match fault {
                NameFault::Length(max) => r(
                    "editor.problem.category_name_length",
                    &[("code", code.clone()), ("max", max.to_string())],
                ),
                NameFault::Unprintable(c) => r(
                    "editor.problem.category_name_unprintable",
                    &[
                        ("code", code.clone()),
                        ("char", format!("U+{:04X}", *c as u32)),
                    ],
                ),
            },
            Self::CategoryPrice(code) => {
                r("editor.problem.category_price", &[("code", code.clone())])
            }
            Self::TicketPrices(code) => {
                r("editor.problem.ticket_prices", &[("code", code.clone())])
            }
            Self::TooManyRows => r("editor.problem.too_many_rows", &[]),
            Self::RowLabel(label) => r("editor.problem.row_label", &[("label", label.clone())]),
            Self::RowTwice(label) => r("editor.problem.row_twice", &[("label", label.clone())]),
            Self::GapWidth(row) => r("editor.problem.gap", &[("row", row.clone())]),
            Self::SeatNumbers { row, numbers } => r(
                "editor.problem.seat_numbers",
                &[("row", row.clone()), ("numbers", list(numbers))],
            ),
            Self::SeatsTwice(seats) => r(
                "editor.problem.seats_twice",
                &[("seats", seats_text(seats))],
            ),
            Self::UnknownCategory { category, seats } => r(
                "editor.problem.unknown_category",
                &[("category", category.clone()), ("seats", seats_text(seats))],
            ),
            Self::WheelchairAndCompanion(seats) => r(
                "editor.problem.wheelchair_and_companion",
                &[("seats", seats_text(seats))],
            ),
            Self::NoSeats => r("editor.problem.no_seats", &[]),
            Self::TooManySeats(n) => r(
                "editor.problem.too_many_seats",
                &[
                    ("max", super::MAX_HALL_SEATS.to_string()),
                    ("count", n.to_string()),
                ],
            ),
            Self::BestSeat(seat) => r("editor.problem.best_seat", &[("seat", seat.clone())]),
        }
    }
}

/// In English (the REST API's message).
impl fmt::Display for PlanProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.reason().said(crate::i18n::Lang::En))
    }
}

fn list(numbers: &[u32]) -> String {
    numbers
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Seats as a person reads them: runs of one row in a range (`C1–C8, D2`), in the order given.
pub fn seats_text(seats: &[String]) -> String {
    let split = |code: &str| {
        let at = code.find(|c: char| c.is_ascii_digit())?;
        Some((code[..at].to_string(), code[at..].parse::<u32>().ok()?))
    };
    let mut runs: Vec<(String, u32, u32)> = Vec::new();
    let mut loose = Vec::new();
    for code in seats {
        match split(code) {
            Some((row, n)) => match runs.last_mut() {
                Some((r, _, last)) if *r == row && *last + 1 == n => *last = n,
                _ => runs.push((row, n, n)),
            },
            None => loose.push(code.clone()),
        }
    }
    runs.into_iter()
        .map(|(row, a, b)| match b - a {
            0 => format!("{row}{a}"),
            1 => format!("{row}{a}, {row}{b}"),
            _ => format!("{row}{a}–{row}{b}"),
        })
        .chain(loose)
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seats_are_read_as_runs_of_a_row() {
        let seats = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            seats_text(&seats(&["C1", "C2", "C3", "C4", "D2", "D3", "E5"])),
            "C1–C4, D2, D3, E5"
        );
        assert_eq!(seats_text(&seats(&["A1", "A3"])), "A1, A3");
        assert_eq!(seats_text(&seats(&[])), "");
    }
}
