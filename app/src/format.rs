//! Formatting for display, shared by server rendering and the browser.

use chrono::{DateTime, FixedOffset, Utc};

/// Venue time: the demo cinemas are in Korea (UTC+9, no daylight saving).
pub fn venue_time(at: DateTime<Utc>) -> DateTime<FixedOffset> {
    at.with_timezone(&FixedOffset::east_opt(9 * 3600).expect("valid offset"))
}

/// Whole won with thousands separators: `12,000원`.
pub fn krw(amount: i64) -> String {
    let digits = amount.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    let sign = if amount < 0 { "-" } else { "" };
    format!("{sign}{out}원")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn won_amounts_get_thousands_separators() {
        assert_eq!(krw(0), "0원");
        assert_eq!(krw(900), "900원");
        assert_eq!(krw(12_000), "12,000원");
        assert_eq!(krw(1_234_567), "1,234,567원");
        assert_eq!(krw(-15_000), "-15,000원");
    }
}
