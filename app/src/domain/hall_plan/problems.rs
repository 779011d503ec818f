//! What can be wrong with a hall's plan, one value per finding. A finding about seats names all
//! the seats it concerns (a category typo on a 20-seat row is one finding naming 20 seats, not
//! 20 findings). `Display` says it in English — the REST API's message — and the console says
//! it in the page's language from the same value.

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

    /// The fault in English, of `what`.
    pub fn text(&self, what: &str) -> String {
        match self {
            Self::Length(max) => format!("{what} is 1 to {max} characters"),
            Self::Unprintable(c) => format!(
                "{what} may not hold control, invisible or direction-changing characters (U+{:04X} found)",
                *c as u32
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

impl fmt::Display for PlanProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::HallName(fault) => f.write_str(&fault.text("a hall's name")),
            Self::CategoryCount => f.write_str("a hall has 1 to 20 price categories"),
            Self::CategoryCode(code) => {
                write!(f, "category code {code:?} is not 1 to 16 of A-Z, 0-9, _")
            }
            Self::CategoryTwice(code) => write!(f, "category {code} is named twice"),
            Self::CategoryName { code, fault } => {
                f.write_str(&fault.text(&format!("category {code}'s name")))
            }
            Self::CategoryPrice(code) => {
                write!(f, "category {code}'s price is 0 to 10,000,000 won")
            }
            Self::TooManyRows => f.write_str("a hall has at most 200 rows"),
            Self::RowLabel(label) => {
                write!(f, "row label {label:?} is not one or two letters A-Z")
            }
            Self::RowTwice(label) => write!(f, "row {label} is there twice"),
            Self::GapWidth(row) => write!(f, "a gap in row {row} is 1 to 20 columns"),
            Self::SeatNumbers { row, numbers } => write!(
                f,
                "seat number {} in row {row} is not 1 to 999",
                list(numbers)
            ),
            Self::SeatsTwice(seats) => write!(f, "seat {} is there twice", seats.join(", ")),
            Self::UnknownCategory { category, seats } => write!(
                f,
                "seat {}'s category {category} is not one of the hall's",
                seats_text(seats)
            ),
            Self::WheelchairAndCompanion(seats) => write!(
                f,
                "seat {} is a wheelchair place or a companion seat, not both",
                seats.join(", ")
            ),
            Self::NoSeats => f.write_str("a hall has at least one seat"),
            Self::TooManySeats(n) => write!(
                f,
                "a hall has at most {} seats, not {n}",
                super::MAX_HALL_SEATS
            ),
            Self::BestSeat(seat) => write!(f, "bestSeat {seat} is not a seat of the hall"),
        }
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

/// Adds `seat` to the finding of `problems` that `same` picks, or starts one with `new`.
pub(super) fn add_seat(
    problems: &mut Vec<PlanProblem>,
    seat: String,
    same: impl Fn(&mut PlanProblem) -> Option<&mut Vec<String>>,
    new: impl FnOnce(Vec<String>) -> PlanProblem,
) {
    match problems.iter_mut().find_map(same) {
        Some(seats) => seats.push(seat),
        None => problems.push(new(vec![seat])),
    }
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
