//! Money: whole Korean won, the only currency the product sells in.

use serde::{Deserialize, Serialize};
use std::iter::Sum;
use std::ops::{Add, AddAssign, Mul, Neg, Sub};

/// An amount in whole won (the won has no minor unit). On the wire, in the database and in logs
/// it is the bare integer, so `12000` is ₩12,000; formatting for people is `format::price`. The
/// OpenAPI description says `integer` where a field holds one (`schema(value_type = i64)`).
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
#[cfg_attr(feature = "ssr", derive(sqlx::Type), sqlx(transparent))]
pub struct Won(i64);

impl Won {
    pub const ZERO: Won = Won(0);

    pub const fn new(won: i64) -> Self {
        Self(won)
    }

    /// The amount as an integer (for a gateway's form or a count's arithmetic).
    pub const fn get(self) -> i64 {
        self.0
    }

    /// `1`, `0` or `-1`.
    pub const fn signum(self) -> i64 {
        self.0.signum()
    }

    /// An amount typed by a person: digits, no separators (`12000`); `None` otherwise.
    pub fn parse(text: &str) -> Option<Self> {
        text.trim().parse().ok().map(Self)
    }
}

/// The bare integer, as on the wire (`12000`): for logs and audit lines. People read
/// `format::price`.
impl std::fmt::Display for Won {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::fmt::Debug for Won {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl Add for Won {
    type Output = Won;
    fn add(self, other: Won) -> Won {
        Won(self.0 + other.0)
    }
}

impl Sub for Won {
    type Output = Won;
    fn sub(self, other: Won) -> Won {
        Won(self.0 - other.0)
    }
}

impl AddAssign for Won {
    fn add_assign(&mut self, other: Won) {
        self.0 += other.0;
    }
}

impl Neg for Won {
    type Output = Won;
    fn neg(self) -> Won {
        Won(-self.0)
    }
}

/// A price times a number of seats.
impl Mul<i64> for Won {
    type Output = Won;
    fn mul(self, count: i64) -> Won {
        Won(self.0 * count)
    }
}

impl Sum for Won {
    fn sum<I: Iterator<Item = Won>>(iter: I) -> Won {
        Won(iter.map(|w| w.0).sum())
    }
}

impl<'a> Sum<&'a Won> for Won {
    fn sum<I: Iterator<Item = &'a Won>>(iter: I) -> Won {
        iter.copied().sum()
    }
}

#[cfg(test)]
mod tests {
    use super::Won;

    #[test]
    fn amounts_add_subtract_and_multiply_as_integers() {
        let price = Won::new(12_000);
        assert_eq!(price * 3 - Won::new(1_000), Won::new(35_000));
        assert_eq!([price, price].iter().sum::<Won>(), Won::new(24_000));
        assert_eq!(-price, Won::new(-12_000));
    }

    #[test]
    fn the_wire_form_is_the_bare_integer() {
        assert_eq!(serde_json::to_string(&Won::new(24_000)).unwrap(), "24000");
        assert_eq!(
            serde_json::from_str::<Won>("9000").unwrap(),
            Won::new(9_000)
        );
        assert!(serde_json::from_str::<Won>("\"9000\"").is_err());
    }

    #[test]
    fn typed_amounts_are_digits_only() {
        assert_eq!(Won::parse(" 50000 "), Some(Won::new(50_000)));
        assert_eq!(Won::parse("50,000"), None);
        assert_eq!(Won::parse(""), None);
    }
}
