//! The editor's problems as the operator reads them: one line per problem, naming its seats,
//! in the page's language, and only for fields the operator has been in (a new row is not
//! wrong before anything was typed into it).

use super::plan::{DraftProblem, Mark, Source};
use crate::domain::{seats_text, NameFault, PlanProblem};
use crate::i18n::Lang;
use crate::tr;

fn numbers(list: &[u32]) -> String {
    list.iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

fn name_fault(lang: Lang, what: String, fault: &NameFault) -> String {
    match fault {
        NameFault::Length(max) => tr!(lang, "editor.problem.name_length", what = what, max = max),
        NameFault::Unprintable(c) => tr!(
            lang,
            "editor.problem.name_unprintable",
            what = what,
            code = format!("U+{:04X}", *c as u32)
        ),
    }
}

/// A problem of the drafts in `lang`.
pub fn problem_text(lang: Lang, problem: &DraftProblem) -> String {
    use PlanProblem as P;
    match problem {
        DraftProblem::Price(code) => tr!(lang, "editor.problem.price_number", code = code),
        DraftProblem::SeatCount(row) => tr!(
            lang,
            "editor.problem.seat_count",
            row = row,
            max = super::plan::MAX_ROW_SEATS
        ),
        DraftProblem::NotANumber { row, text } => {
            tr!(lang, "editor.problem.not_a_number", row = row, text = text)
        }
        DraftProblem::PastTheRow {
            row,
            mark,
            numbers: list,
            seats,
        } => {
            let key = match mark {
                Mark::Aisle => "editor.problem.aisle_past",
                Mark::Wheelchair => "editor.problem.wheelchair_past",
                Mark::Companion => "editor.problem.companion_past",
            };
            crate::i18n::translate(
                lang,
                key,
                &[
                    ("row", row.clone()),
                    ("numbers", numbers(list)),
                    ("seats", seats.to_string()),
                ],
            )
        }
        DraftProblem::AisleAfterLast { row, seats } => {
            tr!(lang, "editor.problem.aisle_last", row = row, seats = seats)
        }
        DraftProblem::Offset(row) => tr!(
            lang,
            "editor.problem.offset",
            row = row,
            max = super::plan::MAX_OFFSET
        ),
        DraftProblem::Plan(p) => match p {
            P::HallName(fault) => name_fault(lang, tr!(lang, "editor.problem.hall_name"), fault),
            P::CategoryCount => tr!(lang, "editor.problem.category_count"),
            P::CategoryCode(code) => tr!(lang, "editor.problem.category_code", code = code),
            P::CategoryTwice(code) => tr!(lang, "editor.problem.category_twice", code = code),
            P::CategoryName { code, fault } => name_fault(
                lang,
                tr!(lang, "editor.problem.category_name", code = code),
                fault,
            ),
            P::CategoryPrice(code) => tr!(lang, "editor.problem.category_price", code = code),
            P::TooManyRows => tr!(lang, "editor.problem.too_many_rows"),
            P::RowLabel(label) => tr!(lang, "editor.problem.row_label", label = label),
            P::RowTwice(label) => tr!(lang, "editor.problem.row_twice", label = label),
            P::GapWidth(row) => tr!(lang, "editor.problem.gap", row = row),
            P::SeatNumbers { row, numbers: list } => tr!(
                lang,
                "editor.problem.seat_numbers",
                row = row,
                numbers = numbers(list)
            ),
            P::SeatsTwice(seats) => {
                tr!(
                    lang,
                    "editor.problem.seats_twice",
                    seats = seats_text(seats)
                )
            }
            P::UnknownCategory { category, seats } => tr!(
                lang,
                "editor.problem.unknown_category",
                category = category,
                seats = seats_text(seats),
                count = seats.len()
            ),
            P::WheelchairAndCompanion(seats) => tr!(
                lang,
                "editor.problem.wheelchair_and_companion",
                seats = seats_text(seats)
            ),
            P::NoSeats => tr!(lang, "editor.problem.no_seats"),
            P::TooManySeats(n) => tr!(
                lang,
                "editor.problem.too_many_seats",
                max = crate::domain::MAX_HALL_SEATS,
                count = n
            ),
            P::BestSeat(seat) => tr!(lang, "editor.problem.best_seat", seat = seat),
        },
    }
}

/// Whether a problem is shown: once a field it is in was touched (a problem of the hall as a
/// whole, always). `touched` says whether the field of a source was.
pub fn shown(problem: &DraftProblem, touched: impl Fn(&Source) -> bool) -> bool {
    problem
        .sources()
        .iter()
        .any(|s| *s == Source::Hall || touched(s))
}
