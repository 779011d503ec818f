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

use super::seat_map::live;
use super::seat_map::picker::Picker;
use super::seat_map::plan::Plan;
use super::seat_map::{Legend, NoticeBar};
use super::staff::StaffRefusal;
use crate::domain::{
    Approval, CounterSale, CounterSaleRequest, PrintedTicket, SeatMap, Shift, ShowtimeId,
    ShowtimeSummary, Tender,
};
use crate::error::InventoryError;
use crate::format::{price, showtime_when, signed_price};
use crate::i18n::{error_text, use_lang};
use crate::serverfns::{
    box_office_shift, close_shift, exchange_at_counter, get_seat_map, list_showtimes, open_shift,
    print_ticket, refund_at_counter, sell_at_counter, staff_lock, staff_sign_out, staff_unlock,
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
    let shift = Resource::new(|| (), |_| box_office_shift());
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
fn error_line(
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
fn approval(name: RwSignal<String>, pin: RwSignal<String>) -> Option<Approval> {
    let supervisor = name.get_untracked();
    (!supervisor.trim().is_empty()).then(|| Approval {
        supervisor,
        pin: pin.get_untracked(),
    })
}

/// The supervisor's name and PIN fields.
#[component]
fn ApprovalFields(
    name: RwSignal<String>,
    pin: RwSignal<String>,
    id: &'static str,
) -> impl IntoView {
    let lang = use_lang();
    view! {
        <fieldset class="approval" data-test=format!("{id}-approval")>
            <legend>{move || tr!(lang.get(), "kiosk.approval")}</legend>
            <label for=format!("{id}-supervisor")>{move || tr!(lang.get(), "kiosk.supervisor")}</label>
            <input id=format!("{id}-supervisor") autocomplete="off" autocapitalize="none"
                bind:value=name data-test=format!("{id}-supervisor") />
            <label for=format!("{id}-pin")>{move || tr!(lang.get(), "kiosk.supervisor_pin")}</label>
            <input id=format!("{id}-pin") type="password" inputmode="numeric" autocomplete="off"
                bind:value=pin data-test=format!("{id}-pin") />
        </fieldset>
    }
}

#[component]
fn Desk(current: Option<Shift>) -> impl IntoView {
    let shift = RwSignal::new(current);
    view! {
        <Show when=move || shift.with(Option::is_some) fallback=move || view! { <OpenShift shift /> }>
            <Counter shift />
        </Show>
    }
}

#[component]
fn OpenShift(shift: RwSignal<Option<Shift>>) -> impl IntoView {
    let lang = use_lang();
    let register = RwSignal::new(String::from("1"));
    let float = RwSignal::new(String::from("100000"));
    let error = RwSignal::new(None::<InventoryError>);
    let busy = RwSignal::new(false);
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let Ok(amount) = float.get_untracked().trim().parse::<i64>() else {
            error.set(Some(InventoryError::InvalidRequest(tr!(
                lang.get_untracked(),
                "kiosk.float_number"
            ))));
            return;
        };
        busy.set(true);
        spawn_local(async move {
            match open_shift(register.get_untracked(), amount).await {
                Ok(opened) => shift.set(Some(opened)),
                Err(e) => error.set(Some(e)),
            }
            busy.set(false);
        });
    };
    view! {
        <form class="kiosk-card" on:submit=submit data-test="open-shift">
            <h1>{move || tr!(lang.get(), "kiosk.open_shift")}</h1>
            <label for="register">{move || tr!(lang.get(), "kiosk.register")}</label>
            <input id="register" required bind:value=register data-test="register" />
            <label for="float">{move || tr!(lang.get(), "kiosk.float")}</label>
            <input id="float" inputmode="numeric" required bind:value=float data-test="float" />
            <button type="submit" class="primary" disabled=move || busy.get() data-test="open-shift-button">
                {move || tr!(lang.get(), "kiosk.open_shift")}
            </button>
            {error_line(lang, error)}
        </form>
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Tab {
    Sell,
    Refund,
    Close,
}

/// Seconds the kiosk may stay idle (`?idle=` in its address, else two minutes).
fn idle_seconds() -> u32 {
    let query = leptos_router::hooks::use_query_map();
    query
        .with_untracked(|q| q.get("idle"))
        .and_then(|s| s.parse::<u32>().ok())
        .filter(|s| *s > 0)
        .unwrap_or(DEFAULT_IDLE_SECONDS)
}

#[component]
fn Counter(shift: RwSignal<Option<Shift>>) -> impl IntoView {
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

/// Locks the kiosk after `seconds` without a touch, a click or a key.
fn watch_idle(seconds: u32, locked: RwSignal<bool>, sale_round: RwSignal<u32>) {
    Effect::new(move |_| {
        let last = StoredValue::new(js_sys::Date::now());
        let touched = move |_| last.set_value(js_sys::Date::now());
        let handles = [
            window_event_listener(leptos::ev::pointerdown, touched),
            window_event_listener(leptos::ev::keydown, move |_| {
                last.set_value(js_sys::Date::now())
            }),
        ];
        let check = move || {
            if locked.get_untracked() {
                last.set_value(js_sys::Date::now());
                return;
            }
            if js_sys::Date::now() - last.get_value() >= f64::from(seconds) * 1000.0 {
                last.set_value(js_sys::Date::now());
                spawn_local(async move {
                    if staff_lock().await.is_ok() {
                        locked.set(true);
                        sale_round.update(|r| *r += 1);
                    }
                });
            }
        };
        let interval = set_interval_with_handle(check, std::time::Duration::from_millis(500));
        on_cleanup(move || {
            for h in handles {
                h.remove();
            }
            if let Ok(i) = interval {
                i.clear();
            }
        });
    });
}

/// Follows the browser's own view of the network (`online`/`offline` events).
fn watch_network(online: RwSignal<bool>) {
    Effect::new(move |_| {
        // `navigator.onLine`, read without another web-sys feature.
        let navigator = js_sys::Reflect::get(&window(), &"navigator".into()).ok();
        let on_line = navigator.and_then(|n| js_sys::Reflect::get(&n, &"onLine".into()).ok());
        online.set(on_line.and_then(|v| v.as_bool()).unwrap_or(true));
        let handles = [
            window_event_listener(leptos::ev::online, move |_| online.set(true)),
            window_event_listener(leptos::ev::offline, move |_| online.set(false)),
        ];
        on_cleanup(move || {
            for h in handles {
                h.remove();
            }
        });
    });
}

#[component]
fn LockScreen(locked: RwSignal<bool>) -> impl IntoView {
    let lang = use_lang();
    let pin = RwSignal::new(String::new());
    let error = RwSignal::new(None::<InventoryError>);
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let given = pin.get_untracked();
        spawn_local(async move {
            match staff_unlock(given).await {
                Ok(()) => {
                    pin.set(String::new());
                    error.set(None);
                    locked.set(false);
                }
                Err(InventoryError::StaffSignInRequired) => {
                    let _ = window()
                        .location()
                        .set_href("/staff/sign-in?next=/box-office");
                }
                Err(e) => error.set(Some(e)),
            }
        });
    };
    let sign_out = move |_| {
        spawn_local(async move {
            let _ = staff_sign_out().await;
            let _ = window()
                .location()
                .set_href("/staff/sign-in?next=/box-office");
        });
    };
    view! {
        <div class="lock-screen" role="dialog" aria-modal="true" aria-labelledby="lock-title" data-test="lock-screen">
            <form class="kiosk-card" on:submit=submit>
                <h1 id="lock-title">{move || tr!(lang.get(), "kiosk.locked")}</h1>
                <label for="unlock-pin">{move || tr!(lang.get(), "kiosk.your_pin")}</label>
                <input id="unlock-pin" type="password" inputmode="numeric" autocomplete="off" bind:value=pin data-test="unlock-pin" />
                <button type="submit" class="primary" data-test="unlock">{move || tr!(lang.get(), "kiosk.unlock")}</button>
                {error_line(lang, error)}
                // Signing out releases the clerk's picks; the next clerk signs in.
                <button type="button" class="secondary" on:click=sign_out data-test="lock-sign-out">
                    {move || tr!(lang.get(), "staff.sign_out")}
                </button>
                <p><a href="/staff/sign-in?next=/box-office" rel="external">{move || tr!(lang.get(), "kiosk.other_clerk")}</a></p>
            </form>
        </div>
    }
}

/// Showtimes a counter sells now: not started, not cancelled, the next ones first.
fn upcoming(mut list: Vec<ShowtimeSummary>) -> Vec<ShowtimeSummary> {
    list.retain(|s| s.sales_open && !s.cancelled);
    list.sort_by_key(|s| s.starts_at);
    list.truncate(SHOWTIMES_SHOWN);
    list
}

#[component]
fn Sell(browser_online: RwSignal<bool>, sale_round: RwSignal<u32>) -> impl IntoView {
    let lang = use_lang();
    let showtimes = Resource::new(|| (), |_| list_showtimes());
    let chosen = RwSignal::new(None::<ShowtimeId>);
    view! {
        <Suspense fallback=move || view! { <p>{tr!(lang.get_untracked(), "common.loading")}</p> }>
            {move || Suspend::new(async move {
                match showtimes.await {
                    Ok(list) => {
                        let list = upcoming(list);
                        view! {
                            <div class="kiosk-showtimes" role="group" aria-label=move || tr!(lang.get(), "kiosk.showtimes") data-test="kiosk-showtimes">
                                {list.into_iter().map(|s| {
                                    let id = s.id;
                                    let when = s.starts_at;
                                    // Once one is chosen, the others step aside for the map.
                                    let hidden = move || chosen.get().is_some_and(|c| c != id);
                                    view! {
                                        <button type="button" class="showtime-tile" aria-pressed=move || (chosen.get() == Some(id)).to_string()
                                            class:hidden=hidden on:click=move |_| chosen.set(Some(id)) data-test="kiosk-showtime" data-id=id.to_string()>
                                            <strong>{s.movie_title.clone()}</strong>
                                            <span>{move || showtime_when(lang.get(), when)}</span>
                                            <span>{s.hall_name.clone()} " · " {s.seats_available} " / " {s.seats_total}</span>
                                        </button>
                                    }
                                }).collect_view()}
                                <Show when=move || chosen.with(Option::is_some)>
                                    <button type="button" on:click=move |_| chosen.set(None) data-test="change-showtime">
                                        {move || tr!(lang.get(), "kiosk.change_showtime")}
                                    </button>
                                </Show>
                            </div>
                        }.into_any()
                    }
                    Err(e) => view! { <p class="error" role="alert">{move || error_text(lang.get(), &e)}</p> }.into_any(),
                }
            })}
        </Suspense>
        {move || chosen.get().map(|id| view! { <SaleMap showtime=id browser_online sale_round /> })}
    }
}

#[component]
fn SaleMap(
    showtime: ShowtimeId,
    browser_online: RwSignal<bool>,
    sale_round: RwSignal<u32>,
) -> impl IntoView {
    let lang = use_lang();
    let map = Resource::new(move || showtime, get_seat_map);
    view! {
        <Suspense fallback=move || view! { <p>{tr!(lang.get_untracked(), "common.loading")}</p> }>
            {move || Suspend::new(async move {
                match map.await {
                    Ok(map) => view! { <Sale map browser_online sale_round /> }.into_any(),
                    Err(e) => view! { <p class="error" role="alert">{move || error_text(lang.get(), &e)}</p> }.into_any(),
                }
            })}
        </Suspense>
    }
}

#[component]
fn Sale(map: SeatMap, browser_online: RwSignal<bool>, sale_round: RwSignal<u32>) -> impl IntoView {
    let lang = use_lang();
    let picker = Picker::for_kiosk(&map);
    live::run(picker);
    // Back online: read the map again (the live feed resyncs by itself when it reconnects).
    Effect::new(move |was_online: Option<bool>| {
        let now = browser_online.get();
        if now && was_online == Some(false) {
            picker.refresh();
        }
        now
    });
    let online = Memo::new(move |_| picker.online.get() && browser_online.get());
    let sold = RwSignal::new(None::<CounterSale>);
    let exchanged = RwSignal::new(None::<crate::domain::CounterExchange>);
    let when = map.starts_at;
    let best = move |count: usize| {
        view! {
            <button type="button" class="best" disabled=move || !online.get() || picker.pending.get() || picker.hold.with(Option::is_some)
                on:click=move |_| picker.hold_best(count) data-test=format!("best-{count}")>
                {move || tr!(lang.get(), "kiosk.best", count = count)}
            </button>
        }
    };
    view! {
        <Show when=move || !picker.online.get() && browser_online.get()>
            <p class="offline-banner" role="alert" data-test="offline-banner">{move || tr!(lang.get(), "kiosk.offline")}</p>
        </Show>
        <div class="kiosk-sale" data-test="kiosk-sale" data-online=move || online.get().to_string()>
            <div class="kiosk-map">
                <h2>{map.movie_title.clone()} " · " {move || showtime_when(lang.get(), when)}</h2>
                <Legend categories=map.categories.clone() />
                <NoticeBar picker />
                <div class="stage">
                    <div class="screen" aria-hidden="true">{move || tr!(lang.get(), "map.screen")}</div>
                    <Plan picker />
                </div>
            </div>
            <aside class="kiosk-side">
                {move || match sold.get() {
                    Some(sale) => view! { <Receipt sale sold sale_round /> }.into_any(),
                    None => view! {
                        <div class="best-row" role="group" aria-label=move || tr!(lang.get(), "kiosk.best_label")>
                            {(1..=6).map(best).collect_view()}
                        </div>
                        <Show when=move || picker.hold.with(Option::is_none)>
                            <button type="button" class="primary" data-test="hold-selected"
                                disabled=move || !online.get() || picker.pending.get() || picker.selected.with(|s| s.is_empty())
                                on:click=move |_| picker.hold_selected()>
                                {move || tr!(lang.get(), "kiosk.hold_selected", count = picker.selected.with(|s| s.len()))}
                            </button>
                        </Show>
                        {move || exchanged.get().map(|x| view! {
                            <p class="notice ok" role="status" data-test="exchange-done">
                                {tr!(lang.get(), "kiosk.exchanged", from = x.released.join(", "), to = x.booked.join(", "))}
                            </p>
                        })}
                        <Show when=move || picker.hold.with(Option::is_some)>
                            <Tender picker online sold exchanged />
                        </Show>
                    }.into_any(),
                }}
            </aside>
        </div>
    }
}

/// The total of the clerk's held seats.
fn held_total(picker: Picker) -> i64 {
    let held: std::collections::BTreeSet<String> = picker.hold.with(|h| {
        h.as_ref()
            .map(|h| h.hold.seats.iter().map(|s| s.to_string()).collect())
            .unwrap_or_default()
    });
    picker
        .seats
        .with_value(|seats| crate::seating::total(seats, &held))
}

#[component]
fn Tender(
    picker: Picker,
    online: Memo<bool>,
    sold: RwSignal<Option<CounterSale>>,
    exchanged: RwSignal<Option<crate::domain::CounterExchange>>,
) -> impl IntoView {
    let lang = use_lang();
    let tender = RwSignal::new(Tender::Cash);
    let tendered = RwSignal::new(String::new());
    let reference = RwSignal::new(String::new());
    let supervisor = RwSignal::new(String::new());
    let pin = RwSignal::new(String::new());
    let exchanging = RwSignal::new(false);
    let exchange_booking = RwSignal::new(String::new());
    let exchange_seats = RwSignal::new(String::new());
    let error = RwSignal::new(None::<InventoryError>);
    let busy = RwSignal::new(false);
    let total = Memo::new(move |_| held_total(picker));
    let given = move || tendered.with(|t| t.trim().parse::<i64>().ok());
    let change = move || given().map(|g| g - total.get());
    let seats = move || {
        picker.hold.with(|h| {
            h.as_ref()
                .map(|h| {
                    crate::seating::reading_order(h.hold.seats.iter().map(|s| s.to_string()))
                        .join(", ")
                })
                .unwrap_or_default()
        })
    };
    let exchange = move || {
        let Some(hold) = picker.hold.get_untracked() else {
            return;
        };
        let request = crate::domain::CounterExchangeRequest {
            booking: exchange_booking.get_untracked(),
            seats: seat_list(&exchange_seats.get_untracked()).unwrap_or_default(),
            hold_id: hold.hold.hold_id,
            approval: approval(supervisor, pin),
        };
        busy.set(true);
        spawn_local(async move {
            match exchange_at_counter(request).await {
                Ok(done) => {
                    picker.hold.set(None);
                    picker.refresh();
                    error.set(None);
                    exchanged.set(Some(done));
                }
                Err(e) => error.set(Some(e)),
            }
            busy.set(false);
        });
    };
    let sell = move |_| {
        let Some(hold) = picker.hold.get_untracked() else {
            return;
        };
        if !online.get_untracked() {
            return;
        }
        if exchanging.get_untracked() {
            exchange();
            return;
        }
        let which = tender.get_untracked();
        let request = CounterSaleRequest {
            hold_id: hold.hold.hold_id,
            tender: which,
            tendered: (which == Tender::Cash).then(given).flatten(),
            card_reference: (which == Tender::Card).then(|| reference.get_untracked()),
            approval: (which == Tender::Comp)
                .then(|| approval(supervisor, pin))
                .flatten(),
        };
        busy.set(true);
        spawn_local(async move {
            match sell_at_counter(request).await {
                Ok(sale) => {
                    picker.hold.set(None);
                    picker.refresh();
                    sold.set(Some(sale));
                }
                Err(e) => error.set(Some(e)),
            }
            busy.set(false);
        });
    };
    let tender_button = move |which: Tender, key: &'static str| {
        view! {
            <button type="button" role="radio" aria-checked=move || (tender.get() == which).to_string()
                class:active=move || tender.get() == which on:click=move |_| tender.set(which)
                data-test=format!("tender-{}", which.as_str())>
                {move || crate::i18n::translate(lang.get(), key, &[])}
            </button>
        }
    };
    view! {
        <section class="tender" data-test="tender">
            <p class="held-seats" data-test="held-seats">{seats}</p>
            <p class="total">{move || tr!(lang.get(), "kiosk.total")} " " <strong data-test="sale-total">{move || price(lang.get(), total.get())}</strong></p>
            <div class="tenders" role="radiogroup" aria-label=move || tr!(lang.get(), "kiosk.tender")>
                {tender_button(Tender::Cash, "kiosk.cash")}
                {tender_button(Tender::Card, "kiosk.card")}
                {tender_button(Tender::Comp, "kiosk.comp")}
            </div>
            {move || match tender.get() {
                Tender::Cash => view! {
                    <label for="tendered">{move || tr!(lang.get(), "kiosk.tendered")}</label>
                    <input id="tendered" inputmode="numeric" autocomplete="off" bind:value=tendered data-test="tendered" />
                    <p class="change" data-test="change-due">
                        {move || match change() {
                            Some(c) if c >= 0 => tr!(lang.get(), "kiosk.change_due", amount = price(lang.get(), c)),
                            Some(_) => tr!(lang.get(), "kiosk.short"),
                            None => String::new(),
                        }}
                    </p>
                }.into_any(),
                Tender::Card => view! {
                    <label for="card-ref">{move || tr!(lang.get(), "kiosk.card_reference")}</label>
                    <input id="card-ref" autocomplete="off" bind:value=reference data-test="card-reference" />
                }.into_any(),
                Tender::Comp => view! { <ApprovalFields name=supervisor pin id="comp" /> }.into_any(),
            }}
            <label class="check">
                <input type="checkbox" bind:checked=exchanging data-test="exchange-toggle" />
                {move || tr!(lang.get(), "kiosk.exchange")}
            </label>
            <Show when=move || exchanging.get()>
                <label for="exchange-booking">{move || tr!(lang.get(), "kiosk.scan_or_reference")}</label>
                <input id="exchange-booking" autocomplete="off" autocapitalize="none" bind:value=exchange_booking data-test="exchange-booking" />
                <label for="exchange-seats">{move || tr!(lang.get(), "kiosk.exchange_seats")}</label>
                <input id="exchange-seats" autocomplete="off" autocapitalize="characters" bind:value=exchange_seats data-test="exchange-seats" />
                <Show when=move || tender.get() != Tender::Comp>
                    <ApprovalFields name=supervisor pin id="exchange" />
                </Show>
            </Show>

            <button type="button" class="primary sell" data-test="sell"
                disabled=move || busy.get() || !online.get() || (!exchanging.get() && tender.get() == Tender::Cash && change().is_none_or(|c| c < 0))
                on:click=sell>
                {move || tr!(lang.get(), "kiosk.complete_sale")}
            </button>
            <button type="button" data-test="cancel-sale" disabled=move || busy.get() on:click=move |_| picker.cancel()>
                {move || tr!(lang.get(), "kiosk.cancel_sale")}
            </button>
            {error_line(lang, error)}
        </section>
    }
}

#[component]
fn Receipt(
    sale: CounterSale,
    sold: RwSignal<Option<CounterSale>>,
    sale_round: RwSignal<u32>,
) -> impl IntoView {
    let lang = use_lang();
    let ticket = RwSignal::new(None::<PrintedTicket>);
    let error = RwSignal::new(None::<InventoryError>);
    let busy = RwSignal::new(false);
    let booking = sale.booking_id.0.to_string();
    let print = move |_| {
        if busy.get_untracked() {
            return;
        }
        busy.set(true);
        let booking = booking.clone();
        spawn_local(async move {
            let printed = print_ticket(booking, None).await;
            busy.set(false);
            match printed {
                Ok(t) => {
                    ticket.set(Some(t));
                    // The browser's print dialog, once the tickets are on the page.
                    set_timeout(
                        || {
                            let _ = window().print();
                        },
                        std::time::Duration::from_millis(50),
                    );
                }
                Err(e) => error.set(Some(e)),
            }
        });
    };
    let amount = sale.amount;
    let change = sale.change;
    let slip = sale.clone();
    view! {
        <section class="receipt" data-test="receipt" aria-live="polite">
            <h2>{move || tr!(lang.get(), "kiosk.sold")}</h2>
            <p>{sale.seats.join(", ")}</p>
            <p class="reference">{move || tr!(lang.get(), "kiosk.reference")} " "
                <code data-test="receipt-booking">{sale.booking_id.0.to_string()}</code></p>
            <p>{move || tr!(lang.get(), "kiosk.total")} " " <strong>{move || price(lang.get(), amount)}</strong></p>
            {change.map(|c| view! {
                <p class="change" data-test="receipt-change">{move || tr!(lang.get(), "kiosk.change_due", amount = price(lang.get(), c))}</p>
            })}
            // Printed once from here; a reprint is a supervisor's (the Refund tab).
            <button type="button" class="primary" on:click=print data-test="print"
                disabled=move || busy.get() || ticket.with(Option::is_some)>
                {move || tr!(lang.get(), "kiosk.print")}
            </button>
            <button type="button" on:click=move |_| { sold.set(None); sale_round.update(|r| *r += 1); } data-test="next-customer">
                {move || tr!(lang.get(), "kiosk.next_customer")}
            </button>
            {error_line(lang, error)}
        </section>
        {move || ticket.get().map(|t| view! { <PrintView ticket=t slip=slip.clone() /> })}
    }
}

/// The tickets as printed: one per seat, each with the booking's QR code.
#[component]
fn PrintView(
    ticket: PrintedTicket,
    /// The sale's receipt, printed before the tickets (not for a reprint).
    #[prop(optional)]
    slip: Option<CounterSale>,
) -> impl IntoView {
    let lang = use_lang();
    let slip = slip.map(|sale| {
        let l = lang.get_untracked();
        let tender = match sale.tender {
            Tender::Cash => tr!(l, "kiosk.cash"),
            Tender::Card => tr!(l, "kiosk.card"),
            Tender::Comp => tr!(l, "kiosk.comp"),
        };
        view! {
            <article class="printed-ticket printed-receipt" data-test="printed-receipt">
                <p class="venue">{ticket.venue.clone()}</p>
                <h3>{tr!(l, "kiosk.receipt")}</h3>
                <p>{crate::seating::reading_order(&sale.seats).join(", ")}</p>
                <p>{tr!(l, "kiosk.total")} " " <strong>{price(l, sale.amount)}</strong></p>
                <p>{tender}</p>
                {sale.tendered.map(|t| view! { <p>{tr!(l, "kiosk.tendered")} ": " {price(l, t)}</p> })}
                {sale.change.map(|c| view! { <p class="receipt-change">{tr!(l, "kiosk.change_due", amount = price(l, c))}</p> })}
                {sale.card_reference.clone().map(|r| view! { <p>{tr!(l, "kiosk.card_reference")} ": " {r}</p> })}
                <p class="ticket-code">{sale.booking_id.0.to_string()}</p>
            </article>
        }
    });
    let when = ticket.starts_at;
    let reference = ticket.booking_id.reference();
    let PrintedTicket {
        seats,
        reprint,
        venue,
        movie_title,
        hall_name,
        ..
    } = ticket;
    view! {
        <div class="print-area" data-test="print-view">
            {slip}
            {seats.into_iter().map(|seat| {
                let reference = reference.clone();
                let (row, number, price_of) = (seat.row.clone(), seat.number.clone(), seat.price);
                view! {
                    <article class="printed-ticket" data-test="printed-ticket">
                        {(reprint > 0).then(|| view! { <p class="reprint" data-test="reprint">{format!("REPRINT {reprint}")}</p> })}
                        <p class="venue">{venue.clone()}</p>
                        <h3>{movie_title.clone()}</h3>
                        <p>{hall_name.clone()}</p>
                        <p>{move || showtime_when(lang.get(), when)}</p>
                        <p class="ticket-seat">{move || tr!(lang.get(), "kiosk.row_seat", row = row.clone(), number = number.clone())}</p>
                        <p>{seat.category.clone()} " · " {move || price(lang.get(), price_of)}</p>
                        // Each seat's own code: it admits this seat alone.
                        <div class="qr" inner_html=seat.qr_svg.clone()></div>
                        <p class="reference">{move || tr!(lang.get(), "kiosk.reference")} " " {reference.clone()}</p>
                        <p class="ticket-code" data-test="ticket-code">{seat.ticket_code.clone()}</p>
                    </article>
                }
            }).collect_view()}
        </div>
    }
}

/// Seat codes typed as `H9, H10` (none: `None`, the whole booking).
fn seat_list(text: &str) -> Option<Vec<String>> {
    let seats: Vec<String> = text
        .split([',', ' '])
        .map(|s| s.trim().to_uppercase())
        .filter(|s| !s.is_empty())
        .collect();
    (!seats.is_empty()).then_some(seats)
}

/// A booking found by its ticket or reference: refund it (whole, or some seats) or reprint it,
/// with a supervisor's approval.
#[component]
fn Refund() -> impl IntoView {
    let lang = use_lang();
    let reference = RwSignal::new(String::new());
    let seats = RwSignal::new(String::new());
    let supervisor = RwSignal::new(String::new());
    let pin = RwSignal::new(String::new());
    let error = RwSignal::new(None::<InventoryError>);
    let done = RwSignal::new(None::<crate::domain::CounterRefund>);
    let reprinted = RwSignal::new(None::<PrintedTicket>);
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let request = crate::domain::CounterRefundRequest {
            booking: reference.get_untracked(),
            seats: seat_list(&seats.get_untracked()),
            approval: approval(supervisor, pin),
        };
        spawn_local(async move {
            match refund_at_counter(request).await {
                Ok(r) => {
                    error.set(None);
                    pin.set(String::new());
                    done.set(Some(r));
                }
                Err(e) => error.set(Some(e)),
            }
        });
    };
    let reprint = move |_| {
        let (booking, given) = (reference.get_untracked(), approval(supervisor, pin));
        spawn_local(async move {
            match print_ticket(booking, given).await {
                Ok(t) => {
                    error.set(None);
                    pin.set(String::new());
                    reprinted.set(Some(t));
                    set_timeout(
                        || {
                            let _ = window().print();
                        },
                        std::time::Duration::from_millis(50),
                    );
                }
                Err(e) => error.set(Some(e)),
            }
        });
    };
    view! {
        <form class="kiosk-card" on:submit=submit data-test="refund-form">
            <h1>{move || tr!(lang.get(), "kiosk.refund")}</h1>
            <label for="refund-ref">{move || tr!(lang.get(), "kiosk.scan_or_reference")}</label>
            <input id="refund-ref" autocomplete="off" autocapitalize="none" bind:value=reference data-test="refund-reference" />
            <label for="refund-seats">{move || tr!(lang.get(), "kiosk.refund_seats")}</label>
            <input id="refund-seats" autocomplete="off" autocapitalize="characters" bind:value=seats data-test="refund-seats" />
            <ApprovalFields name=supervisor pin id="refund" />
            <button type="submit" class="primary" data-test="refund-button">{move || tr!(lang.get(), "kiosk.refund")}</button>
            <button type="button" on:click=reprint data-test="reprint-button">{move || tr!(lang.get(), "kiosk.reprint")}</button>
            {error_line(lang, error)}
            {move || done.get().map(|r| {
                let seats: Vec<String> = r.seats.iter().map(|s| s.code.to_string()).collect();
                view! {
                    <p class="notice ok" role="status" data-test="refund-done">
                        {tr!(lang.get(), "kiosk.refunded", seats = seats.join(", "), amount = price(lang.get(), r.amount), method = r.method.clone())}
                    </p>
                }
            })}
        </form>
        <div class="kiosk-side">{move || reprinted.get().map(|t| view! { <PrintView ticket=t /> })}</div>
    }
}

#[component]
fn CloseShift(shift: RwSignal<Option<Shift>>) -> impl IntoView {
    let lang = use_lang();
    let latest = Resource::new(|| (), |_| box_office_shift());
    let counted = RwSignal::new(String::new());
    let error = RwSignal::new(None::<InventoryError>);
    let closed = RwSignal::new(None::<Shift>);
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let Ok(amount) = counted.get_untracked().trim().parse::<i64>() else {
            error.set(Some(InventoryError::InvalidRequest(tr!(
                lang.get_untracked(),
                "kiosk.counted_number"
            ))));
            return;
        };
        spawn_local(async move {
            match close_shift(None, amount).await {
                Ok(s) => closed.set(Some(s)),
                Err(e) => error.set(Some(e)),
            }
        });
    };
    view! {
        <Suspense fallback=move || view! { <p>{tr!(lang.get_untracked(), "common.loading")}</p> }>
            {move || Suspend::new(async move {
                let current = latest.await.ok().flatten();
                view! {
                    {move || match closed.get().or_else(|| current.clone()) {
                        Some(s) => view! { <ShiftFigures shift=s /> }.into_any(),
                        None => ().into_any(),
                    }}
                }
            })}
        </Suspense>
        <Show when=move || closed.with(Option::is_none) fallback=move || view! {
            <button type="button" class="primary" data-test="new-shift" on:click=move |_| shift.set(None)>
                {move || tr!(lang.get(), "kiosk.open_shift")}
            </button>
        }>
            <form class="kiosk-card" on:submit=submit data-test="close-shift-form">
                <label for="counted">{move || tr!(lang.get(), "kiosk.counted")}</label>
                <input id="counted" inputmode="numeric" autocomplete="off" bind:value=counted data-test="counted" />
                <button type="submit" class="primary" data-test="close-shift-button">{move || tr!(lang.get(), "kiosk.close_shift")}</button>
                {error_line(lang, error)}
            </form>
        </Show>
    }
}

#[component]
fn ShiftFigures(shift: Shift) -> impl IntoView {
    let lang = use_lang();
    let f = shift.figures.clone();
    let expected = shift.expected_cash();
    let variance = shift.variance();
    let counted = shift.counted;
    let row = move |key: &'static str, value: String, test: &'static str| {
        view! { <tr><th scope="row">{move || crate::i18n::translate(lang.get(), key, &[])}</th><td class="num" data-test=test>{value}</td></tr> }
    };
    let l = lang.get_untracked();
    view! {
        <table class="shift-figures" data-test="shift-figures" data-closed=shift.closed_at.is_some().to_string()>
            <tbody>
                {row("kiosk.float", price(l, shift.float), "fig-float")}
                {row("kiosk.cash_sales", format!("{} · {}", f.cash_sales, price(l, f.cash_amount)), "fig-cash")}
                {row("kiosk.card_sales", format!("{} · {}", f.card_sales, price(l, f.card_amount)), "fig-card")}
                {row("kiosk.comps", format!("{} · {}", f.comp_sales, f.comp_seats), "fig-comp")}
                {row("kiosk.cash_refunds", format!("{} · {}", f.cash_refunds, price(l, f.cash_refunded)), "fig-cash-refunds")}
                {row("kiosk.other_refunds", format!("{} · {}", f.other_refunds, price(l, f.other_refunded)), "fig-other-refunds")}
                {row("kiosk.expected_cash", price(l, expected), "fig-expected")}
                {counted.map(|c| row("kiosk.counted", price(l, c), "fig-counted"))}
                {variance.map(|v| row("kiosk.variance", signed_price(l, v), "fig-variance"))}
            </tbody>
        </table>
    }
}
