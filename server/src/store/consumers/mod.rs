//! The consumers' side of the store: an event's effect applied together with the record that it
//! was applied (so a redelivery changes nothing), tickets issued, sales figures.

#[macro_use]
mod apply;

mod postgres;
mod sqlite;

use super::*;
use app::domain::SalesChannel;

/// Adds to a showtime's figures of a day (the same statement in both dialects).
const ADD_SALES: &str = "insert into sales_daily
        (showtime_id, day, channel, bookings, seats, revenue_krw, refunds, refunded_krw,
         adult_seats, youth_seats, senior_seats, disabled_seats)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
     on conflict (showtime_id, day, channel) do update
        set bookings = sales_daily.bookings + excluded.bookings,
            seats = sales_daily.seats + excluded.seats,
            adult_seats = sales_daily.adult_seats + excluded.adult_seats,
            youth_seats = sales_daily.youth_seats + excluded.youth_seats,
            senior_seats = sales_daily.senior_seats + excluded.senior_seats,
            disabled_seats = sales_daily.disabled_seats + excluded.disabled_seats,
            revenue_krw = sales_daily.revenue_krw + excluded.revenue_krw,
            refunds = sales_daily.refunds + excluded.refunds,
            refunded_krw = sales_daily.refunded_krw + excluded.refunded_krw";

/// What one consumer does with one event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConsumerEffect {
    /// Nothing for this consumer (the event is still recorded as seen).
    Nothing,
    /// The ticket of a confirmed booking.
    IssueTicket { booking: BookingId, code: String },
    /// A message to the booking's customer, queued when the booking has an address (the mail
    /// worker sends it).
    QueueMail { booking: BookingId, kind: MailKind },
    /// Added to the sales figures of a showtime on a day.
    Sales {
        showtime: ShowtimeId,
        day: chrono::NaiveDate,
        channel: SalesChannel,
        bookings: i64,
        seats: i64,
        /// The seats of each ticket type, in `TicketType::ALL`'s order.
        by_type: [i64; 4],
        revenue: i64,
        refunds: i64,
        refunded: i64,
    },
}

/// Sales figures of one showtime on one day (venue time).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SalesRow {
    pub showtime: ShowtimeId,
    pub movie_title: String,
    pub starts_at: DateTime<Utc>,
    pub day: chrono::NaiveDate,
    pub channel: SalesChannel,
    pub bookings: i64,
    pub seats: i64,
    /// The seats of each ticket type, in `TicketType::ALL`'s order.
    pub by_type: [i64; 4],
    pub revenue: i64,
    pub refunds: i64,
    pub refunded: i64,
}

/// A sales row as both dialects select it.
#[derive(sqlx::FromRow)]
struct SalesDbRow {
    #[sqlx(try_from = "i64")]
    showtime_id: ShowtimeId,
    movie_title: String,
    starts_at: At,
    day: chrono::NaiveDate,
    channel: String,
    bookings: i64,
    seats: i64,
    revenue_krw: i64,
    refunds: i64,
    refunded_krw: i64,
    adult_seats: i64,
    youth_seats: i64,
    senior_seats: i64,
    disabled_seats: i64,
}

impl From<SalesDbRow> for SalesRow {
    fn from(r: SalesDbRow) -> Self {
        Self {
            showtime: r.showtime_id,
            movie_title: r.movie_title,
            starts_at: r.starts_at.0,
            day: r.day,
            channel: SalesChannel::parse(&r.channel).unwrap_or_default(),
            bookings: r.bookings,
            seats: r.seats,
            by_type: [
                r.adult_seats,
                r.youth_seats,
                r.senior_seats,
                r.disabled_seats,
            ],
            revenue: r.revenue_krw,
            refunds: r.refunds,
            refunded: r.refunded_krw,
        }
    }
}

/// The issued ticket of a booking: its code and issue time.
const ISSUED_TICKET: &str = "select code, issued_at from ticket where booking_id = $1";

#[async_trait::async_trait]
pub trait Consumers: Send + Sync {
    /// Applies one consumer's effect of an event together with the record that `consumer`
    /// applied `event_id`; `false` (and nothing changed) when it had been applied before.
    async fn apply_event(
        &self,
        consumer: &str,
        event_id: &str,
        effect: &ConsumerEffect,
    ) -> Result<bool, StoreError>;

    /// The ticket issued for a booking: its code and when it was issued.
    async fn issued_ticket(
        &self,
        booking: BookingId,
    ) -> Result<Option<(String, DateTime<Utc>)>, StoreError>;

    /// Sales figures per showtime and day, newest day first.
    async fn sales(&self) -> Result<Vec<SalesRow>, StoreError>;
}
