//! "Choose for me": the customer asks for a number of seats in a price category and the server
//! picks the best together.

use super::picker::Picker;
use super::plan::category_name;
use crate::domain::{PriceCategory, MAX_SEATS_PER_HOLD};
use crate::format::price;
use crate::i18n::use_lang;
use crate::tr;
use leptos::prelude::*;

/// "Choose for me": how many seats and in which price category — the cheapest with that many
/// ordinary seats free unless the customer picks another, else any category — its price said
/// before anything is held.
#[component]
pub(super) fn BestBar(picker: Picker) -> impl IntoView {
    let lang = use_lang();
    let count = RwSignal::new(2usize);
    let categories = picker.categories.get_value();
    // Cheapest first (a selection by price keeps the bundle free of another sort's code; a hall
    // has a handful of categories).
    let by_price = {
        let mut left = categories.clone();
        let mut ordered = Vec::with_capacity(left.len());
        while let Some(i) = (0..left.len()).min_by_key(|&i| left[i].price) {
            ordered.push(left.remove(i));
        }
        ordered
    };
    // The categories with free ordinary seats now (best available leaves wheelchair places and
    // companion seats to the map), cheapest first, with how many.
    let open = Memo::new(move |_| {
        let mut free = vec![0usize; by_price.len()];
        picker.status.with(|status| {
            picker.seats.with_value(|seats| {
                for s in seats.iter().filter(|s| !s.accessible && !s.companion) {
                    if status.get(s.code.as_str()) == Some(&crate::domain::SeatStatus::Available) {
                        if let Some(i) = by_price.iter().position(|c| c.code == s.category) {
                            free[i] += 1;
                        }
                    }
                }
            })
        });
        by_price
            .iter()
            .zip(free)
            .filter(|(_, n)| *n > 0)
            .map(|(c, n)| (c.clone(), n))
            .collect::<Vec<(PriceCategory, usize)>>()
    });
    // `Some("")`: the customer chose any category.
    let chosen = RwSignal::new(None::<String>);
    // The customer's choice; else the cheapest with enough seats free; else any.
    let category = Memo::new(move |_| {
        let wanted = count.get();
        open.with(|list| match chosen.get() {
            Some(c) if c.is_empty() => None,
            Some(c) => list
                .iter()
                .find(|(x, _)| x.code == c)
                .map(|(x, _)| x.clone()),
            None => list
                .iter()
                .find(|(_, free)| *free >= wanted)
                .map(|(x, _)| x.clone()),
        })
    });
    let several = categories.len() > 1;
    view! {
        <div class="best-bar" data-test="best-bar">
            <label for="best-count" class="visually-hidden">{move || tr!(lang.get(), "best.label")}</label>
            <select
                id="best-count"
                data-test="best-count"
                on:change=move |ev| {
                    if let Ok(n) = event_target_value(&ev).parse() {
                        count.set(n);
                    }
                }
            >
                {(1..=MAX_SEATS_PER_HOLD)
                    .map(|n| view! { <option value=n.to_string() selected=n == 2>{n}</option> })
                    .collect_view()}
            </select>
            {several.then(|| view! {
                <label for="best-category" class="visually-hidden">{move || tr!(lang.get(), "best.category")}</label>
                <select id="best-category" data-test="best-category"
                    on:change=move |ev| chosen.set(Some(event_target_value(&ev)))>
                    <option value="" selected=move || category.with(Option::is_none)>
                        {move || tr!(lang.get(), "best.any")}
                    </option>
                    {move || open.get().into_iter().map(|(c, _)| {
                        let code = c.code.clone();
                        let is = code.clone();
                        let (label, amount) = (c.clone(), c.price);
                        view! {
                            <option value=code selected=move || category.with(|x| x.as_ref().is_some_and(|x| x.code == is))>
                                {move || category_name(lang.get(), &label)} " " {move || price(lang.get(), amount)}
                            </option>
                        }
                    }).collect_view()}
                </select>
            })}
            <button
                type="button"
                class="secondary"
                data-test="best-button"
                disabled=move || picker.pending.get() || picker.retry_in_seconds().is_some()
                on:click=move |_| picker.hold_best(count.get_untracked(), category.get_untracked().map(|c| c.code))
            >
                {move || tr!(lang.get(), "best.button", count = count.get())}
            </button>
            <p class="hint best-choice" data-test="best-choice">
                {move || match category.get() {
                    Some(c) => tr!(
                        lang.get(),
                        "best.choice",
                        category = category_name(lang.get(), &c),
                        count = count.get(),
                        total = price(lang.get(), c.price * count.get() as i64)
                    ),
                    None => tr!(lang.get(), "best.choice_any", count = count.get()),
                }}
            </p>
        </div>
    }
}
