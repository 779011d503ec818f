//! Formatting for display, shared by server rendering and the browser, in both languages.

use crate::domain::Won;
use crate::i18n::Lang;
use chrono::{DateTime, Datelike, FixedOffset, NaiveDate, Timelike, Utc, Weekday};

/// The venue's offset from UTC in seconds: a setting of the venue (`VENUE_UTC_OFFSET`; UTC+9,
/// Korea, by default). One venue per server: the server sets it at its start, the browser from
/// the page (`<meta name="venue-utc-offset">`) before hydrating.
static VENUE_OFFSET: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(9 * 3600);

/// The venue's offset (fixed: a venue's time zone without daylight saving).
pub fn venue_offset() -> FixedOffset {
    FixedOffset::east_opt(VENUE_OFFSET.load(std::sync::atomic::Ordering::Relaxed))
        .unwrap_or_else(|| FixedOffset::east_opt(0).expect("UTC"))
}

/// Sets the venue's offset; `false` (and nothing changes) for one that is not `±HH:MM` within
/// ±14 hours.
pub fn set_venue_offset(text: &str) -> bool {
    match parse_offset(text) {
        Some(seconds) => {
            VENUE_OFFSET.store(seconds, std::sync::atomic::Ordering::Relaxed);
            true
        }
        None => false,
    }
}

/// `+09:00` → 32400; `-05:30` → -19800.
pub fn parse_offset(text: &str) -> Option<i32> {
    let b = text.trim().as_bytes();
    if b.len() != 6 || b[3] != b':' || !b[1..3].iter().chain(&b[4..6]).all(u8::is_ascii_digit) {
        return None;
    }
    let sign = match b[0] {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let (hours, minutes) = (
        i32::from(b[1] - b'0') * 10 + i32::from(b[2] - b'0'),
        i32::from(b[4] - b'0') * 10 + i32::from(b[5] - b'0'),
    );
    (hours <= 14 && minutes < 60 && (hours, minutes) <= (14, 0))
        .then_some(sign * (hours * 3600 + minutes * 60))
}

/// The venue's offset as `±HH:MM` (what the console's local times are read in).
pub fn venue_offset_text() -> String {
    let seconds = venue_offset().local_minus_utc();
    let sign = if seconds < 0 { '-' } else { '+' };
    let seconds = seconds.abs();
    format!("{sign}{:02}:{:02}", seconds / 3600, seconds % 3600 / 60)
}

/// Venue time: `at` at the venue's offset.
pub fn venue_time(at: DateTime<Utc>) -> DateTime<FixedOffset> {
    at.with_timezone(&venue_offset())
}

/// Now: the server's clock while it renders, the browser's after.
pub fn now() -> DateTime<Utc> {
    #[cfg(feature = "ssr")]
    let now = Utc::now();
    #[cfg(not(feature = "ssr"))]
    let now = DateTime::from_timestamp_millis(js_sys::Date::now() as i64).unwrap_or_default();
    now
}

/// Digits with thousands separators: `12,000`.
pub fn thousands(amount: i64) -> String {
    let digits = amount.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    let sign = if amount < 0 { "-" } else { "" };
    format!("{sign}{out}")
}

/// `10:30`. Formatted by hand: chrono's strftime machinery would add to the browser bundle.
pub fn clock_time(at: DateTime<Utc>) -> String {
    let t = venue_time(at);
    format!("{:02}:{:02}", t.hour(), t.minute())
}

/// Whole won with thousands separators: `12,000원`.
pub fn krw(amount: Won) -> String {
    format!("{}원", thousands(amount.get()))
}

/// A price as shown: `₩12,000` in English, `12,000원` in Korean.
pub fn price(lang: Lang, amount: Won) -> String {
    match lang {
        Lang::En => format!("₩{}", thousands(amount.get())),
        Lang::Ko => krw(amount),
    }
}

/// `+₩1,000`, `−₩1,000`, `₩0`.
pub fn signed_price(lang: Lang, amount: Won) -> String {
    match amount.signum() {
        1 => format!("+{}", price(lang, amount)),
        -1 => format!("−{}", price(lang, -amount)),
        _ => price(lang, Won::ZERO),
    }
}

fn weekday(lang: Lang, d: Weekday, long: bool) -> &'static str {
    const EN: [&str; 7] = [
        "Monday",
        "Tuesday",
        "Wednesday",
        "Thursday",
        "Friday",
        "Saturday",
        "Sunday",
    ];
    const KO: [&str; 7] = ["월", "화", "수", "목", "금", "토", "일"];
    let i = d.num_days_from_monday() as usize;
    match (lang, long) {
        (Lang::En, true) => EN[i],
        (Lang::En, false) => &EN[i][..3],
        (Lang::Ko, _) => KO[i],
    }
}

fn month_en(m: u32) -> &'static str {
    [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ][(m - 1) as usize]
}

/// A day heading: `Tuesday 1 December` / `12월 1일 화요일`.
pub fn day_heading(lang: Lang, d: NaiveDate) -> String {
    match lang {
        Lang::En => format!(
            "{} {} {}",
            weekday(lang, d.weekday(), true),
            d.day(),
            month_en(d.month())
        ),
        Lang::Ko => format!(
            "{}월 {}일 {}요일",
            d.month(),
            d.day(),
            weekday(lang, d.weekday(), true)
        ),
    }
}

/// A showtime's date and time: `Tue 1 Dec, 10:30` / `12월 1일 (화) 10:30`.
pub fn showtime_when(lang: Lang, at: DateTime<Utc>) -> String {
    let t = venue_time(at);
    match lang {
        Lang::En => format!(
            "{} {} {}, {}",
            weekday(lang, t.weekday(), false),
            t.day(),
            &month_en(t.month())[..3],
            clock_time(at)
        ),
        Lang::Ko => format!(
            "{}월 {}일 ({}) {}",
            t.month(),
            t.day(),
            weekday(lang, t.weekday(), false),
            clock_time(at)
        ),
    }
}

/// A moment with its year, as a receipt says it: `3 Dec 2026, 17:42` / `2026년 12월 3일 17:42`.
pub fn date_time(lang: Lang, at: DateTime<Utc>) -> String {
    let t = venue_time(at);
    match lang {
        Lang::En => format!(
            "{} {} {}, {}",
            t.day(),
            &month_en(t.month())[..3],
            t.year(),
            clock_time(at)
        ),
        Lang::Ko => format!(
            "{}년 {}월 {}일 {}",
            t.year(),
            t.month(),
            t.day(),
            clock_time(at)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn venue_offsets_are_read_as_plus_or_minus_hours_and_minutes() {
        assert_eq!(parse_offset("+09:00"), Some(9 * 3600));
        assert_eq!(parse_offset("-05:30"), Some(-(5 * 3600 + 30 * 60)));
        assert_eq!(parse_offset("+00:00"), Some(0));
        assert_eq!(parse_offset("+14:00"), Some(14 * 3600));
        for bad in [
            "09:00",
            "+9:00",
            "+14:30",
            "+15:00",
            "+09:60",
            "UTC+9",
            "",
            "+09:00:00",
        ] {
            assert_eq!(parse_offset(bad), None, "{bad:?}");
        }
        // Not changed by any test: the default, Korea.
        assert_eq!(venue_offset_text(), "+09:00");
    }

    #[test]
    fn won_amounts_get_thousands_separators() {
        assert_eq!(krw(Won::new(0)), "0원");
        assert_eq!(krw(Won::new(900)), "900원");
        assert_eq!(krw(Won::new(12_000)), "12,000원");
        assert_eq!(krw(Won::new(1_234_567)), "1,234,567원");
        assert_eq!(krw(Won::new(-15_000)), "-15,000원");
        assert_eq!(price(Lang::En, Won::new(27_000)), "₩27,000");
        assert_eq!(price(Lang::Ko, Won::new(27_000)), "27,000원");
    }

    #[test]
    fn showtimes_are_shown_in_venue_time_in_each_language() {
        let at = Utc.with_ymd_and_hms(2026, 12, 1, 1, 30, 0).unwrap(); // 10:30 in Seoul
        assert_eq!(showtime_when(Lang::En, at), "Tue 1 Dec, 10:30");
        assert_eq!(showtime_when(Lang::Ko, at), "12월 1일 (화) 10:30");
        let day = venue_time(at).date_naive();
        assert_eq!(day_heading(Lang::En, day), "Tuesday 1 December");
        assert_eq!(day_heading(Lang::Ko, day), "12월 1일 화요일");
        assert_eq!(date_time(Lang::En, at), "1 Dec 2026, 10:30");
        assert_eq!(date_time(Lang::Ko, at), "2026년 12월 1일 10:30");
    }
}
