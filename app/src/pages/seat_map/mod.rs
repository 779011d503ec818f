//! `/showtimes/:id`: one showtime's seat map, rendered on the server and hydrated in the
//! browser, where the customer picks seats, holds them and watches the countdown.

mod best;
pub(crate) mod live;
mod panels;
pub(crate) mod picker;
pub(crate) mod plan;

use crate::domain::QueueState;
use crate::domain::{Hold, SeatMap, ShowtimeId};
use crate::error::InventoryError;
use crate::error_text::error_text;
use crate::i18n::use_lang;
use crate::serverfns::{current_hold, get_seat_map, queue_status};
use crate::tr;
use leptos::prelude::*;
use leptos_router::hooks::use_params_map;
use panels::{HoldPanel, SelectionBar};
pub(crate) use panels::{Legend, NoticeBar};
use picker::Picker;
use plan::Plan;

#[component]
pub fn SeatMapPage() -> impl IntoView {
    let lang = use_lang();
    let params = use_params_map();
    // An address that names no showtime is answered like an unknown one, without asking.
    let showtime = Memo::new(move |_| {
        params
            .read()
            .get("id")
            .and_then(|id| ShowtimeId::parse(&id))
    });
    let seat_map = crate::codec::resource(
        move || showtime.get(),
        |id| async move {
            match id {
                Some(id) => Some(get_seat_map(id).await),
                None => None,
            }
        },
    );
    let hold = crate::codec::resource(
        move || showtime.get(),
        |id| async move {
            match id {
                Some(id) => current_hold(id).await,
                None => Ok(None),
            }
        },
    );
    // A hot sale's seat map is for the shoppers its waiting room let in: the others are sent
    // to the queue (and open no live seat feed).
    let room = crate::codec::resource(
        move || showtime.get(),
        |id| async move {
            match id {
                Some(id) => queue_status(id).await,
                None => Ok(None),
            }
        },
    );
    // Effects run only in the browser: this flag says the page has hydrated.
    let hydrated = RwSignal::new(false);
    Effect::new(move |_| hydrated.set(true));

    view! {
        <section class="seat-map-page" data-test="seat-map-page" data-hydrated=move || hydrated.get().to_string()>
            <Suspense fallback=move || view! { <p>{tr!(lang.get_untracked(), "common.loading")}</p> }>
                {move || Suspend::new(async move {
                    let (map, current, room) = (seat_map.await, hold.await, room.await);
                    // Anything but "admitted" or "no room" sends a customer to the room (too
                    // soon, the room unreachable: the room's page knows what to do).
                    let queued = match room {
                        Ok(Some(place)) => place.state == QueueState::Waiting,
                        Ok(None) | Err(InventoryError::ShowtimeNotFound(_)) => false,
                        Err(_) => true,
                    };
                    if let (true, Some(id)) = (queued, showtime.get_untracked()) {
                        let path = format!("/showtimes/{id}/waiting-room");
                        return view! { <leptos_router::components::Redirect path /> }.into_any();
                    }
                    match map {
                        Some(Ok(map)) => view! { <Booking map current=current.ok().flatten() /> }.into_any(),
                        Some(Err(e)) => {
                            view! { <p class="error" role="alert">{move || error_text(lang.get(), &e)}</p> }
                                .into_any()
                        }
                        None => {
                            view! { <p class="error" role="alert">{move || tr!(lang.get(), "error.showtime_not_found")}</p> }
                                .into_any()
                        }
                    }
                })}
            </Suspense>
        </section>
    }
}

#[component]
fn Booking(map: SeatMap, current: Option<Hold>) -> impl IntoView {
    let lang = use_lang();
    let picker = Picker::new(&map, current);
    // Back from a declined payment (`?payment=declined`): say so; the hold is still shown.
    let query = leptos_router::hooks::use_query_map();
    if query.with_untracked(|q| q.get("payment").as_deref() == Some("declined")) {
        picker.notice.set(Some(picker::Notice::PaymentDeclined));
    }
    picker.run_clock();
    live::run(picker);
    let when = map.starts_at;
    let sales_open = map.sales_open;
    let opens_at = map.sales_opens_at;
    let cancelled = picker.cancelled;
    view! {
        <h1>{map.movie_title.clone()}</h1>
        <p class="meta">{map.hall_name.clone()} " · " {move || crate::format::showtime_when(lang.get(), when)}</p>
        <Legend categories=map.categories.clone() />
        <NoticeBar picker />
        <Stage picker zoom=true />
        <Show
            when=move || sales_open && !cancelled.get()
            fallback=move || {
                view! {
                    <p class="notice closed" role="status" data-test="sales-closed">
                        {move || match opens_at {
                            _ if cancelled.get() => tr!(lang.get(), "map.cancelled"),
                            Some(at) => tr!(lang.get(), "map.sales_not_open", when = crate::format::showtime_when(lang.get(), at)),
                            None => tr!(lang.get(), "map.sales_closed"),
                        }}
                    </p>
                }
            }
        >
            <Show when=move || picker.hold.with(Option::is_some) fallback=move || view! { <SelectionBar picker /> }>
                <HoldPanel picker />
            </Show>
        </Show>
    }
}

/// A hall's drawing as customers will see it, every seat free: the layout editor's preview.
#[component]
pub fn PlanPreview(map: SeatMap) -> impl IntoView {
    let picker = Picker::new(&map, None);
    view! {
        <Legend categories=map.categories.clone() />
        <div data-test="plan-preview">
            <Stage picker zoom=false />
        </div>
    }
}

/// The screen and the seats, which the screen is centred on. On a phone the whole hall fits at
/// first (seats scaled down to the frame's width); with `zoom`, a control enlarges it to
/// tappable seats that scroll sideways under the row letters, and back.
#[component]
fn Stage(picker: Picker, zoom: bool) -> impl IntoView {
    let lang = use_lang();
    let zoomed = RwSignal::new(false);
    view! {
        <div class="stage" class:zoomed=move || zoomed.get() data-test="stage">
            <div class="hall">
                <div class="screen" data-test="screen" aria-hidden="true">{move || tr!(lang.get(), "map.screen")}</div>
                <Plan picker />
            </div>
        </div>
        {zoom.then(|| view! {
            <button
                type="button"
                class="secondary zoom"
                data-test="zoom"
                aria-pressed=move || zoomed.get().to_string()
                on:click=move |_| zoomed.update(|z| *z = !*z)
            >
                {move || if zoomed.get() { tr!(lang.get(), "map.zoom_fit") } else { tr!(lang.get(), "map.zoom_in") }}
            </button>
        })}
    }
}
