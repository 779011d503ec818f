//! Giving back at the counter, with a supervisor's PIN: a refund, and an exchange of a
//! booking's seats for the clerk's pick (its own panel, in place of the tender).

use super::*;

/// Seat codes typed as `H9, H10` (none: `None`, the whole booking).
pub(super) fn seat_list(text: &str) -> Option<Vec<String>> {
    let seats: Vec<String> = text
        .split([',', ' '])
        .map(|s| s.trim().to_ascii_uppercase())
        .filter(|s| !s.is_empty())
        .collect();
    (!seats.is_empty()).then_some(seats)
}

/// How a refund is given back, in `lang`: `cash`, `card`, `comp`, `gateway` (another word is
/// shown as it came).
pub(crate) fn refund_method(lang: crate::i18n::Lang, method: &str) -> String {
    match method {
        "cash" => tr!(lang, "refund_method.cash"),
        "card" => tr!(lang, "refund_method.card"),
        "comp" => tr!(lang, "refund_method.comp"),
        "gateway" => tr!(lang, "refund_method.gateway"),
        other => other.to_string(),
    }
}

/// A booking found by its ticket or reference: refund it (whole, or some seats) or reprint it,
/// with a supervisor's approval.
#[component]
pub(super) fn Refund() -> impl IntoView {
    let lang = use_lang();
    let reference = RwSignal::new(String::new());
    let seats = RwSignal::new(String::new());
    let supervisor = RwSignal::new(String::new());
    let pin = RwSignal::new(String::new());
    let error = RwSignal::new(None::<InventoryError>);
    let done = RwSignal::new(None::<crate::domain::CounterRefund>);
    let reprinted = RwSignal::new(None::<PrintedTicket>);
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let request = crate::domain::CounterRefundRequest {
            booking: reference.get_untracked(),
            seats: seat_list(&seats.get_untracked()),
            approval: approval(supervisor, pin),
        };
        spawn_local(async move {
            match refund_at_counter(request).await {
                Ok(r) => {
                    error.set(None);
                    pin.set(String::new());
                    done.set(Some(r));
                }
                Err(e) => error.set(Some(e)),
            }
        });
    };
    let reprint = move |_| {
        let (booking, given) = (reference.get_untracked(), approval(supervisor, pin));
        spawn_local(async move {
            match print_ticket(booking, given).await {
                Ok(t) => {
                    error.set(None);
                    pin.set(String::new());
                    reprinted.set(Some(t));
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
    view! {
        <form class="kiosk-card" on:submit=submit data-test="refund-form">
            <h1>{move || tr!(lang.get(), "kiosk.refund")}</h1>
            <label for="refund-ref">{move || tr!(lang.get(), "kiosk.scan_or_reference")}</label>
            <input id="refund-ref" autocomplete="off" autocapitalize="none" bind:value=reference data-test="refund-reference" />
            <label for="refund-seats">{move || tr!(lang.get(), "kiosk.refund_seats")}</label>
            <input id="refund-seats" autocomplete="off" autocapitalize="characters" bind:value=seats data-test="refund-seats" />
            <ApprovalFields name=supervisor pin id="refund" />
            <button type="submit" class="primary" data-test="refund-button">{move || tr!(lang.get(), "kiosk.refund")}</button>
            <button type="button" on:click=reprint data-test="reprint-button">{move || tr!(lang.get(), "kiosk.reprint")}</button>
            {error_line(lang, error)}
            {move || done.get().map(|r| {
                let seats: Vec<String> = r.seats.iter().map(|s| s.code.to_string()).collect();
                view! {
                    <p class="notice ok" role="status" data-test="refund-done">
                        {tr!(lang.get(), "kiosk.refunded", seats = seats.join(", "), amount = price(lang.get(), r.amount), method = refund_method(lang.get(), &r.method))}
                    </p>
                }
            })}
        </form>
        <div class="kiosk-side">{move || reprinted.get().map(|t| view! { <PrintView ticket=t /> })}</div>
    }
}

/// An exchange: the booking (scanned or typed), the seats it gives back, a supervisor's approval
/// — for the seats the clerk holds now. `back` goes back to the tender.
#[component]
pub(super) fn ExchangePanel(
    picker: Picker,
    online: Memo<bool>,
    exchanged: RwSignal<Option<crate::domain::CounterExchange>>,
    back: RwSignal<bool>,
) -> impl IntoView {
    let lang = use_lang();
    let booking = RwSignal::new(String::new());
    let seats = RwSignal::new(String::new());
    let supervisor = RwSignal::new(String::new());
    let pin = RwSignal::new(String::new());
    let error = RwSignal::new(None::<InventoryError>);
    let busy = RwSignal::new(false);
    let held = move || held_seats(picker);
    let exchange = move |_| {
        let Some(hold) = picker.hold.get_untracked() else {
            return;
        };
        if !online.get_untracked() {
            return;
        }
        let request = crate::domain::CounterExchangeRequest {
            booking: booking.get_untracked(),
            seats: seat_list(&seats.get_untracked()).unwrap_or_default(),
            hold_id: hold.hold.hold_id,
            approval: approval(supervisor, pin),
        };
        busy.set(true);
        spawn_local(async move {
            match exchange_at_counter(request).await {
                Ok(done) => {
                    picker.hold.set(None);
                    picker.refresh();
                    error.set(None);
                    exchanged.set(Some(done));
                }
                Err(e) => error.set(Some(e)),
            }
            busy.set(false);
        });
    };
    view! {
        <section class="tender exchange" data-test="exchange-panel">
            <h2>{move || tr!(lang.get(), "kiosk.exchange")}</h2>
            <p class="held-seats" data-test="held-seats">{held}</p>
            <label for="exchange-booking">{move || tr!(lang.get(), "kiosk.scan_or_reference")}</label>
            <input id="exchange-booking" autocomplete="off" autocapitalize="none" bind:value=booking data-test="exchange-booking" />
            <label for="exchange-seats">{move || tr!(lang.get(), "kiosk.exchange_seats")}</label>
            <input id="exchange-seats" autocomplete="off" autocapitalize="characters" bind:value=seats data-test="exchange-seats" />
            <ApprovalFields name=supervisor pin id="exchange" />
            <button type="button" class="primary sell" data-test="exchange-confirm"
                disabled=move || busy.get() || !online.get() on:click=exchange>
                {move || tr!(lang.get(), "kiosk.exchange")}
            </button>
            <button type="button" data-test="exchange-back" disabled=move || busy.get()
                on:click=move |_| back.set(false)>
                {move || tr!(lang.get(), "kiosk.back_to_payment")}
            </button>
            {error_line(lang, error)}
        </section>
    }
}
