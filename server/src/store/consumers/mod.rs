//! The consumers' side of the store: an event's effect applied together with the record that it
//! was applied (so a redelivery changes nothing), tickets issued, sales figures.

use super::dialect::{on, Tx};
use super::*;
use app::domain::SalesChannel;
use app::domain::Won;

/// Adds to a showtime's figures of a day.
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
    QueueMail {
        booking: BookingId,
        kind: MailKind,
        notice: Notice,
    },
    /// Added to the sales figures of a showtime on a day.
    Sales {
        showtime: ShowtimeId,
        day: chrono::NaiveDate,
        channel: SalesChannel,
        bookings: i64,
        seats: i64,
        /// The seats of each ticket type, in `TicketType::ALL`'s order.
        by_type: [i64; 4],
        revenue: Won,
        refunds: i64,
        refunded: Won,
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
    pub revenue: Won,
    pub refunds: i64,
    pub refunded: Won,
}

/// A sales row as [`Store::sales`] selects it.
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
    revenue_krw: Won,
    refunds: i64,
    refunded_krw: Won,
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

impl Store {
    /// Applies one consumer's effect of an event together with the record that `consumer`
    /// applied `event_id`, in one transaction; `false` (and nothing changed) when it had been
    /// applied before.
    pub async fn apply_event(
        &self,
        consumer: &str,
        event_id: &str,
        effect: &ConsumerEffect,
    ) -> Result<bool, StoreError> {
        let mut tx = self.begin().await?;
        if !record_consumed(&mut tx, consumer, event_id).await? {
            return Ok(false);
        }
        match effect {
            ConsumerEffect::Nothing => {}
            ConsumerEffect::IssueTicket { booking, code } => {
                issue_ticket(&mut tx, *booking, code).await?
            }
            ConsumerEffect::QueueMail {
                booking,
                kind,
                notice,
            } => queue_mail(&mut tx, event_id, *booking, *kind, notice).await?,
            ConsumerEffect::Sales { .. } => add_sales(&mut tx, effect).await?,
        }
        tx.commit().await?;
        Ok(true)
    }

    /// The ticket issued for a booking: its code and when it was issued.
    pub async fn issued_ticket(
        &self,
        booking: BookingId,
    ) -> Result<Option<(String, DateTime<Utc>)>, StoreError> {
        let issued = "select code, issued_at from ticket where booking_id = $1";
        let row: Option<(String, At)> = on!(&mut self.reader().await?, c => {
            sqlx::query_as(issued).bind(booking.0).fetch_optional(c).await?
        });
        Ok(row.map(|(code, at)| (code, at.0)))
    }

    /// Sales figures per showtime and day, newest day first.
    pub async fn sales(&self) -> Result<Vec<SalesRow>, StoreError> {
        let sales = "select d.showtime_id, s.movie_title, s.starts_at, d.day, d.channel,
                            cast(d.bookings as bigint) as bookings,
                            cast(d.seats as bigint) as seats, d.revenue_krw,
                            cast(d.refunds as bigint) as refunds, d.refunded_krw,
                            cast(d.adult_seats as bigint) as adult_seats,
                            cast(d.youth_seats as bigint) as youth_seats,
                            cast(d.senior_seats as bigint) as senior_seats,
                            cast(d.disabled_seats as bigint) as disabled_seats
                       from sales_daily d join showtime s on s.id = d.showtime_id
                      order by d.day desc, s.starts_at, d.showtime_id, d.channel";
        let rows: Vec<SalesDbRow> = on!(&mut self.reader().await?, c => {
            sqlx::query_as(sales).fetch_all(c).await?
        });
        Ok(rows.into_iter().map(SalesRow::from).collect())
    }
}

/// Records that `consumer` applied `event_id`; false when it did before.
async fn record_consumed(tx: &mut Tx, consumer: &str, event_id: &str) -> Result<bool, StoreError> {
    let record = "insert into consumed_event (consumer, event_id, consumed_at)
                  values ($1, $2, coalesce($3, current_timestamp))
                  on conflict do nothing";
    let recorded = on!(tx, c => {
        sqlx::query(record)
            .bind(consumer)
            .bind(event_id)
            .bind(Moment(None))
            .execute(c)
            .await?
            .rows_affected()
    });
    Ok(recorded == 1)
}

/// Issues a confirmed booking's ticket (once).
async fn issue_ticket(tx: &mut Tx, booking: BookingId, code: &str) -> Result<(), StoreError> {
    let issue = "insert into ticket (booking_id, code, issued_at)
                 values ($1, $2, coalesce($3, current_timestamp))
                 on conflict (booking_id) do nothing";
    on!(tx, c => {
        sqlx::query(issue).bind(booking.0).bind(code).bind(Moment(None)).execute(c).await?;
    });
    Ok(())
}

/// Queues `kind` of message for `booking` under `event_id` (once per event), if the booking
/// has an address.
async fn queue_mail(
    tx: &mut Tx,
    event_id: &str,
    booking: BookingId,
    kind: MailKind,
    notice: &Notice,
) -> Result<(), StoreError> {
    let queue = "insert into outgoing_mail (event_id, booking_id, kind, next_attempt_at,
                                            created_at, notice)
                 select $1, id, $3, coalesce($4, current_timestamp),
                        coalesce($4, current_timestamp), $5
                   from booking where id = $2 and email is not null
                 on conflict (event_id) do nothing";
    let notice = (notice != &Notice::default())
        .then(|| serde_json::to_string(notice).expect("a notice serialises"));
    on!(tx, c => {
        sqlx::query(queue)
            .bind(event_id)
            .bind(booking.0)
            .bind(kind.as_str())
            .bind(Moment(None))
            .bind(notice)
            .execute(c)
            .await?;
    });
    Ok(())
}

/// Adds a [`ConsumerEffect::Sales`] to its showtime's figures of the day.
async fn add_sales(tx: &mut Tx, sales: &ConsumerEffect) -> Result<(), StoreError> {
    let ConsumerEffect::Sales {
        showtime,
        day,
        channel,
        bookings,
        seats,
        by_type: [adult, youth, senior, disabled],
        revenue,
        refunds,
        refunded,
    } = sales
    else {
        return Ok(());
    };
    let count = |n: &i64| i32::try_from(*n).unwrap_or(i32::MAX);
    on!(tx, c => {
        sqlx::query(ADD_SALES)
            .bind(showtime.get())
            .bind(day)
            .bind(channel.as_str())
            .bind(count(bookings))
            .bind(count(seats))
            .bind(revenue)
            .bind(count(refunds))
            .bind(refunded)
            .bind(count(adult))
            .bind(count(youth))
            .bind(count(senior))
            .bind(count(disabled))
            .execute(c)
            .await?;
    });
    Ok(())
}
