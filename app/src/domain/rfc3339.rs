//! Reading RFC 3339 timestamps (`2026-11-30T03:00:00.123Z`, `…+09:00`) without chrono's general
//! format parser, which is a sizeable part of the browser bundle. Writing still uses chrono.

use chrono::{DateTime, FixedOffset, NaiveDate, TimeZone, Utc};
use serde::{Deserialize, Deserializer};

/// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`.
pub fn parse(s: &str) -> Option<DateTime<Utc>> {
    let b = s.as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<u32> {
        let part = s.get(r)?;
        part.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| part.parse().ok())?
    };
    if b.len() < 20
        || b[4] != b'-'
        || b[7] != b'-'
        || !matches!(b[10], b'T' | b't' | b' ')
        || b[13] != b':'
        || b[16] != b':'
    {
        return None;
    }
    let date = NaiveDate::from_ymd_opt(num(0..4)? as i32, num(5..7)?, num(8..10)?)?;
    let mut i = 19;
    let mut nanos = 0u32;
    if b[i] == b'.' {
        let start = i + 1;
        i = start;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        let digits = s.get(start..i.min(start + 9))?;
        if digits.is_empty() {
            return None;
        }
        nanos = digits.parse::<u32>().ok()? * 10u32.pow(9 - digits.len() as u32);
    }
    let offset_secs = match s.get(i..)? {
        "Z" | "z" => 0,
        rest if rest.len() == 6
            && matches!(rest.as_bytes()[0], b'+' | b'-')
            && rest.as_bytes()[3] == b':' =>
        {
            let secs = (num(i + 1..i + 3)? * 3600 + num(i + 4..i + 6)? * 60) as i32;
            if rest.starts_with('-') {
                -secs
            } else {
                secs
            }
        }
        _ => return None,
    };
    let local = date.and_hms_nano_opt(num(11..13)?, num(14..16)?, num(17..19)?, nanos)?;
    let offset = FixedOffset::east_opt(offset_secs)?;
    Some(
        offset
            .from_local_datetime(&local)
            .single()?
            .with_timezone(&Utc),
    )
}

/// `#[serde(deserialize_with = "rfc3339::deserialize")]` for `DateTime<Utc>` fields.
pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<DateTime<Utc>, D::Error> {
    let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
    parse(&s).ok_or_else(|| serde::de::Error::custom(format!("not an RFC 3339 timestamp: {s:?}")))
}

/// The same for `Option<DateTime<Utc>>` fields (`null` is `None`); with `#[serde(default)]`.
pub fn deserialize_option<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<DateTime<Utc>>, D::Error> {
    match <Option<std::borrow::Cow<'de, str>>>::deserialize(d)? {
        None => Ok(None),
        Some(s) => parse(&s)
            .map(Some)
            .ok_or_else(|| serde::de::Error::custom(format!("not an RFC 3339 timestamp: {s:?}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_chrono_writes_is_read_back_exactly() {
        for text in [
            "2026-11-30T03:00:00Z",
            "2026-11-30T03:00:00.123456789Z",
            "2026-02-28T23:59:59.5+09:00",
        ] {
            let chrono_reads = DateTime::parse_from_rfc3339(text)
                .unwrap()
                .with_timezone(&Utc);
            assert_eq!(parse(text), Some(chrono_reads), "{text}");
        }
        let now = Utc::now();
        assert_eq!(
            parse(serde_json::to_value(now).unwrap().as_str().unwrap()),
            Some(now)
        );
    }

    #[test]
    fn malformed_timestamps_are_refused() {
        for text in [
            "",
            "2026-11-30",
            "2026-13-01T00:00:00Z",
            "2026-11-30T25:00:00Z",
            "2026-11-30T03:00:00",
            "2026-11-30T03:00:00.Z",
            "2026-11-30T03:00:00+9:00",
            "2026-11-30T03:0a:00Z",
        ] {
            assert_eq!(parse(text), None, "{text:?}");
        }
    }
}
