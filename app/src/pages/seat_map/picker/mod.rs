//! The seat picker's state and actions: what is selected, what the customer holds, the seats'
//! statuses, the countdown clock, and the calls to the server functions.

mod actions;
mod types;
mod view;

pub use view::{Notice, SeatView};

use crate::domain::seat_rules::{self, Refusal, Rules};
use crate::domain::{
    BestAvailable, Hold, Seat, SeatChange, SeatMap, SeatSelection, SeatStatus, ShowtimeId,
};
use crate::error::InventoryError;
use crate::seating::{self, LimitReached};
use crate::serverfns::{
    cancel_hold, checkout_hold, clerk_hold, clerk_release, get_seat_map, hold_best, hold_seats,
};
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::collections::{BTreeSet, HashMap};

/// A hold as the page keeps it: `received_ms` is the browser clock when it arrived, so the
/// countdown runs on server time plus elapsed local time.
#[derive(Debug, Clone, PartialEq)]
pub struct HeldSeats {
    pub hold: Hold,
    pub received_ms: Option<f64>,
}

#[derive(Clone, Copy)]
pub struct Picker {
    pub showtime: ShowtimeId,
    /// The showtime was cancelled (when the page was made, or since: the live feed says so).
    pub cancelled: RwSignal<bool>,
    pub seats: StoredValue<Vec<Seat>>,
    /// The showtime's price categories (their names as the operator gave them).
    pub categories: StoredValue<Vec<crate::domain::PriceCategory>>,
    pub status: RwSignal<HashMap<String, SeatStatus>>,
    /// The newest version seen of each seat, to order live updates.
    pub versions: StoredValue<HashMap<String, i64>>,
    pub selected: RwSignal<BTreeSet<String>>,
    pub conflicted: RwSignal<BTreeSet<String>>,
    pub hold: RwSignal<Option<HeldSeats>>,
    /// How many of the held seats are of each type other than adult (adults: the rest).
    pub types: RwSignal<crate::domain::TicketCounts>,
    pub notice: RwSignal<Option<Notice>>,
    pub pending: RwSignal<bool>,
    /// The seat that takes Tab focus (roving tabindex).
    pub focused: RwSignal<String>,
    /// The browser's clock, ticking; `None` until the page runs in a browser.
    pub now_ms: RwSignal<Option<f64>>,
    /// When a rate-limited customer may try to hold again (browser clock).
    pub retry_at_ms: RwSignal<Option<f64>>,
    /// What the seat rules make of the current selection (see `judge`).
    pub judgement: Memo<Result<Vec<String>, Refusal>>,
    /// A box-office clerk's picker: holds are the clerk's (for the sale at the counter).
    pub kiosk: bool,
    /// The operator's console marking seats (house, killed, back on sale): any seat that is
    /// not sold or held is picked, as many as wanted, and no seat rule applies.
    pub console: bool,
    /// The live connection is up (its snapshot arrived and it has not closed since).
    pub online: RwSignal<bool>,
}

fn statuses(map: &SeatMap) -> HashMap<String, SeatStatus> {
    map.seats
        .iter()
        .map(|s| (s.code.to_string(), s.status))
        .collect()
}

/// What the seat rules make of a selection: the seats it leaves alone that no other selection
/// could avoid, or why the server would refuse it (judged here as the server judges it, so the
/// page can explain it before the customer presses Hold).
fn judge(
    seats: StoredValue<Vec<Seat>>,
    status: RwSignal<HashMap<String, SeatStatus>>,
    selected: RwSignal<BTreeSet<String>>,
    rules: Rules,
    accessible_released: bool,
) -> Result<Vec<String>, Refusal> {
    selected.with(|selected| {
        // No selection, nothing to judge: the statuses are not even read (nor followed).
        if selected.is_empty() {
            return Ok(Vec::new());
        }
        status.with(|status| {
            seats.with_value(|seats| {
                let now: Vec<Seat> = seats
                    .iter()
                    .map(|s| Seat {
                        status: status.get(s.code.as_str()).copied().unwrap_or(s.status),
                        ..s.clone()
                    })
                    .collect();
                let taking = selected.iter().map(String::as_str).collect();
                seat_rules::judge(&now, &taking, rules, accessible_released)
            })
        })
    })
}

fn browser_now() -> f64 {
    js_sys::Date::now()
}

impl Picker {
    pub fn new(map: &SeatMap, current: Option<Hold>) -> Self {
        let first_free = map
            .seats
            .iter()
            .find(|s| s.status == SeatStatus::Available)
            .or(map.seats.first());
        let seats = StoredValue::new(map.seats.clone());
        let status = RwSignal::new(statuses(map));
        let selected = RwSignal::new(BTreeSet::new());
        let (rules, accessible_released) = (map.seat_rules, map.accessible_released);
        let judgement =
            Memo::new(move |_| judge(seats, status, selected, rules, accessible_released));
        Self {
            showtime: map.showtime_id,
            cancelled: RwSignal::new(map.cancelled),
            seats,
            categories: StoredValue::new(map.categories.clone()),
            status,
            versions: StoredValue::new(
                map.seats
                    .iter()
                    .map(|s| (s.code.to_string(), s.version))
                    .collect(),
            ),
            selected,
            conflicted: RwSignal::new(BTreeSet::new()),
            hold: RwSignal::new(current.map(|hold| HeldSeats {
                hold,
                received_ms: None,
            })),
            types: RwSignal::new(Default::default()),
            notice: RwSignal::new(None),
            pending: RwSignal::new(false),
            focused: RwSignal::new(first_free.map(|s| s.code.to_string()).unwrap_or_default()),
            now_ms: RwSignal::new(None),
            retry_at_ms: RwSignal::new(None),
            judgement,
            kiosk: false,
            console: false,
            online: RwSignal::new(false),
        }
    }

    /// A box-office clerk's picker (see [`Picker::kiosk`]).
    pub fn for_kiosk(map: &SeatMap) -> Self {
        Self {
            kiosk: true,
            ..Self::new(map, None)
        }
    }

    /// The console's picker (see [`Picker::console`]).
    pub fn for_console(map: &SeatMap) -> Self {
        Self {
            console: true,
            ..Self::new(map, None)
        }
    }

    /// Whole seconds until a rate-limited customer may try again; `None` when they may now.
    pub fn retry_in_seconds(self) -> Option<u64> {
        let at = self.retry_at_ms.get()?;
        let now = self.now_ms.get().unwrap_or_else(browser_now);
        let left = ((at - now) / 1000.0).ceil();
        (left > 0.0).then_some(left as u64)
    }

    pub fn view(self, code: &str) -> SeatView {
        if self.hold.with(|h| {
            h.as_ref()
                .is_some_and(|h| h.hold.seats.iter().any(|s| s.as_str() == code))
        }) {
            return SeatView::Mine;
        }
        if self.selected.with(|s| s.contains(code)) {
            return SeatView::Selected;
        }
        match self.status.with(|s| s.get(code).copied()) {
            // The console shows what is off sale as such, and picks it all the same.
            Some(SeatStatus::House | SeatStatus::Killed) if self.console => SeatView::Blocked,
            Some(status) if self.open(status) && self.strands(code) => SeatView::Stranded,
            Some(status) if self.open(status) => SeatView::Free,
            Some(SeatStatus::Held) => SeatView::Taken,
            Some(SeatStatus::House | SeatStatus::Killed) => SeatView::Blocked,
            _ => SeatView::Booked,
        }
    }

    /// Whether a seat of `status` may be picked here: a free one, and at the box office a house
    /// seat too (the venue's staff sell those).
    fn open(self, status: SeatStatus) -> bool {
        match status {
            SeatStatus::Available => true,
            SeatStatus::House => self.kiosk || self.console,
            SeatStatus::Killed => self.console,
            _ => false,
        }
    }

    /// Whether the current selection would leave `code` alone (and may not).
    fn strands(self, code: &str) -> bool {
        !self.console
            && self.judgement.with(
                |j| matches!(j, Err(Refusal::LoneSeat(alone)) if alone.iter().any(|c| c == code)),
            )
    }

    pub fn click(self, code: &str) {
        if self.hold.with(Option::is_some) {
            self.notice.set(Some(Notice::HoldFirst));
            return;
        }
        let pickable = match self.view(code) {
            SeatView::Free | SeatView::Selected | SeatView::Stranded => true,
            SeatView::Blocked => self.console,
            _ => false,
        };
        if !pickable {
            self.notice
                .set(Some(Notice::NotAvailable(code.to_string())));
            return;
        }
        let mut outcome = Ok(false);
        self.selected.update(|s| {
            outcome = if self.console {
                Ok(s.remove(code) || s.insert(code.to_string()))
            } else {
                seating::toggle(s, code)
            }
        });
        match outcome {
            Err(LimitReached) => self.notice.set(Some(Notice::Limit)),
            Ok(_) => {
                self.conflicted.update(|c| {
                    c.remove(code);
                });
                if self
                    .notice
                    .with(|n| matches!(n, Some(Notice::Limit | Notice::NotAvailable(_))))
                {
                    self.notice.set(None);
                }
            }
        }
    }

    pub fn total(self) -> crate::domain::Won {
        self.seats
            .with_value(|seats| self.selected.with(|sel| seating::total(seats, sel)))
    }

    /// Applies seat changes (a snapshot or a live update) by version. A seat this customer had
    /// selected that someone else has now taken leaves the selection, with a notice.
    pub fn apply(self, changes: &[SeatChange], is_snapshot: bool) {
        let mut changed = Vec::new();
        self.versions.update_value(|versions| {
            self.status
                .update(|status| changed = seating::merge(status, versions, changes, is_snapshot));
        });
        let taken: Vec<String> = changed
            .into_iter()
            .filter(|code| self.selected.with_untracked(|s| s.contains(code)))
            .filter(|code| {
                self.status
                    .with_untracked(|s| s.get(code).is_none_or(|status| !self.open(*status)))
            })
            .collect();
        if !taken.is_empty() {
            self.selected.update(|s| s.retain(|c| !taken.contains(c)));
            self.conflicted.update(|c| c.extend(taken.iter().cloned()));
            self.notice.set(Some(Notice::TakenLive(taken)));
        }
    }

    /// Reloads the seats' statuses from the server.
    pub fn refresh(self) {
        let showtime = self.showtime;
        spawn_local(async move {
            if let Ok(map) = get_seat_map(showtime).await {
                let seats: Vec<SeatChange> = map
                    .seats
                    .into_iter()
                    .map(|s| SeatChange {
                        code: s.code,
                        status: s.status,
                        version: s.version,
                    })
                    .collect();
                self.apply(&seats, true);
            }
        });
    }

    /// Milliseconds left on the hold by server time; `None` without a hold or before the
    /// browser clock runs (the server renders the full time).
    pub fn remaining_ms(self) -> Option<i64> {
        let now = self.now_ms.get()?;
        self.hold.with(|h| {
            let h = h.as_ref()?;
            let total = (h.hold.expires_at - h.hold.server_time).num_milliseconds();
            // The ticking clock can lag the moment the hold arrived by up to a tick: never negative.
            let elapsed = (now - h.received_ms.unwrap_or(now)).max(0.0);
            Some(total - elapsed as i64)
        })
    }

    /// The full hold time, shown before the clock runs.
    pub fn hold_length_ms(self) -> i64 {
        self.hold.with(|h| {
            h.as_ref().map_or(0, |h| {
                (h.hold.expires_at - h.hold.server_time).num_milliseconds()
            })
        })
    }

    /// Starts the browser clock and ends the hold when its time is up.
    pub fn run_clock(self) {
        Effect::new(move |_| {
            let tick = move || {
                let now = browser_now();
                if self
                    .hold
                    .with_untracked(|h| h.as_ref().is_some_and(|h| h.received_ms.is_none()))
                {
                    self.hold.update(|h| {
                        if let Some(h) = h.as_mut() {
                            h.received_ms = Some(now);
                        }
                    });
                }
                self.now_ms.set(Some(now));
            };
            tick();
            if let Ok(handle) =
                set_interval_with_handle(tick, std::time::Duration::from_millis(250))
            {
                on_cleanup(move || handle.clear());
            }
        });
        Effect::new(move |_| {
            if self.retry_at_ms.with(Option::is_some) && self.retry_in_seconds().is_none() {
                self.retry_at_ms.set(None);
                if self
                    .notice
                    .with_untracked(|n| matches!(n, Some(Notice::RateLimited)))
                {
                    self.notice.set(None);
                }
            }
        });
        Effect::new(move |_| {
            if self.remaining_ms().is_some_and(|ms| ms <= 0) {
                self.hold.set(None);
                self.notice.set(Some(Notice::Expired));
                self.refresh();
            }
        });
    }
}
