//! The seats of the showtime chosen in "seats off sale", drawn as customers see them: the
//! operator taps the seats to take off sale (or put back) instead of typing their codes. Tapped
//! seats fill the codes field in seat order; seats off sale already show as such and can be
//! tapped to put them back.

use crate::domain::{SeatMap, ShowtimeId};
use crate::i18n::use_lang;
use crate::pages::seat_map::picker::Picker;
use crate::pages::seat_map::plan::Plan;
use crate::pages::seat_map::Legend;
use crate::serverfns::get_seat_map;
use crate::tr;
use leptos::prelude::*;

/// The map of the showtime whose id `showtime` holds (nothing before one is chosen), writing
/// the tapped seats into `codes`. `round` is bumped after each change, to read the map again.
#[component]
pub fn BlockMap(
    showtime: RwSignal<String>,
    codes: RwSignal<String>,
    round: RwSignal<u32>,
) -> impl IntoView {
    let map = crate::codec::resource(
        move || (showtime.get(), round.get()),
        |(id, _)| async move {
            let id = ShowtimeId::try_from(id.parse::<i64>().ok()?).ok()?;
            get_seat_map(id).await.ok()
        },
    );
    view! {
        <Transition fallback=|| ()>
            {move || Suspend::new(async move { map.await.map(|map| view! { <Marking map codes /> }) })}
        </Transition>
    }
}

#[component]
fn Marking(map: SeatMap, codes: RwSignal<String>) -> impl IntoView {
    let lang = use_lang();
    let picker = Picker::for_console(&map);
    Effect::new(move |first: Option<()>| {
        let chosen = picker.selected.get();
        // A fresh map (after a change) starts with nothing tapped: the field keeps what was
        // typed until a seat is tapped.
        if first.is_some() || !chosen.is_empty() {
            codes.set(crate::seating::reading_order(chosen.iter().cloned()).join(" "));
        }
    });
    view! {
        <div class="block-map" data-test="block-map">
            <p class="hint">{move || tr!(lang.get(), "halls.block_tap")}</p>
            <Legend categories=map.categories.clone() />
            <div class="stage">
                <div class="hall">
                    <div class="screen" aria-hidden="true">{move || tr!(lang.get(), "map.screen")}</div>
                    <Plan picker />
                </div>
            </div>
        </div>
    }
}
