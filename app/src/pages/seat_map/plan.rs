//! The hall drawing: row labels and seat buttons on a grid, operable with the keyboard alone
//! (one seat in the tab order, arrow keys move, Space/Enter select).
//!
//! The seats are plain markup, not a component each: the grid has one listener per event for
//! all of them (a seat is found from the event's target), and one effect brings the buttons up
//! to date when what they show changes. A hall of 300 seats is then hydrated without 300 seats'
//! worth of reactive attributes and handlers, which was most of a phone's work before the map
//! answered its first tap.

use super::picker::{Picker, SeatView};
use crate::domain::Seat;
use crate::format::thousands;
use crate::i18n::{use_lang, Lang};
use crate::seating::{neighbour, Direction};
use crate::tr;
use leptos::prelude::*;

/// What one seat's button shows besides its fixed parts (place, number, category).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Look {
    view: SeatView,
    status: &'static str,
    conflict: bool,
    /// The seat that takes Tab focus (roving tabindex).
    focus: bool,
}

impl Look {
    fn of(picker: Picker, code: &str) -> Look {
        Look {
            view: picker.view(code),
            status: picker
                .status
                .with(|s| s.get(code).map_or("BOOKED", |s| s.as_str())),
            conflict: picker.conflicted.with(|c| c.contains(code)),
            focus: picker.focused.with(|f| f == code),
        }
    }
}

/// A seat's attributes that change, as the page renders them and as the effect sets them.
struct Shown {
    class: String,
    label: String,
    pressed: &'static str,
    disabled: &'static str,
    tab_index: &'static str,
}

impl Shown {
    fn of(lang: Lang, picker: Picker, seat: &Seat, kind: &str, look: Look) -> Shown {
        let category = category_of(lang, picker, &seat.category);
        let mut class = format!("seat {} {kind}", look.view.class());
        for (on, name) in [
            (seat.accessible, " accessible"),
            (seat.companion, " companion"),
            (look.conflict, " conflict"),
        ] {
            if on {
                class.push_str(name);
            }
        }
        let unavailable = matches!(
            look.view,
            SeatView::Taken | SeatView::Booked | SeatView::Blocked
        );
        Shown {
            class,
            label: seat_label(lang, seat, &category, look.view),
            pressed: if look.view == SeatView::Selected {
                "true"
            } else {
                "false"
            },
            disabled: if unavailable { "true" } else { "false" },
            tab_index: if look.focus { "0" } else { "-1" },
        }
    }
}

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
    // Each seat's category class: its code and its category's look (see `look`).
    let kinds: Vec<String> = picker.seats.with_value(|seats| {
        seats
            .iter()
            .map(|seat| {
                let index = picker
                    .categories
                    .with_value(|c| c.iter().position(|c| c.code == seat.category));
                format!("cat-{} {}", seat.category.to_ascii_lowercase(), look(index))
            })
            .collect()
    });
    // What every seat shows, in the hall's order; the buttons follow it (see `follow`).
    let looks = Memo::new(move |_| {
        picker.seats.with_value(|seats| {
            seats
                .iter()
                .map(|s| Look::of(picker, s.code.as_str()))
                .collect::<Vec<_>>()
        })
    });
    let rendered = looks.get_untracked();
    let seats = picker.seats.with_value(|seats| {
        let lang = lang.get_untracked();
        seats
            .iter()
            .zip(&kinds)
            .zip(&rendered)
            .map(|((seat, kind), &look)| seat_button(lang, picker, seat, kind, look, shift))
            .collect_view()
    });
    follow(picker, looks, kinds, (lang.get_untracked(), rendered));
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
            on:click=move |ev| {
                if let Some(code) = seat_of(&ev) {
                    picker.click(&code);
                }
            }
            on:focusin=move |ev| {
                if let Some(code) = seat_of(&ev) {
                    picker.focused.set(code);
                }
            }
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
            {seats}
        </div>
    }
}

/// One seat's button as first rendered: fixed markup, which [`follow`] keeps up to date.
fn seat_button(
    lang: Lang,
    picker: Picker,
    seat: &Seat,
    kind: &str,
    look: Look,
    shift: i32,
) -> impl IntoView {
    let code = seat.code.to_string();
    let shown = Shown::of(lang, picker, seat, kind, look);
    view! {
        <button
            type="button"
            id=format!("seat-{code}")
            class=shown.class
            style=format!("grid-row:{};grid-column:{}", seat.y, seat.x + shift)
            data-test=format!("seat-{code}")
            data-status=look.status
            data-view=look.view.name()
            aria-label=shown.label
            aria-pressed=shown.pressed
            aria-disabled=shown.disabled
            tabindex=shown.tab_index
        >
            <span class="num">{seat.number}</span>
            // The mark besides colour (style/main.css, by the seat's class).
            <span class="mark" aria-hidden="true"></span>
        </button>
    }
}

/// The seat whose button (or a part of it) an event of the grid happened on.
fn seat_of(ev: &web_sys::Event) -> Option<String> {
    #[cfg(not(feature = "ssr"))]
    {
        use leptos::wasm_bindgen::JsCast;
        let target = ev.target()?.dyn_into::<web_sys::Element>().ok()?;
        let button = target.closest("button.seat").ok()??;
        button.id().strip_prefix("seat-").map(str::to_string)
    }
    #[cfg(feature = "ssr")]
    {
        let _ = ev;
        None
    }
}

/// In the browser: sets the attributes of the buttons whose look changed (all of them when the
/// language changes), starting from what was rendered.
fn follow(picker: Picker, looks: Memo<Vec<Look>>, kinds: Vec<String>, rendered: (Lang, Vec<Look>)) {
    #[cfg(not(feature = "ssr"))]
    {
        let lang = use_lang();
        Effect::new(move |before: Option<(Lang, Vec<Look>)>| {
            let (was_lang, was) = before.unwrap_or_else(|| rendered.clone());
            let now_lang = lang.get();
            let now = looks.get();
            picker.seats.with_value(|seats| {
                for (((seat, kind), &look), &old) in seats.iter().zip(&kinds).zip(&now).zip(&was) {
                    if look == old && now_lang == was_lang {
                        continue;
                    }
                    let Some(el) = document().get_element_by_id(&format!("seat-{}", seat.code))
                    else {
                        continue;
                    };
                    let shown = Shown::of(now_lang, picker, seat, kind, look);
                    for (name, value) in [
                        ("class", shown.class.as_str()),
                        ("data-status", look.status),
                        ("data-view", look.view.name()),
                        ("aria-label", &shown.label),
                        ("aria-pressed", shown.pressed),
                        ("aria-disabled", shown.disabled),
                        ("tabindex", shown.tab_index),
                    ] {
                        let _ = el.set_attribute(name, value);
                    }
                }
            });
            (now_lang, now)
        });
    }
    #[cfg(feature = "ssr")]
    let _ = (picker, looks, kinds, rendered);
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
