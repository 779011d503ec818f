//! A seat code such as `F5`: a row of one or two letters and a seat number.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A valid seat code: one or two row letters `A`–`Z` followed by a seat number 1–999 without a
/// leading zero. Lowercase input is accepted and stored uppercase, so `f5` and `F5` are the same
/// seat. At most 5 characters, well inside the 8 the schema allows.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct SeatCode(String);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SeatCodeError {
    #[error("seat code {0:?} is not a row letter followed by a seat number, e.g. \"F5\"")]
    Malformed(String),
}

impl AsRef<str> for SeatCode {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl SeatCode {
    pub fn parse(input: &str) -> Result<Self, SeatCodeError> {
        let malformed = || SeatCodeError::Malformed(input.chars().take(16).collect());
        let upper = input.to_ascii_uppercase();
        let letters = upper.bytes().take_while(u8::is_ascii_uppercase).count();
        let (row, number) = upper.split_at(letters);
        let number_ok = (1..=3).contains(&number.len())
            && number.bytes().all(|b| b.is_ascii_digit())
            && !number.starts_with('0');
        if !(1..=2).contains(&letters) || !number_ok || !row.is_ascii() {
            return Err(malformed());
        }
        Ok(Self(upper))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The row part, e.g. `F` of `F5`.
    pub fn row(&self) -> &str {
        let letters = self.0.bytes().take_while(u8::is_ascii_uppercase).count();
        &self.0[..letters]
    }

    /// The seat number within the row, e.g. `5` of `F5`.
    pub fn number(&self) -> u16 {
        let letters = self.row().len();
        self.0[letters..].parse().expect("checked by parse")
    }
}

impl TryFrom<String> for SeatCode {
    type Error = SeatCodeError;
    fn try_from(value: String) -> Result<Self, Self::Error> {
        Self::parse(&value)
    }
}

impl From<SeatCode> for String {
    fn from(code: SeatCode) -> Self {
        code.0
    }
}

impl fmt::Display for SeatCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_letter_and_a_number_is_a_seat_code() {
        let code = SeatCode::parse("F5").unwrap();
        assert_eq!(code.as_str(), "F5");
        assert_eq!(code.row(), "F");
        assert_eq!(code.number(), 5);
    }

    #[test]
    fn two_row_letters_and_three_digits_are_accepted() {
        let code = SeatCode::parse("AA120").unwrap();
        assert_eq!(code.row(), "AA");
        assert_eq!(code.number(), 120);
    }

    #[test]
    fn lowercase_is_normalised_to_uppercase() {
        assert_eq!(
            SeatCode::parse("f5").unwrap(),
            SeatCode::parse("F5").unwrap()
        );
    }

    #[test]
    fn malformed_codes_are_rejected() {
        for bad in [
            "", "F", "5", "F0", "F05", "F1234", "ABC1", "F-5", " F5", "F5 ", "Ｆ5", "F5A", "É5",
        ] {
            assert!(SeatCode::parse(bad).is_err(), "{bad:?} should be rejected");
        }
    }

    #[test]
    fn a_seat_code_longer_than_five_chars_is_rejected() {
        assert!(SeatCode::parse("AB1234").is_err());
    }

    #[test]
    fn deserialising_checks_the_code() {
        assert!(serde_json::from_str::<SeatCode>("\"F5\"").is_ok());
        assert!(serde_json::from_str::<SeatCode>("\"F05\"").is_err());
    }

    #[test]
    fn codes_sort_by_their_text_which_is_the_lock_order() {
        let mut codes: Vec<_> = ["F6", "F10", "A1"]
            .iter()
            .map(|c| SeatCode::parse(c).unwrap())
            .collect();
        codes.sort();
        let sorted: Vec<_> = codes.iter().map(SeatCode::as_str).collect();
        assert_eq!(sorted, ["A1", "F10", "F6"]);
    }
}
