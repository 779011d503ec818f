//! `/admin/halls`: the venue's halls and schedule (operators only). A hall is imported from its
//! plan (JSON: rows, seat numbers, gaps, price categories, wheelchair places; the schema is in
//! `domain::HallPlan` and docs/operating.md, "Seat plans") and exported the same way; a showtime is scheduled in a
//! hall at a venue-time date and time, with its running time, its sales window (on sale at once
//! and until the start unless set) and the hot-sale flag.

mod block_map;
mod schedule;
mod tables;

use tables::*;

use super::editor::LayoutEditor;
use super::{AdminNav, StaffRefusal};
use crate::domain::{
    HallPlan, HallSummary, DEFAULT_DURATION_MINUTES, MAX_DURATION_MINUTES, MAX_PRICE,
};
use crate::error::InventoryError;
use crate::error_text::error_text;
use crate::format::{clock_time, showtime_when};
use crate::i18n::use_lang;
use crate::serverfns::{
    block_seats, cancel_showtime, export_hall, halls, import_hall, schedule_showtime,
    showtime_figures,
};
use crate::tr;
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::collections::BTreeMap;

#[component]
pub fn HallsPage() -> impl IntoView {
    let lang = use_lang();
    let list = crate::codec::resource(|| (), |_| halls());
    let counts = crate::codec::resource(|| (), |_| showtime_figures());
    let plan_text = RwSignal::new(String::new());
    // What the last action did, said in the page's language (a switch re-says it).
    let notice = RwSignal::new(None::<(&'static str, Vec<(&'static str, String)>)>);
    let error = RwSignal::new(None::<InventoryError>);
    // A showtime is cancelled in two presses: the first asks to confirm.
    let confirming = RwSignal::new(None::<i64>);
    let cancel = move |id: i64| {
        confirming.set(None);
        let Ok(showtime) = crate::domain::ShowtimeId::try_from(id) else {
            return;
        };
        spawn_local(async move {
            match cancel_showtime(showtime).await {
                Ok(done) => {
                    notice.set(Some((
                        "halls.cancelled",
                        vec![
                            ("id", id.to_string()),
                            ("released", done.released.to_string()),
                            ("refunds", done.refunds.to_string()),
                        ],
                    )));
                    error.set(None);
                    counts.refetch();
                }
                Err(e) => error.set(Some(e)),
            }
        });
    };
    let exported = RwSignal::new(None::<String>);
    // Makes a hall from a plan, from the editor or the imported JSON alike.
    let create = move |plan: HallPlan| {
        spawn_local(async move {
            match import_hall(plan).await {
                Ok(hall) => {
                    notice.set(Some((
                        "halls.imported",
                        vec![("name", hall.name), ("seats", hall.seats.to_string())],
                    )));
                    error.set(None);
                    list.refetch();
                }
                Err(e) => error.set(Some(e)),
            }
        });
    };
    let to_json = move |plan: HallPlan| {
        plan_text.set(crate::codec::pretty(
            &serde_json::to_string(&plan).unwrap_or_default(),
        ));
    };
    let import = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let plan = match crate::codec::read::<HallPlan>(&plan_text.get_untracked()) {
            Ok(plan) => plan,
            Err(e) => {
                error.set(Some(InventoryError::invalid(
                    "invalid.plan_json",
                    &[("detail", e.to_string())],
                )));
                return;
            }
        };
        create(plan);
    };
    let export = move |id: i64| {
        spawn_local(async move {
            match export_hall(id).await {
                Ok(plan) => exported.set(
                    serde_json::to_string(&plan)
                        .ok()
                        .map(|json| crate::codec::pretty(&json)),
                ),
                Err(e) => error.set(Some(e)),
            }
        });
    };
    let to_edit = RwSignal::new(None::<HallPlan>);
    let edit = move |id: i64| {
        spawn_local(async move {
            match export_hall(id).await {
                Ok(plan) => to_edit.set(Some(plan)),
                Err(e) => error.set(Some(e)),
            }
        });
    };
    let hall = RwSignal::new(String::new());
    let title = RwSignal::new(String::new());
    let when = RwSignal::new(String::new());
    let minutes = RwSignal::new(DEFAULT_DURATION_MINUTES.to_string());
    let opens = RwSignal::new(String::new());
    let closes = RwSignal::new(String::new());
    let hot = RwSignal::new(false);
    // Ticket types of the hall's defaults the operator chose not to sell for this showtime.
    let unsold = RwSignal::new(Vec::<crate::domain::TicketType>::new());
    let release_hours = RwSignal::new(String::new());
    // Seats taken off public sale (or put back), by showtime and seat codes.
    let block_showtime = RwSignal::new(String::new());
    let block_codes = RwSignal::new(String::new());
    let block_kind = RwSignal::new("house".to_string());
    let block_round = RwSignal::new(0u32);
    let block = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let Ok(showtime) = crate::domain::ShowtimeId::try_from(
            block_showtime.get_untracked().parse::<i64>().unwrap_or(0),
        ) else {
            return;
        };
        let seats: Vec<String> = block_codes
            .get_untracked()
            .split([' ', ','])
            .filter(|c| !c.is_empty())
            .map(|c| c.trim().to_ascii_uppercase())
            .collect();
        let kind = match block_kind.get_untracked().as_str() {
            "killed" => crate::domain::SeatBlock::Killed,
            "onSale" => crate::domain::SeatBlock::OnSale,
            _ => crate::domain::SeatBlock::House,
        };
        spawn_local(async move {
            match block_seats(showtime, seats, kind).await {
                Ok(changed) => {
                    let codes: Vec<String> = changed.iter().map(|c| c.code.to_string()).collect();
                    let key = match kind {
                        crate::domain::SeatBlock::House => "halls.blocked_house",
                        crate::domain::SeatBlock::Killed => "halls.blocked_killed",
                        crate::domain::SeatBlock::OnSale => "halls.blocked_on_sale",
                    };
                    let seats = crate::domain::seats_text(&crate::seating::reading_order(&codes));
                    notice.set(Some((
                        key,
                        vec![("id", showtime.to_string()), ("seats", seats)],
                    )));
                    error.set(None);
                    block_round.update(|r| *r += 1);
                }
                Err(e) => error.set(Some(e)),
            }
        });
    };
    // The chosen hall's categories, each priced at the hall's price unless changed here.
    let hall_plan = crate::codec::resource(
        move || hall.get(),
        |id| async move {
            match id.parse::<i64>() {
                Ok(id) => export_hall(id).await.ok(),
                Err(_) => None,
            }
        },
    );
    let prices = RwSignal::new(BTreeMap::<String, String>::new());
    let schedule = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let hall_id = hall.get_untracked().parse::<i64>().unwrap_or(0);
        // The form's local times are the venue's.
        let offset = crate::format::venue_offset_text();
        let venue = |local: String| (!local.is_empty()).then(|| format!("{local}:00{offset}"));
        let starts_at = venue(when.get_untracked()).unwrap_or_default();
        let title = title.get_untracked();
        let duration = minutes.get_untracked().trim().parse::<i32>().ok();
        let (opens, closes) = (venue(opens.get_untracked()), venue(closes.get_untracked()));
        let hot = Some(hot.get_untracked());
        let release = release_hours.get_untracked().trim().parse::<u32>().ok();
        let typed = prices.get_untracked();
        // The hall's types (every category prices the same ones), less those not to sell.
        let plan_types: Vec<crate::domain::TicketType> = hall_plan
            .get_untracked()
            .flatten()
            .and_then(|plan| {
                plan.categories
                    .first()
                    .map(|c| c.ticket_prices.iter().map(|(t, _)| t).collect())
            })
            .unwrap_or_default();
        let unsold = unsold.get_untracked();
        let ticket_types = (!unsold.is_empty()).then(|| {
            plan_types
                .into_iter()
                .filter(|t| !unsold.contains(t))
                .collect()
        });
        let categories = hall_plan
            .get_untracked()
            .flatten()
            .map(|plan| plan.categories)
            .unwrap_or_default();
        let (prices, ticket_prices) = schedule::prices_typed(&categories, &typed, &unsold);
        spawn_local(async move {
            match schedule_showtime(
                hall_id,
                title,
                starts_at,
                duration,
                opens,
                closes,
                hot,
                Some(prices),
                release,
                ticket_types,
                ticket_prices,
            )
            .await
            {
                Ok(id) => {
                    notice.set(Some(("halls.scheduled", vec![("id", id.to_string())])));
                    error.set(None);
                    counts.refetch();
                }
                Err(e) => error.set(Some(e)),
            }
        });
    };
    view! {
        <section class="halls-page" data-test="halls-page">
            <h1>{move || tr!(lang.get(), "halls.heading")}</h1>
            <Suspense fallback=move || view! { <p>{tr!(lang.get_untracked(), "common.loading")}</p> }>
                {move || Suspend::new(async move {
                    match list.await {
                        Ok(rows) => view! {
                            <AdminNav />
                            {move || notice.get().map(|(key, args)| view! {
                                <p role="status" data-test="halls-notice">{move || crate::i18n::translate(lang.get(), key, &args)}</p>
                            })}
                            {move || error.get().map(|e| view! { <p class="error" role="alert" data-test="halls-error">{error_text(lang.get(), &e)}</p> })}
                            <HallTable rows export edit />
                            {move || exported.get().map(|json| view! {
                                <label for="hall-export">{move || tr!(lang.get(), "halls.exported")}</label>
                                <textarea id="hall-export" readonly rows="12" data-test="hall-export">{json}</textarea>
                            })}
                            <h2>{move || tr!(lang.get(), "halls.showtimes")}</h2>
                            <Transition fallback=|| ()>
                                {move || counts.get().map(|c| match c {
                                    Ok(rows) => view! { <CountsTable rows confirming cancel /> }.into_any(),
                                    Err(e) => view! { <p class="error">{error_text(lang.get(), &e)}</p> }.into_any(),
                                })}
                            </Transition>
                            <super::waiting_room::WaitingRoomPanel counts />
                            <h2>{move || tr!(lang.get(), "halls.block_heading")}</h2>
                            <form on:submit=block data-test="block-form">
                                <label for="block-showtime">{move || tr!(lang.get(), "halls.block_showtime")}</label>
                                <select id="block-showtime" required bind:value=block_showtime data-test="block-showtime">
                                    <option value="">"—"</option>
                                    // Awaited, as the table above awaits it: the server renders the
                                    // same options the browser hydrates (read with `get`, the server
                                    // rendered none while the browser had them: a hydration error).
                                    <Transition fallback=|| ()>
                                        {move || Suspend::new(async move {
                                            counts.await.unwrap_or_default().into_iter().filter(|s| !s.cancelled && !s.started).map(|s| view! {
                                                <option value=s.id.to_string()>{format!("{} · {} · {}", s.id, s.movie_title, showtime_when(lang.get(), s.starts_at))}</option>
                                            }).collect_view()
                                        })}
                                    </Transition>
                                </select>
                                <block_map::BlockMap showtime=block_showtime codes=block_codes round=block_round />
                                <label for="block-seats">{move || tr!(lang.get(), "halls.block_seats")}</label>
                                <input id="block-seats" required placeholder="A1 A2" bind:value=block_codes data-test="block-seats" />
                                <label for="block-kind">{move || tr!(lang.get(), "halls.block_kind")}</label>
                                <select id="block-kind" bind:value=block_kind data-test="block-kind">
                                    <option value="house">{move || tr!(lang.get(), "halls.block_house")}</option>
                                    <option value="killed">{move || tr!(lang.get(), "halls.block_killed")}</option>
                                    <option value="onSale">{move || tr!(lang.get(), "halls.block_on_sale")}</option>
                                </select>
                                <button type="submit" class="primary" data-test="block-button">{move || tr!(lang.get(), "halls.block_apply")}</button>
                            </form>
                            <h2>{move || tr!(lang.get(), "halls.schedule")}</h2>
                            <form on:submit=schedule data-test="schedule-form">
                                <label for="schedule-hall">{move || tr!(lang.get(), "halls.hall")}</label>
                                <select id="schedule-hall" required bind:value=hall data-test="schedule-hall">
                                    <option value="">"—"</option>
                                    {move || list.get().and_then(Result::ok).unwrap_or_default().into_iter().map(|h| view! {
                                        <option value=h.id.to_string()>{h.name}</option>
                                    }).collect_view()}
                                </select>
                                <Transition fallback=|| ()>
                                    {move || hall_plan.get().flatten().map(|plan| plan.categories.into_iter().map(|c| {
                                        let id = format!("schedule-price-{}", c.code);
                                        let code = c.code.clone();
                                        let name = c.name.clone();
                                        view! {
                                            <label for=id.clone()>{move || tr!(lang.get(), "halls.price", category = name.clone())}</label>
                                            <input id=id.clone() type="number" min="0" max=MAX_PRICE.get() required data-test=id
                                                prop:value=c.price.get().to_string()
                                                on:input=move |ev| prices.update(|p| { p.insert(code.clone(), event_target_value(&ev)); }) />
                                        }
                                    }).collect_view())}
                                    // Each ticket type of the hall's: sold or not, and its price in each
                                    // category for this showtime (the hall's unless changed here).
                                    {move || hall_plan.get().flatten().map(|plan| {
                                        let types: Vec<crate::domain::TicketType> = plan.categories.first().map(|c| c.ticket_prices.iter().map(|(t, _)| t).collect()).unwrap_or_default();
                                        types.into_iter().map(|t| {
                                            let kind = move || crate::i18n::translate(lang.get(), t.name_key(), &[]);
                                            let sold = move || unsold.with(|u| !u.contains(&t));
                                            let inputs = plan.categories.iter().filter_map(|c| {
                                                let won = c.ticket_prices.get(t)?;
                                                let key = format!("{}/{}", c.code, t.as_str());
                                                let id = format!("schedule-price-{key}");
                                                let name = c.name.clone();
                                                Some(view! {
                                                    <label for=id.clone()>{move || format!("{} · {}", tr!(lang.get(), "halls.price", category = name.clone()), kind())}</label>
                                                    <input id=id.clone() type="number" min="0" max=MAX_PRICE.get() required data-test=id
                                                        prop:value=won.get().to_string()
                                                        on:input=move |ev| prices.update(|p| { p.insert(key.clone(), event_target_value(&ev)); }) />
                                                })
                                            }).collect_view();
                                            view! {
                                                <label class="check">
                                                    <input type="checkbox" data-test=format!("schedule-type-{}", t.as_str())
                                                        prop:checked=sold
                                                        on:change=move |ev| { let on = event_target_checked(&ev); unsold.update(|u| { u.retain(|x| *x != t); if !on { u.push(t); } }); } />
                                                    {move || tr!(lang.get(), "halls.sell_type", kind = kind())}
                                                </label>
                                                <fieldset class="type-prices" hidden=move || !sold() disabled=move || !sold()>{inputs}</fieldset>
                                            }
                                        }).collect_view()
                                    })}
                                </Transition>
                                <label for="schedule-title">{move || tr!(lang.get(), "halls.title")}</label>
                                <input id="schedule-title" required maxlength="200" bind:value=title data-test="schedule-title" />
                                <label for="schedule-when">{move || tr!(lang.get(), "halls.when")}</label>
                                <input id="schedule-when" type="datetime-local" required bind:value=when data-test="schedule-when" />
                                <label for="schedule-minutes">{move || tr!(lang.get(), "halls.minutes")}</label>
                                <input id="schedule-minutes" type="number" min="1" max=MAX_DURATION_MINUTES required bind:value=minutes data-test="schedule-minutes" />
                                <label for="schedule-opens">{move || tr!(lang.get(), "halls.sales_open")}</label>
                                <input id="schedule-opens" type="datetime-local" bind:value=opens data-test="schedule-opens" />
                                <label for="schedule-closes">{move || tr!(lang.get(), "halls.sales_close")}</label>
                                <input id="schedule-closes" type="datetime-local" bind:value=closes data-test="schedule-closes" />
                                <label class="check">
                                    <input type="checkbox" bind:checked=hot data-test="schedule-hot" />
                                    {move || tr!(lang.get(), "halls.hot_sale")}
                                </label>
                                <label for="schedule-release">{move || tr!(lang.get(), "halls.accessible_release")}</label>
                                <input id="schedule-release" type="number" min="0" max="9600" bind:value=release_hours data-test="schedule-release" />
                                <button type="submit" class="primary" data-test="schedule-button">{move || tr!(lang.get(), "halls.schedule")}</button>
                            </form>
                            <LayoutEditor create to_json load=to_edit />
                            <h2>{move || tr!(lang.get(), "halls.import")}</h2>
                            <form on:submit=import data-test="import-form">
                                <label for="hall-plan">{move || tr!(lang.get(), "halls.plan")}</label>
                                <textarea id="hall-plan" rows="12" required bind:value=plan_text data-test="hall-plan"></textarea>
                                <button type="submit" class="primary" data-test="import-button">{move || tr!(lang.get(), "halls.import")}</button>
                            </form>
                        }.into_any(),
                        Err(error) => view! { <StaffRefusal error=error here="/admin/halls" /> }.into_any(),
                    }
                })}
            </Suspense>
        </section>
    }
}
