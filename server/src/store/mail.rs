//! Messages to customers: queued by the notification consumer (see `consumers`), claimed with a
//! lease by the mail worker of any process, then sent, retried later, or parked for an operator.

use super::dialect::on;
use super::*;

impl Store {
    /// Claims up to `limit` messages due at `now` that no live lease holds, leasing them for
    /// `lease` and counting the try; several workers never claim the same one at once (on
    /// PostgreSQL rows another worker is claiming are passed by, `for update skip locked`; SQLite
    /// has one writer). First messages go before resends (`again:…`: a console's or a
    /// customer's), so a burst of resends never delays a first ticket.
    pub async fn claim_mail(
        &self,
        now: Now,
        lease: Duration,
        limit: i64,
    ) -> Result<Vec<MailJob>, StoreError> {
        let mut conn = self.writer().await?;
        let claim = format!(
            "update outgoing_mail
                set leased_until = coalesce($1, current_timestamp) + $2,
                    attempts = attempts + 1
              where id in (select id from outgoing_mail
                            where status = 'queued'
                              and next_attempt_at <= coalesce($1, current_timestamp)
                              and (leased_until is null
                                   or leased_until <= coalesce($1, current_timestamp))
                            order by event_id like 'again:%', next_attempt_at, id
                            limit $3
                            {})
          returning id, booking_id, kind, attempts, notice",
            conn.row_lock("for update skip locked")
        );
        let rows: Vec<ClaimedRow> = on!(&mut conn, c => {
            sqlx::query_as(&claim)
                .bind(Moment(now))
                .bind(Span::from(lease))
                .bind(limit)
                .fetch_all(c)
                .await?
        });
        jobs(rows)
    }

    /// Records how the try of a claimed message ended, if the claim is still this one (the
    /// message still queued at this try: a worker whose lease ran out and was claimed again
    /// records nothing); whether it did.
    pub async fn mail_done(
        &self,
        job: &MailJob,
        now: Now,
        outcome: &MailOutcome,
    ) -> Result<bool, StoreError> {
        let (status, after, error) = outcome.columns();
        let done = "update outgoing_mail
                       set status = $3,
                           sent_at = case when $3 = 'sent' then coalesce($2, current_timestamp) end,
                           next_attempt_at = coalesce($2, current_timestamp) + $4,
                           last_error = $5,
                           leased_until = null
                     where id = $1 and attempts = $6 and status = 'queued'";
        let recorded = on!(&mut self.writer().await?, c => {
            sqlx::query(done)
                .bind(job.id)
                .bind(Moment(now))
                .bind(status)
                .bind(Span::from(after))
                .bind(error)
                .bind(job.attempts)
                .execute(c)
                .await?
                .rows_affected()
        });
        Ok(recorded == 1)
    }

    /// The newest messages, newest first.
    pub async fn recent_mail(&self, limit: i64) -> Result<Vec<MailRow>, StoreError> {
        let recent = "select id, booking_id, kind, status, attempts, last_error, created_at,
                             sent_at, next_attempt_at
                        from outgoing_mail order by id desc limit $1";
        let rows: Vec<MailDbRow> = on!(&mut self.reader().await?, c => {
            sqlx::query_as(recent).bind(limit).fetch_all(c).await?
        });
        rows.into_iter().map(MailRow::try_from).collect()
    }

    /// Messages waiting to be sent, and parked ones.
    pub async fn mail_counts(&self) -> Result<(i64, i64), StoreError> {
        let count = "select
                coalesce(sum(case when status = 'queued' then 1 else 0 end), 0),
                coalesce(sum(case when status = 'parked' then 1 else 0 end), 0)
              from outgoing_mail where status in ('queued', 'parked')";
        let counts: (i64, i64) = on!(&mut self.reader().await?, c => {
            sqlx::query_as(count).fetch_one(c).await?
        });
        Ok(counts)
    }
}

/// Which message an event asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MailKind {
    /// The ticket of a confirmed booking.
    Ticket,
    /// A refund (of a cancelled showtime, or of a booking given back).
    Refund,
}

impl MailKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Ticket => "ticket",
            Self::Refund => "refund",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "ticket" => Some(Self::Ticket),
            "refund" => Some(Self::Refund),
            _ => None,
        }
    }
}

/// What a message says of the change it announces, as its event said it — the booking may have
/// changed again by the time the message goes: the money the change moved and the seats it
/// concerns (none said: the booking's own, when the message goes).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Notice {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub amount: Option<Won>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seats: Vec<String>,
    #[serde(default)]
    pub about: About,
}

/// The change a message announces, where its kind does not say it all.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum About {
    /// The ticket of a booking confirmed, or a refund made.
    #[default]
    Booking,
    /// Its showtime was cancelled, and a counter sale's money is given back at the box office.
    OwedAtCounter,
    /// Seats exchanged at the counter (`seats` given back; the ticket names the new ones).
    Exchange,
}

/// A message a worker claimed: it sends it before its lease ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MailJob {
    pub id: i64,
    pub booking: BookingId,
    pub kind: MailKind,
    /// Tries so far, this one included.
    pub attempts: i32,
    pub notice: Notice,
}

/// A message as the console lists it (no address: the booking's page shows it masked).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MailRow {
    pub id: i64,
    pub booking: BookingId,
    pub kind: MailKind,
    /// `queued`, `sent`, `parked` or `skipped`.
    pub status: String,
    pub attempts: i32,
    pub last_error: Option<String>,
    pub created_at: DateTime<Utc>,
    pub sent_at: Option<DateTime<Utc>>,
    pub next_attempt_at: DateTime<Utc>,
}

#[derive(sqlx::FromRow)]
struct MailDbRow {
    id: i64,
    booking_id: uuid::Uuid,
    kind: String,
    status: String,
    attempts: i32,
    last_error: Option<String>,
    created_at: At,
    sent_at: Option<At>,
    next_attempt_at: At,
}

impl TryFrom<MailDbRow> for MailRow {
    type Error = StoreError;

    fn try_from(r: MailDbRow) -> Result<Self, StoreError> {
        Ok(Self {
            id: r.id,
            booking: BookingId(r.booking_id),
            kind: stored_kind(&r.kind)?,
            status: r.status,
            attempts: r.attempts,
            last_error: r.last_error,
            created_at: r.created_at.0,
            sent_at: r.sent_at.map(|a| a.0),
            next_attempt_at: r.next_attempt_at.0,
        })
    }
}

fn stored_kind(kind: &str) -> Result<MailKind, StoreError> {
    MailKind::parse(kind).ok_or_else(|| StoreError::Corrupt(format!("unknown mail kind {kind:?}")))
}

/// `(id, booking, kind, attempts, notice)` of a claimed message.
type ClaimedRow = (i64, uuid::Uuid, String, i32, Option<String>);

fn jobs(rows: Vec<ClaimedRow>) -> Result<Vec<MailJob>, StoreError> {
    rows.into_iter()
        .map(|(id, booking, kind, attempts, notice)| {
            let notice = match notice {
                Some(text) => serde_json::from_str(&text)
                    .map_err(|e| StoreError::Corrupt(format!("a message's notice: {e}")))?,
                None => Notice::default(),
            };
            Ok(MailJob {
                id,
                booking: BookingId(booking),
                kind: stored_kind(&kind)?,
                attempts,
                notice,
            })
        })
        .collect()
}

/// How a try ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MailOutcome {
    Sent,
    /// The booking has no address any more (purged): nothing to send.
    Skipped,
    /// Failed: tried again after the wait.
    Retry {
        error: String,
        after: Duration,
    },
    /// Failed too often: left for an operator.
    Parked {
        error: String,
    },
}

impl MailOutcome {
    /// `(status, wait before the next try, error)` as stored.
    fn columns(&self) -> (&'static str, Duration, Option<&str>) {
        match self {
            Self::Sent => ("sent", Duration::ZERO, None),
            Self::Skipped => ("skipped", Duration::ZERO, None),
            Self::Retry { error, after } => ("queued", *after, Some(error)),
            Self::Parked { error } => ("parked", Duration::ZERO, Some(error)),
        }
    }
}
