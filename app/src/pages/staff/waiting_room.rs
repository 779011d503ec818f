//! The waiting room's controls on /admin/halls: for a chosen showtime, on or off (its hot-sale
//! flag), paused, how many shoppers inside at once, how many let in a minute, the message shown
//! to the room, the draw at the opening, the proof of work a new place costs, a reset; and its
//! figures (waiting, inside, admitted, ended, given up, the rate, the draw's seed).

use crate::domain::{ShowtimeCounts, ShowtimeId, WaitingRoomView};
use crate::error::InventoryError;
use crate::error_text::error_text;
use crate::format::showtime_when;
use crate::i18n::use_lang;
use crate::serverfns::{reset_waiting_room, set_waiting_room, waiting_room};
use crate::tr;
use leptos::prelude::*;
use leptos::task::spawn_local;

#[component]
pub fn WaitingRoomPanel(
    counts: crate::codec::Resource<Result<Vec<ShowtimeCounts>, InventoryError>>,
) -> impl IntoView {
    let lang = use_lang();
    let chosen = RwSignal::new(String::new());
    let view_of = RwSignal::new(None::<WaitingRoomView>);
    let error = RwSignal::new(None::<InventoryError>);
    let on = RwSignal::new(false);
    let paused = RwSignal::new(false);
    let max_active = RwSignal::new("100".to_string());
    let per_minute = RwSignal::new("100".to_string());
    let message = RwSignal::new(String::new());
    let shuffle = RwSignal::new(false);
    let proof_bits = RwSignal::new("0".to_string());
    let showtime = move || {
        chosen
            .get_untracked()
            .parse::<i64>()
            .ok()
            .and_then(|id| ShowtimeId::try_from(id).ok())
    };
    let shown = move |result: Result<WaitingRoomView, InventoryError>| match result {
        Ok(v) => {
            on.set(v.settings.on);
            paused.set(v.settings.paused);
            max_active.set(v.settings.max_active.to_string());
            per_minute.set(v.settings.admit_per_minute.to_string());
            message.set(v.settings.message.clone());
            shuffle.set(v.settings.shuffle);
            proof_bits.set(v.settings.proof_bits.to_string());
            view_of.set(Some(v));
            error.set(None);
        }
        Err(e) => error.set(Some(e)),
    };
    let load = move || {
        if let Some(id) = showtime() {
            spawn_local(async move { shown(waiting_room(id).await) });
        }
    };
    let save = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let Some(id) = showtime() else { return };
        let (Ok(max), Ok(rate), Ok(bits)) = (
            max_active.get_untracked().trim().parse::<u32>(),
            per_minute.get_untracked().trim().parse::<u32>(),
            proof_bits.get_untracked().trim().parse::<u8>(),
        ) else {
            error.set(Some(InventoryError::InvalidRequest(tr!(
                lang.get_untracked(),
                "room.numbers"
            ))));
            return;
        };
        let (on, paused, text, shuffle) = (
            on.get_untracked(),
            paused.get_untracked(),
            message.get_untracked(),
            shuffle.get_untracked(),
        );
        spawn_local(async move {
            shown(set_waiting_room(id, on, max, rate, text, paused, shuffle, bits).await);
            counts.refetch();
        });
    };
    let reset = move |_| {
        if let Some(id) = showtime() {
            spawn_local(async move { shown(reset_waiting_room(id).await) });
        }
    };
    view! {
        <h2>{move || tr!(lang.get(), "room.heading")}</h2>
        <form on:submit=save data-test="room-form">
            <label for="room-showtime">{move || tr!(lang.get(), "halls.block_showtime")}</label>
            <select id="room-showtime" bind:value=chosen on:change=move |_| load() data-test="room-showtime">
                <option value="">"—"</option>
                <Transition fallback=|| ()>
                    {move || Suspend::new(async move {
                        counts.await.unwrap_or_default().into_iter().filter(|s| !s.cancelled).map(|s| view! {
                            <option value=s.id.to_string()>{format!("{} · {} · {}", s.id, s.movie_title, showtime_when(lang.get(), s.starts_at))}</option>
                        }).collect_view()
                    })}
                </Transition>
            </select>
            <label><input type="checkbox" bind:checked=on data-test="room-on" />{move || tr!(lang.get(), "room.on")}</label>
            <label><input type="checkbox" bind:checked=paused data-test="room-paused" />{move || tr!(lang.get(), "room.paused")}</label>
            <label for="room-max">{move || tr!(lang.get(), "room.max_active")}</label>
            <input id="room-max" inputmode="numeric" bind:value=max_active data-test="room-max" />
            <label for="room-rate">{move || tr!(lang.get(), "room.per_minute")}</label>
            <input id="room-rate" inputmode="numeric" bind:value=per_minute data-test="room-rate" />
            <label for="room-message">{move || tr!(lang.get(), "room.message")}</label>
            <input id="room-message" maxlength="500" bind:value=message data-test="room-message" />
            <label><input type="checkbox" bind:checked=shuffle data-test="room-shuffle" />{move || tr!(lang.get(), "room.shuffle")}</label>
            <label for="room-proof">{move || tr!(lang.get(), "room.proof_bits")}</label>
            <input id="room-proof" inputmode="numeric" bind:value=proof_bits data-test="room-proof" />
            <button type="submit" data-test="room-save">{move || tr!(lang.get(), "room.save")}</button>
            <button type="button" on:click=reset data-test="room-reset">{move || tr!(lang.get(), "room.reset")}</button>
            <button type="button" on:click=move |_| load() data-test="room-refresh">{move || tr!(lang.get(), "room.refresh")}</button>
        </form>
        {move || error.get().map(|e| view! { <p class="error" role="alert" data-test="room-error">{error_text(lang.get(), &e)}</p> })}
        {move || view_of.get().map(|v| view! {
            <p role="status" data-test="room-figures">
                {tr!(
                    lang.get(),
                    "room.figures",
                    waiting = v.waiting,
                    inside = v.inside,
                    admitted = v.admitted,
                    expired = v.expired,
                    abandoned = v.abandoned
                )}
                " "
                {v.per_minute.map(|r| tr!(lang.get(), "room.rate", rate = format!("{r:.1}")))}
                {v.unavailable.then(|| tr!(lang.get(), "room.unavailable"))}
                {v.draw.and_then(|d| Some((d.entrants, d.seed?))).map(|(entrants, seed)| view! {
                    " "<span data-test="room-draw">{tr!(lang.get(), "room.drawn", entrants = entrants, seed = seed)}</span>
                })}
            </p>
        })}
    }
}
