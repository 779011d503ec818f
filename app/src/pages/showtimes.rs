//! `/`: showtimes grouped by day and film, each with its hall and seats left, linking to its
//! seat map.

use crate::domain::ShowtimeSummary;
use crate::error_text::error_text;
use crate::format::{day_heading, venue_time};
use crate::i18n::use_lang;
use crate::serverfns::list_showtimes;
use crate::tr;
use chrono::NaiveDate;
use leptos::prelude::*;

/// One film's showtimes on one day.
pub type Film = (String, Vec<ShowtimeSummary>);
/// One venue day's films.
pub type Day = (NaiveDate, Vec<Film>);

/// Showtimes by venue day, then by film in order of first showing; the input is time-ordered.
pub fn group(list: Vec<ShowtimeSummary>) -> Vec<Day> {
    let mut days: Vec<Day> = Vec::new();
    for s in list {
        let day = venue_time(s.starts_at).date_naive();
        if days.last().is_none_or(|(d, _)| *d != day) {
            days.push((day, Vec::new()));
        }
        let films = &mut days.last_mut().expect("pushed above").1;
        match films.iter_mut().find(|(title, _)| *title == s.movie_title) {
            Some((_, times)) => times.push(s),
            None => films.push((s.movie_title.clone(), vec![s])),
        }
    }
    days
}

#[component]
pub fn ShowtimesPage() -> impl IntoView {
    let lang = use_lang();
    let showtimes = crate::codec::resource(|| (), |_| list_showtimes());
    view! {
        <h1>{move || tr!(lang.get(), "showtimes.heading")}</h1>
        <Suspense fallback=move || view! { <p>{tr!(lang.get_untracked(), "common.loading")}</p> }>
            {move || Suspend::new(async move {
                match showtimes.await {
                    Ok(list) if list.is_empty() => {
                        view! { <p>{move || tr!(lang.get(), "showtimes.none")}</p> }.into_any()
                    }
                    Ok(list) => {
                        view! {
                            <div class="programme" data-test="showtime-list">
                                {group(list).into_iter().map(day_view).collect_view()}
                            </div>
                        }
                            .into_any()
                    }
                    Err(e) => {
                        view! { <p class="error" role="alert">{move || error_text(lang.get(), &e)}</p> }
                            .into_any()
                    }
                }
            })}
        </Suspense>
    }
}

fn day_view((day, films): Day) -> impl IntoView {
    let lang = use_lang();
    view! {
        <section class="day" data-test="day">
            <h2>{move || day_heading(lang.get(), day)}</h2>
            {films
                .into_iter()
                .map(|(title, times)| {
                    view! {
                        <div class="film">
                            <h3>{title}</h3>
                            <ul class="times">{times.into_iter().map(showtime_chip).collect_view()}</ul>
                        </div>
                    }
                })
                .collect_view()}
        </section>
    }
}

fn showtime_chip(s: ShowtimeSummary) -> impl IntoView {
    let lang = use_lang();
    let time = crate::format::clock_time(s.starts_at);
    let (left, total) = (s.seats_available, s.seats_total);
    if let (false, Some(opens)) = (s.sales_open, s.sales_opens_at) {
        // Not on sale yet: its seat map can be looked at, and says when sales open.
        return view! {
            <li data-test="showtime" data-open="false" class="not-yet">
                <a href=format!("/showtimes/{}", s.id) data-test=format!("showtime-{}", s.id)>
                    <span class="time">{time}</span>
                    <span class="hall">{s.hall_name}</span>
                    <span class="left">
                        {move || tr!(lang.get(), "showtimes.opens", when = crate::format::showtime_when(lang.get(), opens))}
                    </span>
                </a>
            </li>
        }
        .into_any();
    }
    let cancelled = s.cancelled;
    if !s.sales_open {
        // Started, its sales closed, or cancelled: shown for the day's programme, but nothing
        // to buy.
        return view! {
            <li data-test="showtime" data-open="false" class="closed">
                <span class="chip">
                    <span class="time">{time}</span>
                    <span class="hall">{s.hall_name}</span>
                    <span class="left">
                        {move || if cancelled { tr!(lang.get(), "showtimes.cancelled") } else { tr!(lang.get(), "showtimes.closed") }}
                    </span>
                </span>
            </li>
        }
        .into_any();
    }
    // A hot sale's link goes to its waiting room, not to the seat map.
    let href = match s.waiting_room {
        true => format!("/showtimes/{}/waiting-room", s.id),
        false => format!("/showtimes/{}", s.id),
    };
    let queued = s.waiting_room;
    view! {
        <li data-test="showtime" data-open="true">
            <a href=href data-test=format!("showtime-{}", s.id) data-queue=queued.to_string()>
                <span class="time">{time}</span>
                <span class="hall">{s.hall_name}</span>
                <span class="left" class:sold-out=left == 0>
                    {move || {
                        if left == 0 {
                            tr!(lang.get(), "showtimes.sold_out")
                        } else {
                            tr!(lang.get(), "showtimes.seats_left", left = left, total = total)
                        }
                    }}
                </span>
            </a>
        </li>
    }
    .into_any()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::ShowtimeId;
    use chrono::{TimeZone, Utc};

    fn st(id: i64, title: &str, day: u32, hour: u32) -> ShowtimeSummary {
        ShowtimeSummary {
            id: ShowtimeId::try_from(id).unwrap(),
            movie_title: title.into(),
            hall_id: 1,
            hall_name: "Hall 1".into(),
            // hour in Seoul = hour - 9 in UTC
            starts_at: Utc.with_ymd_and_hms(2026, 12, day, hour - 9, 0, 0).unwrap(),
            ends_at: Utc.with_ymd_and_hms(2026, 12, day, hour - 7, 0, 0).unwrap(),
            seats_total: 120,
            seats_available: 100,
            sales_open: true,
            sales_opens_at: None,
            cancelled: false,
            waiting_room: false,
        }
    }

    #[test]
    fn showtimes_are_grouped_by_venue_day_then_film() {
        let groups = group(vec![
            st(1, "A", 1, 10),
            st(2, "B", 1, 12),
            st(3, "A", 1, 19),
            st(4, "A", 2, 10),
        ]);
        assert_eq!(groups.len(), 2);
        let day1: Vec<(&str, Vec<i64>)> = groups[0]
            .1
            .iter()
            .map(|(t, s)| (t.as_str(), s.iter().map(|s| s.id.get()).collect()))
            .collect();
        assert_eq!(day1, [("A", vec![1, 3]), ("B", vec![2])]);
        assert_eq!(groups[1].1[0].1[0].id.get(), 4);
    }
}
