//! The operator's console: halls and the schedule — importing a hall from its plan (JSON), listing and
//! exporting halls, scheduling a showtime in a hall, cancelling one, taking some of its seats off
//! public sale — and the sales figures (kept by the sales consumer). A hall's layout never changes once made
//! (a changed layout is a new hall), so a showtime's seats never change under its sales.

use super::staff::Said;
use super::*;
use crate::store::{BlockOutcome, NewHall};
use app::domain::{
    AuditFact, BookingFound, HallPlan, HallSummary, NewShowtime, SeatBlock, SeatCode,
    ShowtimeCancelled, ShowtimeCounts,
};
use app::engine::{Actor, Console};
use chrono::Utc;
use said::scheduled;

mod said;
mod search;

/// Messages the console lists.
const RECENT_MAIL: i64 = 50;

#[async_trait::async_trait]
impl Console for Engine {
    async fn import_hall(
        &self,
        plan: &HallPlan,
        by: &Actor,
    ) -> Result<HallSummary, InventoryError> {
        let seats = plan.check().map_err(|problems| {
            InventoryError::Invalid(problems.iter().map(|p| p.reason()).collect())
        })?;
        let hall = NewHall {
            name: plan.name.trim().to_string(),
            categories: plan.categories.clone(),
            seats,
            best_seat: plan.best_seat.as_ref().map(|s| s.trim().to_string()),
        };
        let Some(id) = self.store.import_hall(&hall).await? else {
            return Err(InventoryError::HallNameTaken(hall.name));
        };
        let count = hall.seats.len() as i64;
        self.audit(
            by,
            "hall_created",
            Said::new(
                format!("hall {id} ({}, {count} seats)", hall.name),
                vec![
                    AuditFact::Hall(id),
                    AuditFact::HallName(hall.name.clone()),
                    AuditFact::SeatCount(count),
                ],
            ),
        )
        .await;
        Ok(HallSummary {
            id,
            name: hall.name,
            seats: count,
        })
    }

    async fn halls(&self) -> Result<Vec<HallSummary>, InventoryError> {
        Ok(self.store.halls().await?)
    }

    async fn export_hall(&self, hall_id: i64) -> Result<HallPlan, InventoryError> {
        let hall = self
            .store
            .stored_hall(hall_id)
            .await?
            .ok_or(InventoryError::HallNotFound)?;
        let mut plan = HallPlan::from_seats(hall.name, hall.categories, hall.seats);
        plan.best_seat = hall.best_seat;
        Ok(plan)
    }

    /// Showtimes from the start of today (venue time) on, with their counts.
    async fn showtime_figures(&self) -> Result<Vec<ShowtimeCounts>, InventoryError> {
        let now = self.now_at();
        let since = crate::store::At(now.0 - chrono::Duration::hours(24));
        Ok(self.store.showtime_counts(now, since).await?)
    }

    async fn schedule_showtime(
        &self,
        showtime: &NewShowtime,
        by: &Actor,
    ) -> Result<ShowtimeId, InventoryError> {
        let now = self.clock.now().unwrap_or_else(Utc::now);
        let problems = showtime.problems(now);
        if !problems.is_empty() {
            return Err(InventoryError::Invalid(problems));
        }
        let hall_id = showtime.hall_id;
        let Some(hall) = self.store.stored_hall(hall_id).await? else {
            return Err(InventoryError::HallNotFound);
        };
        let strangers: Vec<&str> = showtime
            .prices
            .keys()
            .chain(showtime.ticket_prices.keys())
            .filter(|code| !hall.categories.iter().any(|c| &c.code == *code))
            .map(String::as_str)
            .collect();
        if !strangers.is_empty() {
            return Err(InventoryError::invalid(
                "invalid.no_category_in_hall",
                &[("categories", strangers.join(", "))],
            ));
        }
        let ticket_prices = showtime
            .ticket_price_table(&hall.categories)
            .map_err(|r| InventoryError::Invalid(vec![r]))?;
        let id = self.store.schedule_showtime(showtime).await?;
        let said = scheduled(id, showtime, &ticket_prices);
        self.audit(by, "showtime_scheduled", said).await;
        Ok(id)
    }

    /// Cancels a showtime: nothing of it is held, checked out or confirmed any more; its live
    /// holds' seats are free (live maps are told); each paid booking is refunded through the
    /// gateway by the refund worker, once. Cancelling again changes nothing.
    async fn cancel_showtime(
        &self,
        showtime: ShowtimeId,
        by: &Actor,
    ) -> Result<ShowtimeCancelled, InventoryError> {
        let now = self.clock.now().unwrap_or_else(Utc::now);
        // A show that has been given is not refunded by a press of a button.
        let layout = self.layout(showtime).await?;
        let ends = layout.starts_at + chrono::Duration::minutes(i64::from(layout.duration_minutes));
        if now >= ends {
            return Err(InventoryError::invalid(
                "invalid.showtime_ended",
                &[("id", showtime.to_string()), ("ended", ends.to_rfc3339())],
            ));
        }
        let done = self
            .store
            .cancel_showtime(showtime, now)
            .await?
            .ok_or(InventoryError::ShowtimeNotFound(showtime))?;
        // A hold statement that read the showtime before this committed may still commit a
        // hold after it: the sweeper releases the held seats of cancelled showtimes, and is
        // woken once such a hold can have finished (statements take milliseconds).
        let sweep = self.sweep_soon.clone();
        tokio::spawn(async move {
            tokio::time::sleep(std::time::Duration::from_secs(1)).await;
            sweep.notify_one();
        });
        if done.cancelled_now {
            self.refund_wake.notify_one();
            self.relay_wake.notify_one();
            let detail = format!(
                "showtime {showtime}: seats of live holds released {}, online refunds due {}, counter sales owed back {}",
                done.released.len(),
                done.refunds,
                done.owed_at_counter
            );
            if !done.released.is_empty() {
                self.announce_released(showtime, done.released.clone())
                    .await;
            }
            let cancelled = LiveMessage::ShowtimeCancelled {
                showtime_id: showtime,
            };
            self.announce(showtime, cancelled).await;
            let facts = vec![
                AuditFact::Showtime(showtime.get()),
                AuditFact::HoldsReleased(done.released.len() as i64),
                AuditFact::RefundsDue(done.refunds as i64),
                AuditFact::OwedBack(done.owed_at_counter as i64),
            ];
            self.audit(by, "showtime_cancelled", Said::new(detail, facts))
                .await;
        }
        Ok(ShowtimeCancelled {
            already: !done.cancelled_now,
            released: done.released.len(),
            refunds: done.refunds + done.owed_at_counter,
            owed_at_counter: done.owed_at_counter,
        })
    }

    /// Takes free seats of a showtime off public sale (house or killed), or puts them back:
    /// all of them or none (409 naming the seats held or sold). Live maps are told; audited.
    async fn block_seats(
        &self,
        showtime: ShowtimeId,
        seats: &[String],
        block: SeatBlock,
        by: &Actor,
    ) -> Result<Vec<SeatChange>, InventoryError> {
        const MOST: usize = 500;
        if seats.is_empty() || seats.len() > MOST {
            return Err(InventoryError::invalid(
                "invalid.block_seat_count",
                &[("max", MOST.to_string())],
            ));
        }
        let layout = self.layout(showtime).await?;
        let mut codes = Vec::with_capacity(seats.len());
        let mut unknown = Vec::new();
        for seat in seats {
            match SeatCode::parse(seat.trim()) {
                Ok(code) if layout.seats.iter().any(|s| s.code == code) => codes.push(code),
                _ => unknown.push(seat.clone()),
            }
        }
        if !unknown.is_empty() {
            return Err(InventoryError::UnknownSeats(unknown));
        }
        codes.sort();
        codes.dedup();
        let blocked = block.status().map(SeatStatus::as_str);
        let changed = match self
            .store
            .block_seats(showtime, &codes, blocked, self.clock.now())
            .await?
        {
            BlockOutcome::Changed(changed) => changed,
            BlockOutcome::NotFree(taken) => {
                return Err(InventoryError::SeatsUnavailable(crate::store::seat_texts(
                    &taken,
                )))
            }
        };
        let status = block.status().unwrap_or(SeatStatus::Available);
        let changes: Vec<SeatChange> = changed
            .into_iter()
            .map(|(code, version)| SeatChange {
                code,
                status,
                version,
            })
            .collect();
        let message = LiveMessage::SeatsBlocked {
            showtime_id: showtime,
            seats: changes.clone(),
        };
        self.announce(showtime, message).await;
        let detail = format!(
            "showtime {showtime}: {} {}",
            status.as_str(),
            crate::store::seat_texts(&codes).join(" ")
        );
        let facts = vec![
            AuditFact::Showtime(showtime.get()),
            AuditFact::SeatsMade(status.as_str().to_string()),
            AuditFact::Seats(crate::store::seat_texts(&codes)),
        ];
        self.audit(by, "seats_blocked", Said::new(detail, facts))
            .await;
        Ok(changes)
    }

    async fn outgoing_mail(&self) -> Result<Vec<app::domain::CustomerMessage>, InventoryError> {
        Ok(self
            .store
            .recent_mail(RECENT_MAIL)
            .await?
            .into_iter()
            .map(|m| app::domain::CustomerMessage {
                reference: m.booking.reference(),
                kind: m.kind.as_str().to_string(),
                status: m.status,
                attempts: m.attempts,
                last_error: m.last_error,
                created_at: m.created_at,
                sent_at: m.sent_at,
            })
            .collect())
    }

    async fn resend_ticket(&self, booking: &str, by: &Actor) -> Result<(), InventoryError> {
        let booking = self.booking_named(booking).await?;
        let record = self.booking_record(booking).await?;
        let stands = record.status == crate::store::BookingStatus::Confirmed
            && record.refunded_at.is_none()
            && !record.showtime_cancelled;
        if !stands {
            return Err(InventoryError::invalid("invalid.resend_not_confirmed", &[]));
        }
        if record.email.is_none() {
            return Err(InventoryError::invalid("invalid.resend_no_address", &[]));
        }
        // A message of its own, after the first messages waiting; once a minute per booking.
        self.queue_again(booking, "staff", Duration::from_secs(60))
            .await?;
        let said = Said::new(
            format!("booking {}: ticket e-mailed again", booking.0),
            vec![AuditFact::Booking(booking.0.to_string())],
        );
        self.audit(by, "ticket_resent", said).await;
        Ok(())
    }

    async fn find_booking(&self, query: &str, by: &Actor) -> Result<BookingFound, InventoryError> {
        self.search_booking(query, by).await
    }

    async fn sales_figures(&self) -> Result<Vec<app::domain::SalesFigure>, InventoryError> {
        Ok(self
            .store
            .sales()
            .await?
            .into_iter()
            .map(|r| app::domain::SalesFigure {
                day: r.day.format("%Y-%m-%d").to_string(),
                channel: r.channel,
                showtime_id: r.showtime,
                movie_title: r.movie_title,
                starts_at: r.starts_at,
                bookings: r.bookings,
                seats: r.seats,
                adult_seats: r.by_type[0],
                youth_seats: r.by_type[1],
                senior_seats: r.by_type[2],
                disabled_seats: r.by_type[3],
                revenue: r.revenue,
                refunds: r.refunds,
                refunded: r.refunded,
            })
            .collect())
    }
}
