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
    let supervisor = RwSignal::new(String::new());
    let pin = RwSignal::new(String::new());
    let exchanging = RwSignal::new(false);
    let error = RwSignal::new(None::<InventoryError>);
    let busy = RwSignal::new(false);
    let total = Memo::new(move |_| held_total(picker));
    let given = move || tendered.with(|t| t.trim().parse::<i64>().ok());
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
                    <p class="change" data-test="change-due">
                        {move || match change() {
                            Some(c) if c >= 0 => tr!(lang.get(), "kiosk.change_due", amount = price(lang.get(), c)),
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
            <button type="button" class="primary sell" data-test="sell"
                disabled=move || busy.get() || !online.get() || (tender.get() == Tender::Cash && change().is_none_or(|c| c < 0))
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
    view! {
        <section class="receipt" data-test="receipt" aria-live="polite">
            <h2>{move || tr!(lang.get(), "kiosk.sold")}</h2>
            <p>{sale.seats.join(", ")}</p>
            <p class="reference">{move || tr!(lang.get(), "kiosk.reference")} " "
                <code data-test="receipt-booking">{sale.booking_id.0.to_string()}</code></p>
            <p>{move || tr!(lang.get(), "kiosk.total")} " " <strong>{move || price(lang.get(), amount)}</strong></p>
            {change.map(|c| view! {
                <p class="change" data-test="receipt-change">{move || tr!(lang.get(), "kiosk.change_due", amount = price(lang.get(), c))}</p>
            })}
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
