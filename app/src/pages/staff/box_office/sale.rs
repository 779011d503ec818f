//! Selling: the showtimes, the live map of the one chosen, the clerk's pick.

use super::*;

/// Showtimes a counter sells now: not started, not cancelled, the next ones first.
pub(super) fn upcoming(mut list: Vec<ShowtimeSummary>) -> Vec<ShowtimeSummary> {
    list.retain(|s| s.sales_open && !s.cancelled);
    ShowtimeSummary::sort_by_start(&mut list);
    list.truncate(SHOWTIMES_SHOWN);
    list
}

#[component]
pub(super) fn Sell(browser_online: RwSignal<bool>, sale_round: RwSignal<u32>) -> impl IntoView {
    let lang = use_lang();
    let showtimes = crate::codec::resource(|| (), |_| list_showtimes());
    let chosen = RwSignal::new(None::<ShowtimeId>);
    view! {
        <Suspense fallback=move || view! { <p>{tr!(lang.get_untracked(), "common.loading")}</p> }>
            {move || Suspend::new(async move {
                match showtimes.await {
                    Ok(list) => {
                        let list = upcoming(list);
                        view! {
                            // Once one is chosen the list steps aside for its map (the map's heading
                            // offers the others again).
                            <div class="kiosk-showtimes" class:hidden=move || chosen.with(Option::is_some) role="group"
                                aria-label=move || tr!(lang.get(), "kiosk.showtimes") data-test="kiosk-showtimes">
                                {list.into_iter().map(|s| {
                                    let id = s.id;
                                    let when = s.starts_at;
                                    view! {
                                        <button type="button" class="showtime-tile" aria-pressed=move || (chosen.get() == Some(id)).to_string()
                                            on:click=move |_| chosen.set(Some(id)) data-test="kiosk-showtime" data-id=id.to_string()>
                                            <strong>{s.movie_title.clone()}</strong>
                                            <span>{move || showtime_when(lang.get(), when)}</span>
                                            <span>{s.hall_name.clone()} " · " {s.seats_available} " / " {s.seats_total}</span>
                                        </button>
                                    }
                                }).collect_view()}
                            </div>
                        }.into_any()
                    }
                    Err(e) => view! { <p class="error" role="alert">{move || error_text(lang.get(), &e)}</p> }.into_any(),
                }
            })}
        </Suspense>
        {move || chosen.get().map(|id| view! { <SaleMap showtime=id chosen browser_online sale_round /> })}
    }
}

#[component]
pub(super) fn SaleMap(
    showtime: ShowtimeId,
    chosen: RwSignal<Option<ShowtimeId>>,
    browser_online: RwSignal<bool>,
    sale_round: RwSignal<u32>,
) -> impl IntoView {
    let lang = use_lang();
    let map = crate::codec::resource(move || showtime, get_seat_map);
    view! {
        <Suspense fallback=move || view! { <p>{tr!(lang.get_untracked(), "common.loading")}</p> }>
            {move || Suspend::new(async move {
                match map.await {
                    Ok(map) => view! { <Sale map chosen browser_online sale_round /> }.into_any(),
                    Err(e) => view! { <p class="error" role="alert">{move || error_text(lang.get(), &e)}</p> }.into_any(),
                }
            })}
        </Suspense>
    }
}

#[component]
pub(super) fn Sale(
    map: SeatMap,
    chosen: RwSignal<Option<ShowtimeId>>,
    browser_online: RwSignal<bool>,
    sale_round: RwSignal<u32>,
) -> impl IntoView {
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
                on:click=move |_| picker.hold_best(count, None) data-test=format!("best-{count}")>
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
                <div class="kiosk-map-head">
                    <h2>{map.movie_title.clone()} " · " {map.hall_name.clone()} " · " {move || showtime_when(lang.get(), when)}</h2>
                    <button type="button" on:click=move |_| chosen.set(None) data-test="change-showtime">
                        {move || tr!(lang.get(), "kiosk.change_showtime")}
                    </button>
                </div>
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

/// The seats the clerk holds, in reading order (`A1, A2`).
pub(super) fn held_seats(picker: Picker) -> String {
    picker.hold.with(|h| {
        h.as_ref()
            .map(|h| {
                crate::seating::reading_order(h.hold.seats.iter().map(|s| s.to_string())).join(", ")
            })
            .unwrap_or_default()
    })
}
