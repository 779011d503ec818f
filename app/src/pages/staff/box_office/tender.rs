//! The tender (cash with the change due, card with the terminal's reference, complimentary with a supervisor's PIN) and the receipt.

use super::*;

#[component]
pub(super) fn Tender(
    picker: Picker,
    online: Memo<bool>,
    sold: RwSignal<Option<CounterSale>>,
    exchanged: RwSignal<Option<crate::domain::CounterExchange>>,
) -> impl IntoView {
    let lang = use_lang();
    let tender = RwSignal::new(Tender::Cash);
    let tendered = RwSignal::new(String::new());
    let reference = RwSignal::new(String::new());
    let email = RwSignal::new(String::new());
    let supervisor = RwSignal::new(String::new());
    let pin = RwSignal::new(String::new());
    let exchanging = RwSignal::new(false);
    let error = RwSignal::new(None::<InventoryError>);
    let busy = RwSignal::new(false);
    let total = Memo::new(move |_| picker.held_total());
    let given = move || tendered.with(|t| Won::parse(t));
    let change = move || given().map(|g| g - total.get());
    let seats = move || held_seats(picker);
    let sell = move |_| {
        let Some(hold) = picker.hold.get_untracked() else {
            return;
        };
        if !online.get_untracked() {
            return;
        }
        let which = tender.get_untracked();
        let request = CounterSaleRequest {
            hold_id: hold.hold.hold_id,
            tender: which,
            tendered: (which == Tender::Cash).then(given).flatten(),
            card_reference: (which == Tender::Card).then(|| reference.get_untracked()),
            approval: (which == Tender::Comp)
                .then(|| approval(supervisor, pin))
                .flatten(),
            ticket_types: picker.ticket_counts(),
            email: Some(email.get_untracked()).filter(|e| !e.trim().is_empty()),
            language: Some(lang.get_untracked().into()),
        };
        busy.set(true);
        spawn_local(async move {
            match sell_at_counter(request).await {
                Ok(sale) => {
                    picker.hold.set(None);
                    picker.refresh();
                    sold.set(Some(sale));
                }
                Err(e) => error.set(Some(e)),
            }
            busy.set(false);
        });
    };
    let tender_button = move |which: Tender, key: &'static str| {
        view! {
            <button type="button" role="radio" aria-checked=move || (tender.get() == which).to_string()
                class:active=move || tender.get() == which on:click=move |_| tender.set(which)
                data-test=format!("tender-{}", which.as_str())>
                {move || crate::i18n::translate(lang.get(), key, &[])}
            </button>
        }
    };
    view! {
        <Show when=move || !exchanging.get() fallback=move || view! {
            <ExchangePanel picker online exchanged back=exchanging />
        }>
        <section class="tender" data-test="tender">
            <p class="held-seats" data-test="held-seats">{seats}</p>
            <KioskTicketTypes picker />
            <p class="total">{move || tr!(lang.get(), "kiosk.total")} " " <strong data-test="sale-total">{move || price(lang.get(), total.get())}</strong></p>
            <div class="tenders" role="radiogroup" aria-label=move || tr!(lang.get(), "kiosk.tender")>
                {tender_button(Tender::Cash, "kiosk.cash")}
                {tender_button(Tender::Card, "kiosk.card")}
                {tender_button(Tender::Comp, "kiosk.comp")}
            </div>
            {move || match tender.get() {
                Tender::Cash => view! {
                    <label for="tendered">{move || tr!(lang.get(), "kiosk.tendered")}</label>
                    <input id="tendered" inputmode="numeric" autocomplete="off" bind:value=tendered data-test="tendered" />
                    <CashPad tendered total />
                    <p class="change" data-test="change-due">
                        {move || match change() {
                            Some(c) if c >= Won::ZERO => tr!(lang.get(), "kiosk.change_due", amount = price(lang.get(), c)),
                            Some(_) => tr!(lang.get(), "kiosk.short"),
                            None => String::new(),
                        }}
                    </p>
                }.into_any(),
                Tender::Card => view! {
                    <label for="card-ref">{move || tr!(lang.get(), "kiosk.card_reference")}</label>
                    <input id="card-ref" autocomplete="off" bind:value=reference data-test="card-reference" />
                }.into_any(),
                Tender::Comp => view! { <ApprovalFields name=supervisor pin id="comp" /> }.into_any(),
            }}
            // Optional: the ticket by e-mail too (the customer's address, kept with the booking).
            <details class="sale-email">
                <summary>{move || tr!(lang.get(), "kiosk.email_ticket")}</summary>
                <input id="sale-email" type="email" inputmode="email" autocomplete="off" maxlength="254"
                    spellcheck="false" autocapitalize="none" bind:value=email data-test="sale-email"
                    aria-label=move || tr!(lang.get(), "kiosk.email_ticket") />
            </details>
            <button type="button" class="primary sell" data-test="sell"
                disabled=move || busy.get() || !online.get() || (tender.get() == Tender::Cash && change().is_none_or(|c| c < Won::ZERO))
                on:click=sell>
                {move || tr!(lang.get(), "kiosk.complete_sale")}
            </button>
            <button type="button" data-test="cancel-sale" disabled=move || busy.get() on:click=move |_| picker.cancel()>
                {move || tr!(lang.get(), "kiosk.cancel_sale")}
            </button>
            // Seats of an earlier booking given back for these: its own panel.
            <button type="button" data-test="exchange-toggle" disabled=move || busy.get()
                on:click=move |_| exchanging.set(true)>
                {move || tr!(lang.get(), "kiosk.exchange")}
            </button>
            {error_line(lang, error)}
        </section>
        </Show>
    }
}

/// The ticket types at the counter, in two lines: the counts, and a "+" button per type (one
/// tap per ticket) with one that makes every seat adult again.
#[component]
fn KioskTicketTypes(picker: Picker) -> impl IntoView {
    use crate::domain::TicketType;
    let lang = use_lang();
    let name = move |t: TicketType| crate::i18n::translate(lang.get(), t.name_key(), &[]);
    view! {
        <Show when=move || { picker.sold_types().len() > 1 }>
            <div class="ticket-types compact" data-test="ticket-types">
                <p class="type-counts">
                    {move || picker.sold_types().into_iter().map(|t| view! {
                        <span data-type=t.as_str()>{move || name(t)} " "
                            <strong data-test=format!("count-{}", t.as_str())>{move || picker.type_count(t)}</strong>
                        </span>
                    }).collect_view()}
                </p>
                <div class="type-taps">
                    {move || picker.sold_types().into_iter().filter(|t| t.needs_proof()).map(|t| view! {
                        <button type="button" data-test=format!("more-{}", t.as_str())
                            disabled=move || picker.type_count(TicketType::Adult) == 0
                            on:click=move |_| picker.change_type(t, true)>
                            "+ " {move || name(t)}
                        </button>
                    }).collect_view()}
                    <button type="button" data-test="types-reset"
                        disabled=move || picker.types.with(|t| t.is_empty())
                        on:click=move |_| picker.types.set(Default::default())>
                        {move || tr!(lang.get(), "hold.types_reset")}
                    </button>
                </div>
            </div>
        </Show>
    }
}

/// Banknotes a quick-cash button adds to what was tendered (the two a cinema's customers hand
/// over most).
pub(super) const QUICK_NOTES: [Won; 2] = [Won::new(10_000), Won::new(50_000)];

/// What a key of the cash pad does to the amount tendered, as typed (digits only): a digit
/// or `00` is appended, `⌫` takes the last digit back, `C` clears; a note adds its value; the
/// exact amount replaces it. Never more than 9 digits (the server refuses cash over its limit
/// anyway), and never a leading zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PadKey {
    Digits(&'static str),
    Back,
    Clear,
    Note(Won),
    Exact(Won),
}

pub fn press(tendered: &str, key: PadKey) -> String {
    // Digits without leading zeros, but a zero typed (or a total of ₩0) stays "0".
    let number = |digits: String| {
        let trimmed = digits.trim_start_matches('0');
        match (trimmed.is_empty(), digits.is_empty()) {
            (true, false) => "0".to_string(),
            _ => trimmed.to_string(),
        }
    };
    let now = number(tendered.chars().filter(char::is_ascii_digit).collect());
    let next = match key {
        PadKey::Digits(d) if now == "0" => number(d.to_string()),
        PadKey::Digits(d) => number(format!("{now}{d}")),
        PadKey::Back => {
            let mut s = now.clone();
            s.pop();
            s
        }
        PadKey::Clear => String::new(),
        PadKey::Note(value) => match Won::parse(&now) {
            Some(n) => (n + value).get().to_string(),
            None if now.is_empty() => value.get().to_string(),
            None => now.clone(),
        },
        PadKey::Exact(total) => total.get().to_string(),
    };
    if next.len() > 9 {
        now
    } else {
        next
    }
}

/// The cash keys beside the amount tendered: the exact amount and the common notes in one tap,
/// and a number pad, so a touch screen needs no keyboard.
#[component]
fn CashPad(tendered: RwSignal<String>, total: Memo<Won>) -> impl IntoView {
    let lang = use_lang();
    let key = move |k: PadKey, label: String, test: String| {
        view! {
            <button type="button" on:click=move |_| tendered.update(|t| *t = press(t, k)) data-test=test>
                {label}
            </button>
        }
    };
    let digits = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "00", "0"];
    view! {
        <div class="quick-cash" role="group" aria-label=move || tr!(lang.get(), "kiosk.quick_cash")>
            <button type="button" class="primary-outline" data-test="cash-exact"
                on:click=move |_| tendered.update(|t| *t = press(t, PadKey::Exact(total.get_untracked())))>
                {move || tr!(lang.get(), "kiosk.exact")}
            </button>
            {QUICK_NOTES.into_iter().map(|note| view! {
                <button type="button" data-test=format!("cash-{note}")
                    aria-label=move || tr!(lang.get(), "kiosk.add_note", amount = price(lang.get(), note))
                    on:click=move |_| tendered.update(|t| *t = press(t, PadKey::Note(note)))>
                    {move || format!("+{}", price(lang.get(), note))}
                </button>
            }).collect_view()}
            <button type="button" class="pad-clear" data-test="pad-clear"
                on:click=move |_| tendered.update(|t| *t = press(t, PadKey::Clear))>
                {move || tr!(lang.get(), "kiosk.pad_clear")}
            </button>
        </div>
        <div class="numpad" role="group" aria-label=move || tr!(lang.get(), "kiosk.numpad")>
            {digits.into_iter().map(|d| key(PadKey::Digits(d), d.to_string(), format!("pad-{d}"))).collect_view()}
            <button type="button" data-test="pad-back" aria-label=move || tr!(lang.get(), "kiosk.pad_back")
                on:click=move |_| tendered.update(|t| *t = press(t, PadKey::Back))>"⌫"</button>
        </div>
    }
}

#[component]
pub(super) fn Receipt(
    sale: CounterSale,
    sold: RwSignal<Option<CounterSale>>,
    sale_round: RwSignal<u32>,
) -> impl IntoView {
    let lang = use_lang();
    let ticket = RwSignal::new(None::<PrintedTicket>);
    let error = RwSignal::new(None::<InventoryError>);
    let busy = RwSignal::new(false);
    let booking = sale.booking_id.0.to_string();
    let print = move |_| {
        if busy.get_untracked() {
            return;
        }
        busy.set(true);
        let booking = booking.clone();
        spawn_local(async move {
            let printed = print_ticket(booking, None).await;
            busy.set(false);
            match printed {
                Ok(t) => {
                    ticket.set(Some(t));
                    // The browser's print dialog, once the tickets are on the page.
                    set_timeout(
                        || {
                            let _ = window().print();
                        },
                        std::time::Duration::from_millis(50),
                    );
                }
                Err(e) => error.set(Some(e)),
            }
        });
    };
    let amount = sale.amount;
    let change = sale.change;
    let slip = sale.clone();
    let when = sale.sold_at;
    view! {
        <section class="receipt" data-test="receipt" aria-live="polite">
            <h2>{move || tr!(lang.get(), "kiosk.sold")}</h2>
            <p class="receipt-seats" data-test="receipt-seats">{crate::seating::reading_order(&sale.seats).join(", ")}</p>
            <p class="reference">{move || tr!(lang.get(), "kiosk.reference")} " "
                <strong data-test="receipt-booking" data-booking=sale.booking_id.0.to_string()>{sale.booking_id.reference()}</strong></p>
            <p>{move || tr!(lang.get(), "kiosk.total")} " " <strong>{move || price(lang.get(), amount)}</strong></p>
            {change.map(|c| view! {
                <p class="change" data-test="receipt-change">{move || tr!(lang.get(), "kiosk.change_due", amount = price(lang.get(), c))}</p>
            })}
            <p class="receipt-meta" data-test="receipt-meta">
                {move || crate::format::date_time(lang.get(), when)} " · "
                {move || tr!(lang.get(), "kiosk.register")} " " {sale.register.clone()} " · " {sale.clerk.clone()}
            </p>
            // Printed once from here; a reprint is a supervisor's (the Refund tab).
            <button type="button" class="primary" on:click=print data-test="print"
                disabled=move || busy.get() || ticket.with(Option::is_some)>
                {move || tr!(lang.get(), "kiosk.print")}
            </button>
            <button type="button" on:click=move |_| { sold.set(None); sale_round.update(|r| *r += 1); } data-test="next-customer">
                {move || tr!(lang.get(), "kiosk.next_customer")}
            </button>
            {error_line(lang, error)}
        </section>
        {move || ticket.get().map(|t| view! { <PrintView ticket=t slip=slip.clone() /> })}
    }
}

#[cfg(test)]
mod tests {
    use super::{press, PadKey};
    use crate::domain::Won;

    #[test]
    fn the_cash_pad_types_adds_notes_and_never_leads_with_zero() {
        let typed = [
            PadKey::Digits("0"),
            PadKey::Digits("3"),
            PadKey::Digits("00"),
            PadKey::Digits("00"),
        ]
        .into_iter()
        .fold(String::new(), |t, k| press(&t, k));
        assert_eq!(typed, "30000");
        assert_eq!(press(&typed, PadKey::Back), "3000");
        assert_eq!(press("3", PadKey::Back), "");
        assert_eq!(press("", PadKey::Back), "");
        assert_eq!(press("30000", PadKey::Clear), "");
        assert_eq!(press("", PadKey::Note(Won::new(50_000))), "50000");
        assert_eq!(press("50000", PadKey::Note(Won::new(10_000))), "60000");
        assert_eq!(press("123", PadKey::Exact(Won::new(36_000))), "36000");
        // Typed by hand with a separator: the digits count.
        assert_eq!(press("12,000", PadKey::Digits("0")), "120000");
        // No tenth digit.
        assert_eq!(press("123456789", PadKey::Digits("0")), "123456789");
        assert_eq!(
            press("999999999", PadKey::Note(Won::new(50_000))),
            "999999999"
        );
        // A ₩0 total can be tendered exactly; a 0 is typed as 0, then replaced by a digit.
        assert_eq!(press("", PadKey::Exact(Won::new(0))), "0");
        assert_eq!(press("", PadKey::Digits("0")), "0");
        assert_eq!(press("0", PadKey::Digits("5")), "5");
        assert_eq!(press("0", PadKey::Digits("00")), "0");
    }
}
