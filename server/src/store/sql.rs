//! Column types that encode themselves in each dialect, so the statements of both stores bind and
//! read the same Rust types and no call converts by hand:
//! - [`At`]: a point in time — `timestamptz` in PostgreSQL, milliseconds since the Unix epoch
//!   (`INTEGER`) in SQLite;
//! - [`Moment`], [`Span`]: "now" and a length of time in a statement, so that arithmetic on
//!   times reads the same in both;
//! - [`List`]: values in one column — an array in PostgreSQL, a JSON array (`TEXT`) in SQLite:
//!   [`SeatList`] (seat codes, parsed again when read), [`Ids`] (row ids), [`Names`];
//! - [`BookingStatus`], [`PaymentStatus`]: the status columns, as their
//!   names in text.

use app::domain::SeatCode;
use chrono::{DateTime, Utc};
use sqlx::encode::IsNull;
use sqlx::error::BoxDynError;
use sqlx::{Database, Decode, Encode, Postgres, Sqlite, Type};

/// A point in time as the store keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct At(pub DateTime<Utc>);

impl At {
    /// The time a statement runs at in SQLite, which has no server clock: the injected one, or
    /// this process's.
    pub fn or_now(now: Option<DateTime<Utc>>) -> Self {
        Self::millis(now.unwrap_or_else(Utc::now))
    }

    /// `duration` later (saturating), to the millisecond.
    pub fn after(self, duration: std::time::Duration) -> Self {
        let duration = chrono::Duration::from_std(duration).unwrap_or(chrono::Duration::MAX);
        Self::millis(
            self.0
                .checked_add_signed(duration)
                .unwrap_or(DateTime::<Utc>::MAX_UTC),
        )
    }

    /// Truncated to the millisecond, the precision SQLite keeps: what a statement binds is what
    /// the caller is told.
    fn millis(t: DateTime<Utc>) -> Self {
        Self(DateTime::from_timestamp_millis(t.timestamp_millis()).unwrap_or(t))
    }
}

impl From<At> for DateTime<Utc> {
    fn from(at: At) -> Self {
        at.0
    }
}

impl Type<Sqlite> for At {
    fn type_info() -> <Sqlite as Database>::TypeInfo {
        <i64 as Type<Sqlite>>::type_info()
    }

    fn compatible(ty: &<Sqlite as Database>::TypeInfo) -> bool {
        <i64 as Type<Sqlite>>::compatible(ty)
    }
}

impl<'q> Encode<'q, Sqlite> for At {
    fn encode_by_ref(
        &self,
        buf: &mut <Sqlite as Database>::ArgumentBuffer<'q>,
    ) -> Result<IsNull, BoxDynError> {
        <i64 as Encode<Sqlite>>::encode(self.0.timestamp_millis(), buf)
    }
}

impl<'r> Decode<'r, Sqlite> for At {
    fn decode(value: <Sqlite as Database>::ValueRef<'r>) -> Result<Self, BoxDynError> {
        let ms = <i64 as Decode<Sqlite>>::decode(value)?;
        DateTime::from_timestamp_millis(ms)
            .map(At)
            .ok_or_else(|| format!("bad timestamp {ms}").into())
    }
}

impl Type<Postgres> for At {
    fn type_info() -> <Postgres as Database>::TypeInfo {
        <DateTime<Utc> as Type<Postgres>>::type_info()
    }
}

impl<'q> Encode<'q, Postgres> for At {
    fn encode_by_ref(
        &self,
        buf: &mut <Postgres as Database>::ArgumentBuffer<'q>,
    ) -> Result<IsNull, BoxDynError> {
        <DateTime<Utc> as Encode<Postgres>>::encode_by_ref(&self.0, buf)
    }
}

impl<'r> Decode<'r, Postgres> for At {
    fn decode(value: <Postgres as Database>::ValueRef<'r>) -> Result<Self, BoxDynError> {
        <DateTime<Utc> as Decode<Postgres>>::decode(value).map(Self)
    }
}

/// The time a statement runs at, written `coalesce($n, current_timestamp)` in the same text for
/// both dialects. PostgreSQL is sent the injected time, or null for its own clock; SQLite, which
/// keeps times as milliseconds and has no server clock, is always sent a time (the injected one
/// or this process's, as [`At::or_now`]), so its `current_timestamp` is never read.
#[derive(Debug, Clone, Copy)]
pub struct Moment(pub Option<DateTime<Utc>>);

impl Type<Postgres> for Moment {
    fn type_info() -> <Postgres as Database>::TypeInfo {
        <DateTime<Utc> as Type<Postgres>>::type_info()
    }
}

impl<'q> Encode<'q, Postgres> for Moment {
    fn encode_by_ref(
        &self,
        buf: &mut <Postgres as Database>::ArgumentBuffer<'q>,
    ) -> Result<IsNull, BoxDynError> {
        <Option<DateTime<Utc>> as Encode<Postgres>>::encode_by_ref(&self.0, buf)
    }
}

impl Type<Sqlite> for Moment {
    fn type_info() -> <Sqlite as Database>::TypeInfo {
        <At as Type<Sqlite>>::type_info()
    }
}

impl<'q> Encode<'q, Sqlite> for Moment {
    fn encode_by_ref(
        &self,
        buf: &mut <Sqlite as Database>::ArgumentBuffer<'q>,
    ) -> Result<IsNull, BoxDynError> {
        <At as Encode<Sqlite>>::encode(At::or_now(self.0), buf)
    }
}

/// A length of time: an `interval` in PostgreSQL, milliseconds in SQLite (whose times are
/// milliseconds), so `created_at < coalesce($1, current_timestamp) - $2` reads the same in both.
#[derive(Debug, Clone, Copy)]
pub struct Span(pub chrono::Duration);

impl From<std::time::Duration> for Span {
    /// To the microsecond (PostgreSQL's `interval`), saturating.
    fn from(duration: std::time::Duration) -> Self {
        let micros = i64::try_from(duration.as_micros()).unwrap_or(i64::MAX);
        Self(chrono::Duration::microseconds(micros))
    }
}

impl Type<Postgres> for Span {
    fn type_info() -> <Postgres as Database>::TypeInfo {
        <chrono::Duration as Type<Postgres>>::type_info()
    }
}

impl<'q> Encode<'q, Postgres> for Span {
    fn encode_by_ref(
        &self,
        buf: &mut <Postgres as Database>::ArgumentBuffer<'q>,
    ) -> Result<IsNull, BoxDynError> {
        // `interval` keeps microseconds: anything finer would be refused, not rounded; sqlx
        // refuses a length past i64::MAX nanoseconds (292 years): the longest is that.
        const LONGEST: i64 = i64::MAX / 1_000;
        let micros = self.0.num_microseconds().unwrap_or(LONGEST).min(LONGEST);
        <chrono::Duration as Encode<Postgres>>::encode(chrono::Duration::microseconds(micros), buf)
    }
}

impl Type<Sqlite> for Span {
    fn type_info() -> <Sqlite as Database>::TypeInfo {
        <i64 as Type<Sqlite>>::type_info()
    }
}

impl<'q> Encode<'q, Sqlite> for Span {
    fn encode_by_ref(
        &self,
        buf: &mut <Sqlite as Database>::ArgumentBuffer<'q>,
    ) -> Result<IsNull, BoxDynError> {
        <i64 as Encode<Sqlite>>::encode(self.0.num_milliseconds(), buf)
    }
}

/// Values in one column or parameter: an array in PostgreSQL (`text[]`, `bigint[]`), a JSON
/// array (`TEXT`) in SQLite.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct List<T>(pub Vec<T>);

/// Seat codes: a booking's seats, the seats of a statement.
pub type SeatList = List<SeatCode>;
/// Row ids.
pub type Ids = List<i64>;
/// Names, such as the event types a claim takes.
pub type Names = List<String>;

impl<T> Type<Sqlite> for List<T> {
    fn type_info() -> <Sqlite as Database>::TypeInfo {
        <String as Type<Sqlite>>::type_info()
    }

    fn compatible(ty: &<Sqlite as Database>::TypeInfo) -> bool {
        <String as Type<Sqlite>>::compatible(ty)
    }
}

impl<'q, T: serde::Serialize> Encode<'q, Sqlite> for List<T> {
    fn encode_by_ref(
        &self,
        buf: &mut <Sqlite as Database>::ArgumentBuffer<'q>,
    ) -> Result<IsNull, BoxDynError> {
        <String as Encode<Sqlite>>::encode(serde_json::to_string(&self.0)?, buf)
    }
}

impl<'r, T: serde::de::DeserializeOwned> Decode<'r, Sqlite> for List<T> {
    fn decode(value: <Sqlite as Database>::ValueRef<'r>) -> Result<Self, BoxDynError> {
        let text = <&str as Decode<Sqlite>>::decode(value)?;
        Ok(Self(serde_json::from_str(text)?))
    }
}

/// What a list's item is in a PostgreSQL array: a seat code is `text`, parsed again when read.
pub trait ArrayItem: Sized {
    type Element;
    fn element(&self) -> Self::Element;
    fn from_element(element: Self::Element) -> Result<Self, BoxDynError>;
}

impl ArrayItem for i64 {
    type Element = i64;
    fn element(&self) -> i64 {
        *self
    }
    fn from_element(element: i64) -> Result<Self, BoxDynError> {
        Ok(element)
    }
}

impl ArrayItem for String {
    type Element = String;
    fn element(&self) -> String {
        self.clone()
    }
    fn from_element(element: String) -> Result<Self, BoxDynError> {
        Ok(element)
    }
}

impl ArrayItem for SeatCode {
    type Element = String;
    fn element(&self) -> String {
        self.as_str().to_string()
    }
    fn from_element(element: String) -> Result<Self, BoxDynError> {
        Ok(SeatCode::try_from(element)?)
    }
}

impl<T: ArrayItem> Type<Postgres> for List<T>
where
    Vec<T::Element>: Type<Postgres>,
{
    fn type_info() -> <Postgres as Database>::TypeInfo {
        <Vec<T::Element> as Type<Postgres>>::type_info()
    }

    fn compatible(ty: &<Postgres as Database>::TypeInfo) -> bool {
        <Vec<T::Element> as Type<Postgres>>::compatible(ty)
    }
}

impl<'q, T: ArrayItem> Encode<'q, Postgres> for List<T>
where
    Vec<T::Element>: Encode<'q, Postgres>,
{
    fn encode_by_ref(
        &self,
        buf: &mut <Postgres as Database>::ArgumentBuffer<'q>,
    ) -> Result<IsNull, BoxDynError> {
        let elements: Vec<T::Element> = self.0.iter().map(T::element).collect();
        elements.encode_by_ref(buf)
    }
}

impl<'r, T: ArrayItem> Decode<'r, Postgres> for List<T>
where
    Vec<T::Element>: Decode<'r, Postgres>,
{
    fn decode(value: <Postgres as Database>::ValueRef<'r>) -> Result<Self, BoxDynError> {
        let elements = <Vec<T::Element> as Decode<Postgres>>::decode(value)?;
        let items: Result<Vec<T>, _> = elements.into_iter().map(T::from_element).collect();
        Ok(Self(items?))
    }
}

impl SeatList {
    /// The codes as text, for a message or an error.
    pub fn texts(&self) -> Vec<String> {
        seat_texts(&self.0)
    }
}

/// Seat codes as text: what events, answers and messages carry.
pub fn seat_texts(codes: &[SeatCode]) -> Vec<String> {
    codes.iter().map(SeatCode::to_string).collect()
}

/// A status column read and written as its name, in both dialects.
macro_rules! text_enum {
    ($(#[$doc:meta])* $name:ident { $($variant:ident = $text:literal),* $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $($variant),*
        }

        impl $name {
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $text),*
                }
            }

            pub fn parse(text: &str) -> Option<Self> {
                match text.trim() {
                    $($text => Some(Self::$variant),)*
                    _ => None,
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        text_enum!(@db $name, Sqlite);
        text_enum!(@db $name, Postgres);
    };
    (@db $name:ident, $db:ident) => {
        impl Type<$db> for $name {
            fn type_info() -> <$db as Database>::TypeInfo {
                <&str as Type<$db>>::type_info()
            }

            fn compatible(ty: &<$db as Database>::TypeInfo) -> bool {
                <&str as Type<$db>>::compatible(ty)
            }
        }

        impl<'q> Encode<'q, $db> for $name {
            fn encode_by_ref(
                &self,
                buf: &mut <$db as Database>::ArgumentBuffer<'q>,
            ) -> Result<IsNull, BoxDynError> {
                <&str as Encode<$db>>::encode(self.as_str(), buf)
            }
        }

        impl<'r> Decode<'r, $db> for $name {
            fn decode(value: <$db as Database>::ValueRef<'r>) -> Result<Self, BoxDynError> {
                let text = <&str as Decode<$db>>::decode(value)?;
                Self::parse(text).ok_or_else(|| {
                    format!("unknown {} {text:?}", stringify!($name)).into()
                })
            }
        }
    };
}

text_enum!(
    /// Where a booking stands: waiting for its payment, confirmed, or failed (refunded when
    /// money was taken).
    BookingStatus {
        Pending = "PENDING",
        Confirmed = "CONFIRMED",
        Failed = "FAILED",
    }
);

text_enum!(
    /// Where a payment stands at the gateway.
    PaymentStatus {
        Pending = "PENDING",
        Paid = "PAID",
        Declined = "DECLINED",
        Expired = "EXPIRED",
        Refunded = "REFUNDED",
    }
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_instant_is_kept_to_the_millisecond_and_a_long_duration_saturates() {
        let t = DateTime::parse_from_rfc3339("2026-11-30T10:00:00.123456789Z")
            .unwrap()
            .with_timezone(&Utc);
        let at = At::or_now(Some(t));
        assert_eq!(at.0.to_rfc3339(), "2026-11-30T10:00:00.123+00:00");
        let later = at.after(std::time::Duration::from_micros(600_000_700));
        assert_eq!(later.0.to_rfc3339(), "2026-11-30T10:10:00.123+00:00");
        let far = at.after(std::time::Duration::MAX).0;
        assert!(far > DateTime::<Utc>::MAX_UTC - chrono::Duration::milliseconds(1));
    }

    #[test]
    fn a_length_of_time_encodes_in_postgres_however_long_or_fine() {
        for span in [
            Span::from(std::time::Duration::MAX),
            Span(chrono::Duration::days(200_000)),
            Span(chrono::Duration::nanoseconds(1_500)),
        ] {
            let mut buf = <Postgres as Database>::ArgumentBuffer::default();
            assert!(
                <Span as Encode<Postgres>>::encode_by_ref(&span, &mut buf).is_ok(),
                "{span:?}"
            );
        }
    }

    #[test]
    fn statuses_read_back_what_they_write() {
        for s in [
            BookingStatus::Pending,
            BookingStatus::Confirmed,
            BookingStatus::Failed,
        ] {
            assert_eq!(BookingStatus::parse(s.as_str()), Some(s));
        }
        assert_eq!(
            PaymentStatus::parse("REFUNDED"),
            Some(PaymentStatus::Refunded)
        );
        assert_eq!(PaymentStatus::parse("paid"), None);
    }
}
