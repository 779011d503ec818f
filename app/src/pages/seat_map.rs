//! `/showtimes/:id`: one showtime's seat map, rendered on the server and hydrated in the browser.
//! Selecting seats is client-side state; holding them comes with the seat-selection work.

use crate::domain::{Seat, SeatMap, SeatStatus};
use crate::format::{krw, venue_time};
use crate::serverfns::get_seat_map;
use leptos::prelude::*;
use leptos_router::hooks::use_params_map;
use std::collections::BTreeSet;

#[component]
pub fn SeatMapPage() -> impl IntoView {
    let params = use_params_map();
    let showtime = move || {
        params
            .read()
            .get("id")
            .and_then(|id| id.parse::<i64>().ok())
            .unwrap_or(0)
    };
    let seat_map = Resource::new(showtime, get_seat_map);
    let selected = RwSignal::new(BTreeSet::<String>::new());
    // Effects run only in the browser: this flag says the page has hydrated.
    let hydrated = RwSignal::new(false);
    Effect::new(move |_| hydrated.set(true));

    view! {
        <section class="seat-map-page" data-test="seat-map-page" data-hydrated=move || hydrated.get().to_string()>
            <Suspense fallback=|| view! { <p>"Loading seats…"</p> }>
                {move || Suspend::new(async move {
                    match seat_map.await {
                        Ok(map) => view! { <SeatPlan map selected /> }.into_any(),
                        Err(e) => view! { <p class="error" role="alert">{e.to_string()}</p> }.into_any(),
                    }
                })}
            </Suspense>
        </section>
    }
}

#[component]
fn SeatPlan(map: SeatMap, selected: RwSignal<BTreeSet<String>>) -> impl IntoView {
    let starts = venue_time(map.starts_at)
        .format("%a %-d %b, %H:%M")
        .to_string();
    let mut rows: Vec<(i32, String)> = map.seats.iter().map(|s| (s.y, s.row.clone())).collect();
    rows.sort();
    rows.dedup();
    let summary = move || {
        let chosen = selected.get();
        if chosen.is_empty() {
            "No seats selected".to_string()
        } else {
            format!(
                "Selected: {}",
                chosen.iter().cloned().collect::<Vec<_>>().join(", ")
            )
        }
    };
    view! {
        <h1>{map.movie_title}</h1>
        <p class="meta">{map.hall_name} " · " {starts}</p>
        <ul class="legend">
            {map
                .categories
                .into_iter()
                .map(|c| view! { <li class=format!("cat-{}", c.code.to_lowercase())>{c.name} " " {krw(c.price)}</li> })
                .collect_view()}
        </ul>
        <div class="screen" aria-hidden="true">"SCREEN"</div>
        <div class="seat-grid" data-test="seat-grid">
            {rows
                .into_iter()
                .map(|(y, row)| view! { <span class="row-label" style=format!("grid-row:{y};grid-column:1")>{row}</span> })
                .collect_view()}
            {map.seats.into_iter().map(|seat| view! { <SeatButton seat selected /> }).collect_view()}
        </div>
        <p class="selection" data-test="selection" aria-live="polite">{summary}</p>
    }
}

#[component]
fn SeatButton(seat: Seat, selected: RwSignal<BTreeSet<String>>) -> impl IntoView {
    let code = seat.code.to_string();
    let available = seat.status == SeatStatus::Available;
    let is_selected = {
        let code = code.clone();
        move || selected.with(|s| s.contains(&code))
    };
    let toggle = {
        let code = code.clone();
        move |_| {
            selected.update(|s| {
                if !s.remove(&code) {
                    s.insert(code.clone());
                }
            })
        }
    };
    let status = seat.status.as_str().to_lowercase();
    let label = format!(
        "Row {}, seat {}, {}, {}, {}{}",
        seat.row,
        seat.number,
        seat.category.to_lowercase(),
        krw(seat.price),
        status,
        if seat.accessible {
            ", wheelchair space"
        } else {
            ""
        }
    );
    view! {
        <button
            type="button"
            class=format!("seat {status} cat-{}", seat.category.to_lowercase())
            class:accessible=seat.accessible
            class:selected=is_selected.clone()
            style=format!("grid-row:{};grid-column:{}", seat.y, seat.x)
            data-test=format!("seat-{code}")
            data-status=seat.status.as_str()
            aria-label=label
            aria-pressed=move || is_selected().to_string()
            disabled=!available
            on:click=toggle
        >
            {seat.number}
        </button>
    }
}
