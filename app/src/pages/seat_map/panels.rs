//! The parts around the hall drawing: legend, notices, the selection bar and the hold panel.

use super::best::BestBar;
use super::picker::{Notice, Picker};
use super::plan::category_name;
use crate::domain::seat_rules::Refusal;
use crate::domain::{PriceCategory, MAX_SEATS_PER_HOLD};
use crate::error_text::error_text;
use crate::format::price;
use crate::i18n::{use_lang, Lang};
use crate::seating::countdown;
use crate::tr;
use leptos::prelude::*;

#[component]
pub fn Legend(categories: Vec<PriceCategory>) -> impl IntoView {
    let lang = use_lang();
    // (seat classes, mark, label) for each status the map can show.
    type Entry = (&'static str, &'static str, fn(Lang) -> String);
    let statuses: [Entry; 9] = [
        ("free", "", |l| tr!(l, "status.available")),
        ("selected", "✓", |l| tr!(l, "status.selected")),
        ("mine", "★", |l| tr!(l, "status.mine")),
        ("taken", "…", |l| tr!(l, "status.held")),
        ("booked", "✕", |l| tr!(l, "status.booked")),
        ("blocked", "—", |l| tr!(l, "status.off_sale")),
        ("free stranded", "!", |l| tr!(l, "status.stranded")),
        ("free accessible", "♿", |l| tr!(l, "status.wheelchair")),
        ("free companion", "", |l| tr!(l, "status.companion")),
    ];
    view! {
        <div class="legend" aria-label=move || tr!(lang.get(), "map.legend") role="group">
            <ul class="legend-prices">
                {categories
                    .into_iter()
                    .enumerate()
                    .map(|(i, c)| {
                        let category = c.clone();
                        view! {
                            <li class=format!("cat-{} {}", c.code.to_ascii_lowercase(), super::plan::look(Some(i))) data-test="legend-category">
                                <span class="swatch" aria-hidden="true"></span>
                                {move || category_name(lang.get(), &category)}
                                " "
                                <strong>{move || price(lang.get(), c.price)}</strong>
                            </li>
                        }
                    })
                    .collect_view()}
            </ul>
            <ul class="legend-status">
                {statuses
                    .into_iter()
                    .map(|(class, mark, text)| {
                        view! {
                            <li>
                                <span class=format!("swatch seat {class}") aria-hidden="true">{mark}</span>
                                {move || text(lang.get())}
                            </li>
                        }
                    })
                    .collect_view()}
            </ul>
        </div>
    }
}

fn notice_text(lang: Lang, n: &Notice) -> String {
    match n {
        Notice::Limit => tr!(lang, "notice.limit", max = MAX_SEATS_PER_HOLD),
        Notice::Conflict(seats) => tr!(
            lang,
            "notice.conflict",
            seats = crate::seating::reading_order(seats).join(", ")
        ),
        Notice::TakenLive(seats) => {
            tr!(
                lang,
                "notice.taken_live",
                seats = crate::seating::reading_order(seats).join(", ")
            )
        }
        Notice::NotAvailable(seat) => tr!(lang, "notice.unavailable_seat", seat = seat),
        Notice::HoldFirst => tr!(lang, "notice.hold_first"),
        Notice::Expired => tr!(lang, "notice.expired"),
        Notice::Cancelled => tr!(lang, "notice.cancelled"),
        Notice::Error(e) => error_text(lang, e),
        // Rendered by `NoticeBar` with the seconds still to wait.
        Notice::RateLimited => String::new(),
        Notice::PaymentDeclined => tr!(lang, "notice.payment_declined"),
    }
}

/// One live region for everything the page has to say.
#[component]
pub fn NoticeBar(picker: Picker) -> impl IntoView {
    let lang = use_lang();
    let kind = move || match picker.notice.get() {
        Some(
            Notice::Conflict(_)
            | Notice::TakenLive(_)
            | Notice::Error(_)
            | Notice::Limit
            | Notice::RateLimited
            | Notice::PaymentDeclined,
        ) => "notice warn",
        Some(_) => "notice info",
        None => "notice empty",
    };
    view! {
        <div class=kind data-test="notice" role="status" aria-live="polite">
            {move || {
                picker
                    .notice
                    .with(|n| match n {
                        Some(Notice::RateLimited) => {
                            let seconds = picker.retry_in_seconds().unwrap_or(1);
                            Some(tr!(lang.get(), "error.rate_limited", seconds = seconds))
                        }
                        Some(n) => Some(notice_text(lang.get(), n)),
                        None => None,
                    })
            }}
        </div>
    }
}

#[component]
pub fn SelectionBar(picker: Picker) -> impl IntoView {
    let lang = use_lang();
    let summary = move || {
        let chosen = picker.selected.get();
        if chosen.is_empty() {
            tr!(lang.get(), "select.none", max = MAX_SEATS_PER_HOLD)
        } else {
            let seats = crate::seating::reading_order(chosen);
            tr!(
                lang.get(),
                "select.summary",
                count = seats.len(),
                seats = seats.join(", ")
            )
        }
    };
    let total = move || {
        tr!(
            lang.get(),
            "select.total",
            total = price(lang.get(), picker.total())
        )
    };
    // Why Hold would be refused, said before it is pressed (the server judges the same way).
    let rule = move || {
        picker.judgement.with(|j| match j {
            Err(Refusal::LoneSeat(alone)) => Some(tr!(
                lang.get(),
                "rule.lone_seat",
                seats = crate::seating::reading_order(alone).join(", ")
            )),
            Err(Refusal::CompanionNeedsWheelchair { per_place }) => {
                Some(tr!(lang.get(), "rule.companion", count = per_place))
            }
            Ok(_) => None,
        })
    };
    view! {
        <div class="picker-bar" data-test="picker-bar">
            <div class="picker-summary">
                <p data-test="selection">{summary}</p>
                <p class="total" data-test="total" hidden=move || picker.selected.with(|s| s.is_empty())>{total}</p>
                <p class="rule-hint" id="rule-hint" data-test="rule-hint" role="status" hidden=move || rule().is_none()>
                    {rule}
                </p>
            </div>
            // Nothing chosen yet: the seats can be chosen for the customer, in the bar at the
            // thumb; once some are, the bar holds them.
            <Show when=move || picker.selected.with(|s| s.is_empty())>
                <BestBar picker />
            </Show>
            <div class="picker-actions" hidden=move || picker.selected.with(|s| s.is_empty())>
                <button
                    type="button"
                    class="secondary"
                    data-test="clear-selection"
                    disabled=move || picker.selected.with(|s| s.is_empty())
                    on:click=move |_| picker.selected.set(Default::default())
                >
                    {move || tr!(lang.get(), "select.clear")}
                </button>
                <button
                    type="button"
                    class="primary"
                    data-test="hold-button"
                    disabled=move || {
                        picker.selected.with(|s| s.is_empty()) || picker.pending.get()
                            || picker.retry_in_seconds().is_some()
                            || picker.judgement.with(Result::is_err)
                    }
                    aria-describedby="rule-hint"
                    on:click=move |_| picker.hold_selected()
                >
                    {move || {
                        if picker.pending.get() {
                            tr!(lang.get(), "select.holding")
                        } else if let Some(seconds) = picker.retry_in_seconds() {
                            tr!(lang.get(), "select.retry_in", seconds = seconds)
                        } else {
                            tr!(lang.get(), "select.hold")
                        }
                    }}
                </button>
            </div>
        </div>
    }
}

/// How many held seats are of each ticket type (adult, youth, senior, disabled), one tap per
/// seat to change one adult into another type. Shown when the
/// showtime sells a type besides adult for every held seat.
fn ticket_types(picker: Picker) -> impl IntoView {
    use crate::domain::TicketType;
    let lang = use_lang();
    // One row per type, the same markup for each (those not sold for these seats hidden): its
    // count and a "+" that makes one adult ticket this type; "All adult" undoes them.
    let row = move |t: TicketType| {
        let code = t.as_str();
        view! {
            <li class="ticket-type" data-type=code hidden=move || !picker.sold_types().contains(&t)>
                <span class="ticket-type-name">{move || crate::i18n::translate(lang.get(), t.name_key(), &[])}</span>
                <output data-test=format!("count-{code}") aria-live="polite">{move || picker.type_count(t)}</output>
                <button type="button" class="secondary step" hidden=t == TicketType::Adult data-test=format!("more-{code}")
                    disabled=move || picker.type_count(TicketType::Adult) == 0
                    on:click=move |_| picker.change_type(t, true)>"+"</button>
            </li>
        }
    };
    view! {
        <fieldset class="ticket-types" data-test="ticket-types" hidden=move || picker.sold_types().len() < 2>
            <legend>{move || tr!(lang.get(), "hold.ticket_types")}</legend>
            <ul>{row(TicketType::Adult)}{row(TicketType::Youth)}{row(TicketType::Senior)}{row(TicketType::Disabled)}</ul>
            <button type="button" class="secondary" data-test="types-reset"
                disabled=move || picker.types.with(|t| t.is_empty())
                on:click=move |_| picker.types.set(Default::default())>
                {move || tr!(lang.get(), "hold.types_reset")}
            </button>
            <p class="hint">{move || tr!(lang.get(), "hold.ticket_types_hint")}</p>
        </fieldset>
    }
}

#[component]
pub fn HoldPanel(picker: Picker) -> impl IntoView {
    let lang = use_lang();
    let email = RwSignal::new(String::new());
    let seats = move || {
        picker.hold.with(|h| {
            h.as_ref()
                .map(|h| {
                    crate::seating::reading_order(h.hold.seats.iter().map(|s| s.as_str()))
                        .join(", ")
                })
                .unwrap_or_default()
        })
    };
    let left = move || {
        countdown(
            picker
                .remaining_ms()
                .unwrap_or_else(|| picker.hold_length_ms()),
        )
    };
    view! {
        <section class="hold-panel" data-test="hold-panel" aria-labelledby="hold-heading">
            <h2 id="hold-heading">{move || tr!(lang.get(), "hold.heading")}</h2>
            <p data-test="held-seats">{move || tr!(lang.get(), "hold.seats", seats = seats())}</p>
            {move || {
                picker
                    .hold
                    .with(|h| {
                        let h = h.as_ref()?;
                        let mut notes = Vec::new();
                        if h.hold.together == Some(false) {
                            notes.push(tr!(lang.get(), "hold.apart"));
                        }
                        if !h.hold.lone_seats.is_empty() {
                            notes.push(tr!(lang.get(), "hold.lone_seats", seats = h.hold.lone_seats.join(", ")));
                        }
                        (!notes.is_empty())
                            .then(|| view! { <p class="hint" data-test="hold-note">{notes.join(" ")}</p> })
                    })
            }}
            <p class="countdown">
                {move || tr!(lang.get(), "hold.time_left")} " "
                <strong data-test="countdown" role="timer">{left}</strong>
            </p>
            {ticket_types(picker)}
            <p class="total" data-test="hold-total">
                {move || tr!(lang.get(), "select.total", total = price(lang.get(), picker.held_total()))}
            </p>
            // The customer's address: with the booking number it finds the booking again on any device.
            <label class="checkout-email" for="checkout-email">{move || tr!(lang.get(), "hold.email")}</label>
            <input id="checkout-email" name="email" type="email" required autocomplete="email"
                inputmode="email" maxlength="254" spellcheck="false" autocapitalize="none"
                aria-describedby="email-hint" bind:value=email data-test="checkout-email" />
            <p class="hint" id="email-hint">{move || tr!(lang.get(), "hold.email_hint")}</p>
            <div class="picker-actions">
                <button
                    type="button"
                    class="secondary"
                    data-test="cancel-hold"
                    disabled=move || picker.pending.get()
                    on:click=move |_| picker.cancel()
                >
                    {move || tr!(lang.get(), "hold.cancel")}
                </button>
                <button
                    type="button"
                    class="primary"
                    data-test="pay"
                    disabled=move || picker.pending.get()
                    aria-describedby="pay-hint"
                    on:click=move |_| picker.pay(email.get_untracked(), lang.get_untracked())
                >
                    {move || tr!(lang.get(), "hold.pay")}
                </button>
            </div>
            <p class="hint" id="pay-hint">{move || tr!(lang.get(), "hold.pay_hint")}</p>
        </section>
    }
}
