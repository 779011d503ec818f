//! Customers' e-mail, the engine's side: the notification consumer queues a message per booking
//! event (see `consumers`); here the mail worker's rounds claim what is due, read the booking,
//! compose the message in the customer's language and send it, then record how it went: sent,
//! retried later (the wait doubling from `MAIL_RETRY_SECONDS`), or parked after
//! `MAIL_MAX_ATTEMPTS` tries (or a refusal for good). Nothing here is on a confirmation's path.
//!
//! The ticket's message carries a signed link that opens the booking on any device until its
//! showtime ends: following it and confirming (a `POST`) proves the mailbox, and lets that
//! browser see the booking and cancel it as its buyer may. Resends (the console's, a customer's
//! "e-mail me the link") go after every first message waiting.

use super::*;
use crate::mail::{Letter, Mailer};
use crate::store::{Access, MailJob, MailOutcome};

/// What a booking's link opens now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkState {
    /// The booking, of this buyer.
    Live(CustomerId),
    /// Its showtime has ended: the link opens nothing any more.
    Expired,
}

/// How long a claimed message is the claiming worker's to send; past it another worker may
/// send it (so a send is cut off well before: [`SEND_TIMEOUT`]).
const LEASE: Duration = Duration::from_secs(120);
/// The longest one send may take in all (lettre's own timeout is per read and write).
const SEND_TIMEOUT: Duration = Duration::from_secs(60);
/// Messages one round claims: one, so a lease never covers a queue of slow sends.
const ROUND: i64 = 1;
/// The longest wait between two tries.
const LONGEST_WAIT: Duration = Duration::from_secs(6 * 3600);

impl Engine {
    /// Sends customers' e-mail through `mailer` (the mail worker runs only with one).
    pub fn with_mailer(mut self, mailer: Arc<Mailer>) -> Self {
        self.mailer = Some(mailer);
        self
    }

    pub fn mailer(&self) -> Option<&Arc<Mailer>> {
        self.mailer.as_ref()
    }

    /// The path of the link that opens `booking` on any device.
    pub fn booking_link_path(&self, booking: BookingId) -> String {
        format!(
            "/bookings/{}/open?key={}",
            booking.0,
            self.ticket_keys.sign_link(booking)
        )
    }

    /// Whether `key` opens `booking` now: a key we signed for it, until its showtime has ended
    /// (after it there is nothing left to do with the booking that its page does not show to
    /// the session that has it). A wrong key answers as an unknown booking does.
    pub async fn booking_link(
        &self,
        booking: BookingId,
        key: &str,
    ) -> Result<LinkState, InventoryError> {
        if !self.ticket_keys.verify_link(booking, key) {
            return Err(InventoryError::BookingNotFound);
        }
        let record = self.booking_record(booking).await?;
        let layout = self.layout(record.showtime).await?;
        let ends = layout.starts_at + chrono::Duration::minutes(i64::from(layout.duration_minutes));
        if self.now_at().0 >= ends {
            return Ok(LinkState::Expired);
        }
        Ok(LinkState::Live(record.customer))
    }

    /// Follows a booking's link once its opener confirmed (a `POST`: a plain visit, or a page of
    /// another site, attaches nothing): `customer` proved the mailbox, and may see the booking
    /// and cancel it as its buyer may.
    pub async fn open_booking_link(
        &self,
        booking: BookingId,
        key: &str,
        customer: CustomerId,
    ) -> Result<LinkState, InventoryError> {
        let state = self.booking_link(booking, key).await?;
        if let LinkState::Live(buyer) = state {
            if buyer != customer {
                self.store
                    .grant_booking_access(booking, customer, Access::Mailbox, self.clock.now())
                    .await?;
            }
        }
        Ok(state)
    }

    /// Queues the booking's message again (its ticket, with the link) as a resend: after every
    /// first message waiting, and once per booking and `who` in each `every` (a second time
    /// answers `RateLimited` with the seconds left).
    pub(super) async fn queue_again(
        &self,
        booking: BookingId,
        who: &str,
        every: Duration,
    ) -> Result<(), InventoryError> {
        let now = self.now_at().0.timestamp();
        let every = every.as_secs().max(1) as i64;
        let window = now.div_euclid(every);
        let id = format!("again:{who}:{}:{window}", booking.0);
        let effect = crate::store::ConsumerEffect::QueueMail {
            booking,
            kind: crate::store::MailKind::Ticket,
            notice: Default::default(),
        };
        if !self.store.apply_event("again", &id, &effect).await? {
            let wait = (window + 1) * every - now;
            return Err(InventoryError::RateLimited(wait.max(1) as u64));
        }
        Ok(())
    }

    /// One round of the mail worker: claims the messages due and tries each; how many.
    pub async fn send_due_mail(&self) -> Result<usize, InventoryError> {
        let Some(mailer) = self.mailer.clone() else {
            return Ok(0);
        };
        let jobs = self
            .store
            .claim_mail(self.clock.now(), LEASE, ROUND)
            .await?;
        for job in &jobs {
            let outcome = self.try_mail(&mailer, job).await;
            match &outcome {
                MailOutcome::Sent => {
                    HoldMetrics::count(&self.metrics.mail_sent);
                    tracing::info!(
                        mail = job.id,
                        kind = job.kind.as_str(),
                        "customer e-mail sent"
                    );
                }
                MailOutcome::Skipped => {
                    tracing::info!(
                        mail = job.id,
                        "customer e-mail skipped: the booking has no address now"
                    )
                }
                MailOutcome::Retry { error, after } => {
                    HoldMetrics::count(&self.metrics.mail_failed);
                    tracing::warn!(mail = job.id, attempts = job.attempts, retry_in = ?after, %error, "customer e-mail not sent; tried again later");
                }
                MailOutcome::Parked { error } => {
                    HoldMetrics::count(&self.metrics.mail_failed);
                    tracing::error!(mail = job.id, attempts = job.attempts, %error, "customer e-mail parked for an operator");
                }
            }
            // Recorded only while the claim is still this worker's (same try, still queued).
            if !self
                .store
                .mail_done(job, self.clock.now(), &outcome)
                .await?
            {
                tracing::warn!(
                    mail = job.id,
                    "customer e-mail's claim lapsed; another worker has it"
                );
            }
        }
        Ok(jobs.len())
    }

    async fn try_mail(&self, mailer: &Mailer, job: &MailJob) -> MailOutcome {
        let failed = |error: String, permanent: bool| {
            if permanent || job.attempts.max(1) as u32 >= mailer.max_attempts {
                MailOutcome::Parked { error }
            } else {
                MailOutcome::Retry {
                    error,
                    after: wait_after(mailer.retry, job.attempts),
                }
            }
        };
        let record = match self.booking_record(job.booking).await {
            Ok(record) => record,
            Err(e) => return failed(e.to_string(), false),
        };
        let Some(address) = record.email.clone() else {
            return MailOutcome::Skipped;
        };
        // A ticket that is no longer one (refunded, cancelled since) is not sent: its refund
        // notice follows.
        let void = record.status != crate::store::BookingStatus::Confirmed
            || record.refunded_at.is_some()
            || record.showtime_cancelled;
        if job.kind == crate::store::MailKind::Ticket && void {
            return MailOutcome::Skipped;
        }
        let hide = |error: String| hide_address(&error, &address);
        let to = match address.parse() {
            Ok(to) => to,
            Err(e) => return failed(hide(format!("the address is not usable: {e}")), true),
        };
        let layout = match self.layout(record.showtime).await {
            Ok(layout) => layout,
            Err(e) => return failed(e.to_string(), false),
        };
        let lang =
            match app::domain::MailLanguage::from_code(record.language.as_deref().unwrap_or(""))
                .unwrap_or_default()
            {
                app::domain::MailLanguage::Ko => app::i18n::Lang::Ko,
                app::domain::MailLanguage::En => app::i18n::Lang::En,
            };
        // A refund's seats as its event said them; a ticket's, the booking's now (with each
        // seat's ticket type when any is not adult, and the door's check).
        let notice = &job.notice;
        let seats = if job.kind == crate::store::MailKind::Refund && !notice.seats.is_empty() {
            notice.seats.clone()
        } else if record.tickets.iter().any(|t| t.ticket_type.needs_proof()) {
            let name = |t: app::domain::TicketType| app::i18n::translate(lang, t.name_key(), &[]);
            let mut lines: Vec<String> = record
                .tickets
                .iter()
                .filter(|t| record.seats.iter().any(|s| s.as_str() == t.seat))
                .map(|t| format!("{} ({})", t.seat, name(t.ticket_type)))
                .collect();
            lines.push(app::i18n::translate(lang, "ticket_type.check_id", &[]));
            lines
        } else {
            crate::store::seat_texts(&record.seats)
        };
        let letter = Letter {
            kind: job.kind,
            about: notice.about,
            lang,
            reference: record.id.reference(),
            movie_title: layout.movie_title.clone(),
            hall_name: layout.hall_name.clone(),
            starts_at: layout.starts_at,
            seats,
            given_back: match notice.about {
                crate::store::About::Exchange => notice.seats.clone(),
                _ => Vec::new(),
            },
            // What the change moved, as its event said it; a ticket's, what was paid.
            amount: notice.amount.unwrap_or(record.amount),
            partial: !notice.seats.is_empty()
                && record.status == crate::store::BookingStatus::Confirmed
                && record.refunded_at.is_none()
                && !record.seats.is_empty(),
            ticket_code: self.ticket_code(record.id),
            link: mailer.link(&self.booking_link_path(record.id)),
            showtime_cancelled: record.showtime_cancelled,
        };
        let message = match letter.message(mailer.from(), to) {
            Ok(message) => message,
            Err(e) => return failed(hide(e), true),
        };
        match tokio::time::timeout(SEND_TIMEOUT, mailer.send(&message)).await {
            Ok(Ok(())) => MailOutcome::Sent,
            Ok(Err(e)) => failed(hide(e.message), e.permanent),
            Err(_) => failed(format!("no answer within {SEND_TIMEOUT:?}"), false),
        }
    }
}

/// `error` with every spelling of `address` in it masked: an address never reaches a log or the
/// console, and a server's answer may repeat it (in any case; addresses are stored lower-case).
fn hide_address(error: &str, address: &str) -> String {
    let masked = app::domain::mask(address);
    if !error.is_ascii() {
        return error.replace(address, &masked);
    }
    // ASCII lower-casing keeps byte offsets.
    let lower = error.to_ascii_lowercase();
    let (mut out, mut rest) = (String::with_capacity(error.len()), 0);
    while let Some(at) = lower[rest..].find(address) {
        out.push_str(&error[rest..rest + at]);
        out.push_str(&masked);
        rest += at + address.len();
    }
    out.push_str(&error[rest..]);
    out
}

/// The wait after the `attempts`-th failed try: `first`, doubling each time, at most
/// [`LONGEST_WAIT`].
fn wait_after(first: Duration, attempts: i32) -> Duration {
    let doublings = attempts.clamp(1, 20) as u32 - 1;
    first.saturating_mul(1 << doublings).min(LONGEST_WAIT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_s_answer_never_carries_the_address_out() {
        let said = "550 5.1.1 <Kim@Example.com>: unknown user kim@example.com";
        let hidden = hide_address(said, "kim@example.com");
        assert!(
            !hidden.to_lowercase().contains("kim@example.com"),
            "{hidden}"
        );
        assert!(hidden.contains("550 5.1.1 <k***@example.com>"), "{hidden}");
        assert_eq!(
            hide_address("connection refused", "kim@example.com"),
            "connection refused"
        );
    }

    #[test]
    fn each_failed_try_doubles_the_wait_up_to_six_hours() {
        let first = Duration::from_secs(30);
        assert_eq!(wait_after(first, 1), Duration::from_secs(30));
        assert_eq!(wait_after(first, 2), Duration::from_secs(60));
        assert_eq!(wait_after(first, 4), Duration::from_secs(240));
        assert_eq!(wait_after(first, 12), LONGEST_WAIT);
        assert_eq!(wait_after(first, 0), first);
    }
}
