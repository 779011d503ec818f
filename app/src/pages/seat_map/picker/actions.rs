//! What the customer does with a selection: hold it (or the best seats), pay, cancel — each
//! a server call whose answer the picker shows.

use super::*;

impl Picker {
    pub fn hold_selected(self) {
        let codes: Vec<String> = self.selected.get_untracked().into_iter().collect();
        if codes.is_empty() || self.pending.get_untracked() {
            return;
        }
        let selection = match SeatSelection::parse(&codes) {
            Ok(selection) => selection,
            Err(e) => {
                self.notice.set(Some(Notice::Error(e.into())));
                return;
            }
        };
        self.pending.set(true);
        let showtime = self.showtime;
        let kiosk = self.kiosk;
        spawn_local(async move {
            let outcome = match kiosk {
                true => clerk_hold(showtime, Some(selection), None).await,
                false => hold_seats(showtime, selection).await,
            };
            self.held(outcome);
            self.pending.set(false);
            self.refresh();
        });
    }

    /// Asks the server for the best `count` seats and holds them in one step.
    /// Holds the best `count` seats (of `category`, when given).
    pub fn hold_best(self, count: usize, category: Option<String>) {
        if self.pending.get_untracked() {
            return;
        }
        self.pending.set(true);
        let (showtime, kiosk) = (self.showtime, self.kiosk);
        spawn_local(async move {
            let request = BestAvailable { count, category };
            let outcome = match kiosk {
                true => clerk_hold(showtime, None, Some(request)).await,
                false => hold_best(showtime, request).await,
            };
            self.held(outcome);
            self.pending.set(false);
            self.refresh();
        });
    }

    /// Shows the outcome of a hold.
    fn held(self, outcome: Result<Hold, InventoryError>) {
        match outcome {
            Ok(hold) => {
                // The seats held come into view once drawn (above the hold panel on a phone).
                if let Some(first) = hold.seats.first().map(|s| s.to_string()) {
                    request_animation_frame(move || super::super::plan::show_seat(&first));
                }
                self.types.set(Default::default());
                self.hold.set(Some(HeldSeats {
                    hold,
                    received_ms: Some(browser_now()),
                }));
                self.selected.set(BTreeSet::new());
                self.conflicted.set(BTreeSet::new());
                self.notice.set(None);
            }
            Err(InventoryError::RateLimited(seconds)) => {
                self.retry_at_ms
                    .set(Some(browser_now() + seconds as f64 * 1000.0));
                self.notice.set(Some(Notice::RateLimited));
            }
            Err(InventoryError::SeatsUnavailable(taken)) => {
                // Point out what was taken, keep the rest selected, ask to pick again.
                self.selected.update(|s| s.retain(|c| !taken.contains(c)));
                self.conflicted.set(taken.iter().cloned().collect());
                self.notice.set(Some(Notice::Conflict(taken)));
            }
            Err(InventoryError::QueueRequired(showtime)) => {
                // The sale went hot (or the admission ended): to the waiting room.
                let _ = window()
                    .location()
                    .set_href(&format!("/showtimes/{showtime}/waiting-room"));
            }
            Err(e) => self.notice.set(Some(Notice::Error(e))),
        }
    }

    /// Starts the payment of the hold and sends the browser to the gateway's payment page; the
    /// ticket goes to `email`, in `lang`.
    pub fn pay(self, email: String, lang: crate::i18n::Lang) {
        let Some(held) = self.hold.get_untracked() else {
            return;
        };
        self.pending.set(true);
        spawn_local(async move {
            let types = self.ticket_counts();
            match checkout_hold(held.hold.hold_id.as_uuid(), email, lang.into(), types).await {
                Ok(checkout) => {
                    // The page stays pending until the browser has left it.
                    let _ = window().location().set_href(&checkout.payment_url);
                }
                Err(e) => {
                    self.notice.set(Some(Notice::Error(e)));
                    self.pending.set(false);
                }
            }
        });
    }

    pub fn cancel(self) {
        let Some(held) = self.hold.get_untracked() else {
            return;
        };
        self.pending.set(true);
        let kiosk = self.kiosk;
        spawn_local(async move {
            let outcome = match kiosk {
                true => clerk_release().await.map(drop),
                false => cancel_hold(held.hold.hold_id.as_uuid()).await,
            };
            match outcome {
                Ok(()) | Err(InventoryError::HoldNotFound) => {
                    self.hold.set(None);
                    self.notice.set(Some(Notice::Cancelled));
                }
                Err(e) => self.notice.set(Some(Notice::Error(e))),
            }
            self.pending.set(false);
            self.refresh();
        });
    }
}
