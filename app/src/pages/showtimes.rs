//! `/`: the list of showtimes, each linking to its seat map.

use crate::domain::ShowtimeSummary;
use crate::format::venue_time;
use crate::serverfns::list_showtimes;
use leptos::prelude::*;

#[component]
pub fn ShowtimesPage() -> impl IntoView {
    let showtimes = Resource::new(|| (), |_| list_showtimes());
    view! {
        <h1>"Showtimes"</h1>
        <Suspense fallback=|| view! { <p>"Loading showtimes…"</p> }>
            {move || Suspend::new(async move {
                match showtimes.await {
                    Ok(list) => {
                        view! {
                            <ul class="showtimes" data-test="showtime-list">
                                {list.into_iter().map(showtime_row).collect_view()}
                            </ul>
                        }
                            .into_any()
                    }
                    Err(e) => view! { <p class="error" role="alert">{e.to_string()}</p> }.into_any(),
                }
            })}
        </Suspense>
    }
}

fn showtime_row(s: ShowtimeSummary) -> impl IntoView {
    let starts = venue_time(s.starts_at)
        .format("%a %-d %b, %H:%M")
        .to_string();
    view! {
        <li data-test="showtime">
            <a href=format!("/showtimes/{}", s.id.0) data-test=format!("showtime-{}", s.id.0)>
                <span class="title">{s.movie_title}</span>
                <span class="when">{starts}</span>
                <span class="hall">{s.hall_name}</span>
                <span class="left">{format!("{} of {} seats free", s.seats_available, s.seats_total)}</span>
            </a>
        </li>
    }
}
