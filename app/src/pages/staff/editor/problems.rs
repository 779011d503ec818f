//! The editor's problems as the operator reads them: one line per problem, naming its seats,
//! in the page's language, and only for fields the operator has been in (a new row is not
//! wrong before anything was typed into it).

use super::plan::{DraftProblem, Mark, Source};

use crate::i18n::Lang;
use crate::tr;

fn numbers(list: &[u32]) -> String {
    list.iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// A problem of the drafts in `lang`.
pub fn problem_text(lang: Lang, problem: &DraftProblem) -> String {
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
        DraftProblem::Plan(p) => p.reason().said(lang),
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
