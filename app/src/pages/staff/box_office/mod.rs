//! `/box-office`: the counter's kiosk, touch-first (every control at least 44 px). A clerk signs
//! in, opens a shift at a register with the cash float, then sells: a showtime (the next ones
//! first), seats on the live map or the best N in one tap — a hold the web sees at once, kept
//! while the sale is at the counter — the total, the tender (cash with the change due, card with
//! the terminal's reference, complimentary with a supervisor's PIN), the receipt and the tickets
//! to print (80 mm receipt paper or A4). Refunds need a supervisor's PIN; closing the shift
//! shows the expected cash and the variance. Idle for a while (two minutes, or `?idle=<seconds>`
//! in the kiosk's start address), the kiosk locks — releasing the seats picked and not sold —
//! until the clerk's PIN unlocks it. Without the server (the live feed down, or the browser
//! offline) it refuses to sell, with a banner, and queues nothing; back online, the map
//! resyncs.

mod lock;
mod prints;
mod returns;
mod sale;
mod shift;
mod tender;

use lock::*;
use prints::*;
use returns::*;
use sale::*;
use shift::*;
use tender::*;

use crate::domain::{
    Approval, CounterSale, CounterSaleRequest, PrintedTicket, SeatMap, Shift, ShowtimeId,
    ShowtimeSummary, Tender, Won,
};
use crate::error::InventoryError;
use crate::error_text::error_text;
use crate::format::{price, showtime_when, signed_price};
use crate::i18n::use_lang;
use crate::pages::seat_map::live;
use crate::pages::seat_map::picker::Picker;
use crate::pages::seat_map::plan::Plan;
use crate::pages::seat_map::{Legend, NoticeBar};
use crate::pages::staff::StaffRefusal;
use crate::serverfns::{
    approvers, box_office_shift, close_shift, exchange_at_counter, get_seat_map, list_showtimes,
    open_shift, print_ticket, refund_at_counter, sell_at_counter, staff_lock, staff_sign_out,
    staff_unlock,
};
use crate::tr;
use leptos::prelude::*;
use leptos::task::spawn_local;

/// Seconds without a touch or a key before the kiosk locks, unless its address says otherwise.
const DEFAULT_IDLE_SECONDS: u32 = 120;
/// Showtimes offered at once (the next ones first).
const SHOWTIMES_SHOWN: usize = 24;

#[component]
pub fn BoxOfficePage() -> impl IntoView {
    let lang = use_lang();
    let shift = crate::codec::resource(|| (), |_| box_office_shift());
    let hydrated = RwSignal::new(false);
    Effect::new(move |_| hydrated.set(true));
    view! {
        <section class="kiosk" data-test="kiosk" data-hydrated=move || hydrated.get().to_string()>
            <Suspense fallback=move || view! { <p>{tr!(lang.get_untracked(), "common.loading")}</p> }>
                {move || Suspend::new(async move {
                    match shift.await {
                        Ok(current) => view! { <Desk current /> }.into_any(),
                        Err(error) => view! { <StaffRefusal error here="/box-office" /> }.into_any(),
                    }
                })}
            </Suspense>
        </section>
    }
}

/// The error line every kiosk form shows under itself.
pub(super) fn error_line(
    lang: RwSignal<crate::i18n::Lang>,
    error: RwSignal<Option<InventoryError>>,
) -> impl IntoView {
    move || {
        error.get().map(|e| {
            view! { <p class="error" role="alert" data-test="kiosk-error">{error_text(lang.get(), &e)}</p> }
        })
    }
}

/// A supervisor's name and PIN, when the member acting is not one.
pub(super) fn approval(name: RwSignal<String>, pin: RwSignal<String>) -> Option<Approval> {
    let supervisor = name.get_untracked();
    (!supervisor.trim().is_empty()).then(|| Approval {
        supervisor,
        pin: pin.get_untracked(),
    })
}

/// The supervisor's approval: their name tapped in the list of those who may approve (no name
/// to type at a counter), and their PIN.
#[component]
pub(super) fn ApprovalFields(
    name: RwSignal<String>,
    pin: RwSignal<String>,
    id: &'static str,
) -> impl IntoView {
    let lang = use_lang();
    let list = crate::codec::resource(|| (), |_| approvers());
    let choose = move |who: String| {
        let (checked, active, pick, test) = (who.clone(), who.clone(), who.clone(), who.clone());
        view! {
            <button type="button" role="radio" class="approver"
                aria-checked=move || name.with(|n| *n == checked).to_string()
                class:active=move || name.with(|n| *n == active)
                on:click=move |_| name.set(pick.clone())
                data-test=format!("{id}-approver") data-name=test>
                {who}
            </button>
        }
    };
    view! {
        <fieldset class="approval" data-test=format!("{id}-approval")>
            <legend>{move || tr!(lang.get(), "kiosk.approval")}</legend>
            <div class="approvers" role="radiogroup" aria-label=move || tr!(lang.get(), "kiosk.supervisor")>
                <Suspense fallback=move || view! { <p>{tr!(lang.get_untracked(), "common.loading")}</p> }>
                    {move || Suspend::new(async move {
                        match list.await {
                            Ok(names) if names.is_empty() => view! {
                                <p class="hint" data-test=format!("{id}-no-approver")>{move || tr!(lang.get(), "kiosk.no_approver")}</p>
                            }.into_any(),
                            Ok(names) => names.into_iter().map(choose).collect_view().into_any(),
                            Err(e) => view! { <p class="error" role="alert">{move || error_text(lang.get(), &e)}</p> }.into_any(),
                        }
                    })}
                </Suspense>
            </div>
            <label for=format!("{id}-pin")>{move || tr!(lang.get(), "kiosk.supervisor_pin")}</label>
            <input id=format!("{id}-pin") type="password" inputmode="numeric" autocomplete="off"
                bind:value=pin data-test=format!("{id}-pin") />
        </fieldset>
    }
}

#[component]
pub(super) fn Desk(current: Option<Shift>) -> impl IntoView {
    let shift = RwSignal::new(current);
    view! {
        <Show when=move || shift.with(Option::is_some) fallback=move || view! { <OpenShift shift /> }>
            <Counter shift />
        </Show>
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Tab {
    Sell,
    Refund,
    Close,
}

/// Seconds the kiosk may stay idle (`?idle=` in its address, else two minutes).
pub(super) fn idle_seconds() -> u32 {
    let query = leptos_router::hooks::use_query_map();
    query
        .with_untracked(|q| q.get("idle"))
        .and_then(|s| s.parse::<u32>().ok())
        .filter(|s| *s > 0)
        .unwrap_or(DEFAULT_IDLE_SECONDS)
}

#[component]
pub(super) fn Counter(shift: RwSignal<Option<Shift>>) -> impl IntoView {
    let lang = use_lang();
    let tab = RwSignal::new(Tab::Sell);
    let locked = RwSignal::new(false);
    // Bumped to start the sale over (a lock, a finished sale): the sale's state is dropped.
    let sale_round = RwSignal::new(0u32);
    let browser_online = RwSignal::new(true);
    watch_idle(idle_seconds(), locked, sale_round);
    watch_network(browser_online);
    let header = move || {
        shift.get().map(|s| {
            view! {
                <span data-test="shift-register">{tr!(lang.get(), "kiosk.register")} " " {s.register.clone()}</span>
                <span data-test="shift-clerk">{s.clerk.clone()}</span>
            }
        })
    };
    let tab_button = move |which: Tab, key: &'static str, test: &'static str| {
        view! {
            <button type="button" role="tab" aria-selected=move || (tab.get() == which).to_string()
                class:active=move || tab.get() == which on:click=move |_| tab.set(which) data-test=test>
                {move || crate::i18n::translate(lang.get(), key, &[])}
            </button>
        }
    };
    let lock = move |_| {
        spawn_local(async move {
            if staff_lock().await.is_ok() {
                locked.set(true);
                sale_round.update(|r| *r += 1);
            }
        });
    };
    view! {
        <header class="kiosk-bar">
            {header}
            <nav role="tablist" class="kiosk-tabs">
                {tab_button(Tab::Sell, "kiosk.sell", "tab-sell")}
                {tab_button(Tab::Refund, "kiosk.refund", "tab-refund")}
                {tab_button(Tab::Close, "kiosk.close_shift", "tab-close")}
            </nav>
            <button type="button" on:click=lock data-test="lock">{move || tr!(lang.get(), "kiosk.lock")}</button>
        </header>
        <Show when=move || !browser_online.get()>
            <p class="offline-banner" role="alert" data-test="offline-banner">{move || tr!(lang.get(), "kiosk.offline")}</p>
        </Show>
        {move || match tab.get() {
            Tab::Sell => {
                let _ = sale_round.get();
                view! { <Sell browser_online sale_round /> }.into_any()
            }
            Tab::Refund => view! { <Refund /> }.into_any(),
            Tab::Close => view! { <CloseShift shift /> }.into_any(),
        }}
        <Show when=move || locked.get()>
            <LockScreen locked />
        </Show>
    }
}
