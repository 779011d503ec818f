//! Sales figures: what was sold per showtime, day and channel.

use crate::domain::{ShowtimeId, Won};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// Where a sale was made: online (the web and the API), at the box office, or given away
/// (complimentary, counted apart).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub enum SalesChannel {
    #[default]
    Online,
    BoxOffice,
    Complimentary,
}

impl SalesChannel {
    pub const ALL: [Self; 3] = [Self::Online, Self::BoxOffice, Self::Complimentary];

    /// The name stored and sent (`online`, `box_office`, `complimentary`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Online => "online",
            Self::BoxOffice => "box_office",
            Self::Complimentary => "complimentary",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.as_str() == text)
    }
}

/// Sales figures of one showtime on one day (venue time), kept by the sales consumer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct SalesFigure {
    /// `YYYY-MM-DD`, venue time.
    pub day: String,
    /// Where the seats were sold.
    #[serde(default)]
    pub channel: SalesChannel,
    pub showtime_id: ShowtimeId,
    pub movie_title: String,
    #[serde(deserialize_with = "crate::domain::rfc3339::deserialize")]
    pub starts_at: DateTime<Utc>,
    /// Confirmed bookings.
    pub bookings: i64,
    pub seats: i64,
    /// The seats of each ticket type (`seats` counts them all).
    #[serde(default)]
    pub adult_seats: i64,
    #[serde(default)]
    pub youth_seats: i64,
    #[serde(default)]
    pub senior_seats: i64,
    #[serde(default)]
    pub disabled_seats: i64,
    /// In won.
    #[cfg_attr(feature = "ssr", schema(value_type = i64))]
    pub revenue: Won,
    pub refunds: i64,
    /// In won.
    #[cfg_attr(feature = "ssr", schema(value_type = i64))]
    pub refunded: Won,
}
