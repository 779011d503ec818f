//! The hall drawing: row labels and seat buttons on a grid, operable with the keyboard alone
//! (one seat in the tab order, arrow keys move, Space/Enter select).

use super::picker::{Picker, SeatView};
use crate::domain::Seat;
use crate::format::thousands;
use crate::i18n::{use_lang, Lang};
use crate::seating::{neighbour, Direction};
use crate::tr;
use leptos::prelude::*;

#[component]
pub fn Plan(picker: Picker) -> impl IntoView {
    let lang = use_lang();
    let mut rows: Vec<(i32, String)> = picker
        .seats
        .with_value(|s| s.iter().map(|s| (s.y, s.row.clone())).collect());
    rows.sort_unstable();
    rows.dedup();
    // Row letters on both sides, so the seats sit in the middle of the drawing (and the screen
    // above them, centred on it, is centred on them).
    // Seats keep their layout's columns, moved so the first is column 2, after the letters.
    let (first, last) = picker.seats.with_value(|s| {
        let xs = s.iter().map(|s| s.x);
        (xs.clone().min().unwrap_or(1), xs.max().unwrap_or(1))
    });
    let shift = 2 - first;
    let right = last + shift + 1;
    let on_keydown = move |ev: leptos::ev::KeyboardEvent| {
        let Some(dir) = Direction::from_key(&ev.key()) else {
            return;
        };
        ev.prevent_default();
        let from = picker.focused.get_untracked();
        if let Some(to) = picker
            .seats
            .with_value(|s| neighbour(s, &from, dir).map(str::to_string))
        {
            picker.focused.set(to.clone());
            focus_seat(&to);
        }
    };
    view! {
        <div
            class="seat-grid"
            data-test="seat-grid"
            role="group"
            aria-label=move || tr!(lang.get(), "map.grid_label")
            on:keydown=on_keydown
        >
            {rows
                .into_iter()
                .map(|(y, row)| {
                    view! {
                        <span class="row-label" aria-hidden="true" style=format!("grid-row:{y};grid-column:1")>
                            {row.clone()}
                        </span>
                        <span class="row-label end" aria-hidden="true" style=format!("grid-row:{y};grid-column:{right}")>
                            {row}
                        </span>
                    }
                })
                .collect_view()}
            {picker.seats.get_value().into_iter().map(|seat| view! { <SeatButton seat picker shift /> }).collect_view()}
        </div>
    }
}

/// "Row F, seat 5, standard, 12,000 won, available" in the page's language.
fn seat_label(lang: Lang, seat: &Seat, category: &str, view: SeatView) -> String {
    let status = match view {
        SeatView::Free => tr!(lang, "status.available"),
        SeatView::Selected => tr!(lang, "status.selected"),
        SeatView::Mine => tr!(lang, "status.mine"),
        SeatView::Taken => tr!(lang, "status.held"),
        SeatView::Booked => tr!(lang, "status.booked"),
        SeatView::Blocked => tr!(lang, "status.off_sale"),
        SeatView::Stranded => tr!(lang, "status.stranded"),
    };
    let mut label = tr!(
        lang,
        "seat.label",
        row = seat.row,
        number = seat.number,
        category = category,
        price = tr!(lang, "price.spoken", amount = thousands(seat.price.get())),
        status = status
    );
    if seat.accessible {
        label.push_str(", ");
        label.push_str(&tr!(lang, "status.wheelchair"));
    }
    if seat.companion {
        label.push_str(", ");
        label.push_str(&tr!(lang, "status.companion"));
    }
    label
}

/// A price category's name as a customer reads it: the operator's own name (`커플석` stays
/// `커플석`), except that the demo halls' default names are said in the page's language.
pub fn category_name(lang: Lang, category: &crate::domain::PriceCategory) -> String {
    category_label(lang, &category.code, &category.name)
}

/// A category's name from its code and the operator's name for it: the operator's own name,
/// the demo halls' default names in the page's language, and a category left unnamed by its
/// code as the language says a seat class (`R석`).
pub fn category_label(lang: Lang, code: &str, name: &str) -> String {
    match (code, name.trim()) {
        ("STANDARD", "" | "Standard") => tr!(lang, "category.STANDARD"),
        ("PREMIUM", "" | "Premium") => tr!(lang, "category.PREMIUM"),
        (code, "") => tr!(lang, "category.unnamed", code = code),
        (_, name) => name.to_string(),
    }
}

/// The name of the category `code` of `picker`'s showtime.
pub fn category_of(lang: Lang, picker: Picker, code: &str) -> String {
    picker
        .categories
        .with_value(|list| match list.iter().find(|c| c.code == code) {
            Some(category) => category_name(lang, category),
            None => category_label(lang, code, ""),
        })
}

/// The class of the look of the `index`th price category: a colour and a pattern (so that
/// colour is not the only difference), six in turn.
pub fn look(index: Option<usize>) -> String {
    format!("look-{}", index.unwrap_or(0) % 6)
}

#[component]
fn SeatButton(seat: Seat, picker: Picker, shift: i32) -> impl IntoView {
    let lang = use_lang();
    let code = seat.code.to_string();
    // What the seat shows, as one memo: a change elsewhere in the hall (a hold, a selection, the
    // live feed's statuses) re-runs this seat's class, label and marks only when its own view
    // changes, not for every seat of the hall.
    let view_of = {
        let code = code.clone();
        Memo::new(move |_| picker.view(&code))
    };
    let status = {
        let code = code.clone();
        move || {
            picker
                .status
                .with(|s| s.get(&code).map_or("BOOKED", |s| s.as_str()))
        }
    };
    let conflicted = {
        let code = code.clone();
        move || picker.conflicted.with(|c| c.contains(&code))
    };
    let tab_index = {
        let code = code.clone();
        move || {
            if picker.focused.with(|f| *f == code) {
                0
            } else {
                -1
            }
        }
    };
    // The category's look: its place in the showtime's list (see `look`).
    let category = format!(
        "cat-{} {}",
        seat.category.to_ascii_lowercase(),
        look(
            picker
                .categories
                .with_value(|c| c.iter().position(|c| c.code == seat.category))
        )
    );
    let (x, y, number, accessible) = (seat.x, seat.y, seat.number, seat.accessible);
    let companion = seat.companion;
    let label = move || {
        let category = category_of(lang.get(), picker, &seat.category);
        seat_label(lang.get(), &seat, &category, view_of.get())
    };
    let on_click = {
        let code = code.clone();
        move |_| picker.click(&code)
    };
    let on_focus = {
        let code = code.clone();
        move |_| picker.focused.set(code.clone())
    };
    view! {
        <button
            type="button"
            id=format!("seat-{code}")
            class=move || format!("seat {} {category}", view_of.get().class())
            class:accessible=accessible
            class:companion=companion
            class:conflict=conflicted
            style=format!("grid-row:{y};grid-column:{}", x + shift)
            data-test=format!("seat-{code}")
            data-status=status
            data-view=move || view_of.get().name()
            aria-label=label
            aria-pressed=move || (view_of.get() == SeatView::Selected).to_string()
            aria-disabled=move || matches!(view_of.get(), SeatView::Taken | SeatView::Booked | SeatView::Blocked).to_string()
            tabindex=tab_index
            on:click=on_click
            on:focus=on_focus
        >
            <span class="num">{number}</span>
            <span class="mark" aria-hidden="true">{move || view_of.get().mark()}</span>
        </button>
    }
}

/// Scrolls the page as little as it takes to show a seat, with its scroll margin (on a phone,
/// the part of the screen the hold panel covers) in view too (browser only).
pub fn show_seat(code: &str) {
    #[cfg(not(feature = "ssr"))]
    if let Some(el) = document().get_element_by_id(&format!("seat-{code}")) {
        let options = web_sys::ScrollIntoViewOptions::new();
        options.set_block(web_sys::ScrollLogicalPosition::Nearest);
        options.set_inline(web_sys::ScrollLogicalPosition::Nearest);
        el.scroll_into_view_with_scroll_into_view_options(&options);
    }
    #[cfg(feature = "ssr")]
    let _ = code;
}

/// Moves keyboard focus to a seat (browser only).
fn focus_seat(code: &str) {
    #[cfg(not(feature = "ssr"))]
    {
        use leptos::wasm_bindgen::JsCast;
        if let Some(el) = document().get_element_by_id(&format!("seat-{code}")) {
            if let Ok(el) = el.dyn_into::<web_sys::HtmlElement>() {
                let _ = el.focus();
            }
        }
    }
    #[cfg(feature = "ssr")]
    let _ = code;
}
