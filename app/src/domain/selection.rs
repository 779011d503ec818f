//! The seats a customer asks to hold in one go.

use super::{SeatCode, SeatCodeError};
use serde::{Deserialize, Serialize};

/// The most seats one hold may take.
pub const MAX_SEATS_PER_HOLD: usize = 8;

/// 1–8 distinct valid seat codes, sorted. Sorting gives every transaction the same lock order,
/// which is what keeps two overlapping holds from deadlocking. Read from JSON (a list of codes)
/// through [`SeatSelection::parse`], so a request cannot carry an unchecked one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "Vec<String>", into = "Vec<String>")]
pub struct SeatSelection(Vec<SeatCode>);

impl TryFrom<Vec<String>> for SeatSelection {
    type Error = SelectionError;

    fn try_from(codes: Vec<String>) -> Result<Self, Self::Error> {
        Self::parse(&codes)
    }
}

impl From<SeatSelection> for Vec<String> {
    fn from(selection: SeatSelection) -> Vec<String> {
        selection.codes()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SelectionError {
    #[error("choose at least one seat")]
    Empty,
    #[error("at most {MAX_SEATS_PER_HOLD} seats can be held at once, {0} were requested")]
    TooMany(usize),
    #[error("seat {0} is listed more than once")]
    Duplicate(String),
    #[error(transparent)]
    InvalidCode(#[from] SeatCodeError),
}

impl SeatSelection {
    pub fn parse<S: AsRef<str>>(codes: &[S]) -> Result<Self, SelectionError> {
        if codes.is_empty() {
            return Err(SelectionError::Empty);
        }
        if codes.len() > MAX_SEATS_PER_HOLD {
            return Err(SelectionError::TooMany(codes.len()));
        }
        let mut seats = codes
            .iter()
            .map(|c| SeatCode::parse(c.as_ref()))
            .collect::<Result<Vec<_>, _>>()?;
        seats.sort_unstable();
        if let Some(pair) = seats.windows(2).find(|w| w[0] == w[1]) {
            return Err(SelectionError::Duplicate(pair[0].to_string()));
        }
        Ok(Self(seats))
    }

    pub fn seats(&self) -> &[SeatCode] {
        &self.0
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn codes(&self) -> Vec<String> {
        self.0.iter().map(|c| c.to_string()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_selection_is_sorted() {
        let sel = SeatSelection::parse(&["F6", "F5"]).unwrap();
        assert_eq!(sel.codes(), ["F5", "F6"]);
    }

    #[test]
    fn an_empty_selection_is_rejected() {
        assert_eq!(
            SeatSelection::parse::<&str>(&[]),
            Err(SelectionError::Empty)
        );
    }

    #[test]
    fn nine_seats_are_rejected_and_eight_accepted() {
        let nine: Vec<String> = (1..=9).map(|n| format!("A{n}")).collect();
        assert_eq!(SeatSelection::parse(&nine), Err(SelectionError::TooMany(9)));
        assert_eq!(SeatSelection::parse(&nine[..8]).unwrap().len(), 8);
    }

    #[test]
    fn the_same_seat_twice_is_rejected_even_in_another_case() {
        assert_eq!(
            SeatSelection::parse(&["F5", "f5"]),
            Err(SelectionError::Duplicate("F5".into()))
        );
    }

    #[test]
    fn one_invalid_code_rejects_the_whole_selection() {
        assert!(matches!(
            SeatSelection::parse(&["F5", "F05"]),
            Err(SelectionError::InvalidCode(_))
        ));
    }

    #[test]
    fn json_cannot_carry_an_unchecked_selection() {
        let read = |text: &str| serde_json::from_str::<SeatSelection>(text);
        assert_eq!(
            read(r#"["F6","F5"]"#).unwrap(),
            SeatSelection::parse(&["F5", "F6"]).unwrap()
        );
        for bad in [
            r#"[]"#,
            r#"["F5","F5"]"#,
            r#"["5F"]"#,
            r#"["A1","A2","A3","A4","A5","A6","A7","A8","A9"]"#,
        ] {
            assert!(read(bad).is_err(), "{bad}");
        }
        let written = serde_json::to_string(&SeatSelection::parse(&["F6", "F5"]).unwrap()).unwrap();
        assert_eq!(written, r#"["F5","F6"]"#);
    }
}

/// A request for the best `count` seats (of `category`, if named): the server picks them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct BestAvailable {
    pub count: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
}

impl BestAvailable {
    /// The request, unless its count is outside 1 to [`MAX_SEATS_PER_HOLD`].
    pub fn check(self) -> Result<Self, SelectionError> {
        match self.count {
            0 => Err(SelectionError::Empty),
            n if n > MAX_SEATS_PER_HOLD => Err(SelectionError::TooMany(n)),
            _ => Ok(self),
        }
    }
}
