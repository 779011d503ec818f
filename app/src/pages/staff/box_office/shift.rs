//! A clerk's shift: opening it with the float, closing it with the cash counted, its figures.

use super::*;

#[component]
pub(super) fn OpenShift(shift: RwSignal<Option<Shift>>) -> impl IntoView {
    let lang = use_lang();
    let register = RwSignal::new(String::from("1"));
    let float = RwSignal::new(String::from("100000"));
    let error = RwSignal::new(None::<InventoryError>);
    let busy = RwSignal::new(false);
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let Some(amount) = Won::parse(&float.get_untracked()) else {
            error.set(Some(InventoryError::InvalidRequest(tr!(
                lang.get_untracked(),
                "kiosk.float_number"
            ))));
            return;
        };
        busy.set(true);
        spawn_local(async move {
            match open_shift(register.get_untracked(), amount).await {
                Ok(opened) => shift.set(Some(opened)),
                Err(e) => error.set(Some(e)),
            }
            busy.set(false);
        });
    };
    view! {
        <form class="kiosk-card" on:submit=submit data-test="open-shift">
            <h1>{move || tr!(lang.get(), "kiosk.open_shift")}</h1>
            <label for="register">{move || tr!(lang.get(), "kiosk.register")}</label>
            <input id="register" required bind:value=register data-test="register" />
            <label for="float">{move || tr!(lang.get(), "kiosk.float")}</label>
            <input id="float" inputmode="numeric" required bind:value=float data-test="float" />
            <button type="submit" class="primary" disabled=move || busy.get() data-test="open-shift-button">
                {move || tr!(lang.get(), "kiosk.open_shift")}
            </button>
            {error_line(lang, error)}
        </form>
    }
}

#[component]
pub(super) fn CloseShift(shift: RwSignal<Option<Shift>>) -> impl IntoView {
    let lang = use_lang();
    let latest = crate::codec::resource(|| (), |_| box_office_shift());
    let counted = RwSignal::new(String::new());
    let error = RwSignal::new(None::<InventoryError>);
    let closed = RwSignal::new(None::<Shift>);
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let Some(amount) = Won::parse(&counted.get_untracked()) else {
            error.set(Some(InventoryError::InvalidRequest(tr!(
                lang.get_untracked(),
                "kiosk.counted_number"
            ))));
            return;
        };
        spawn_local(async move {
            match close_shift(None, amount).await {
                Ok(s) => closed.set(Some(s)),
                Err(e) => error.set(Some(e)),
            }
        });
    };
    view! {
        <Suspense fallback=move || view! { <p>{tr!(lang.get_untracked(), "common.loading")}</p> }>
            {move || Suspend::new(async move {
                let current = latest.await.ok().flatten();
                view! {
                    {move || match closed.get().or_else(|| current.clone()) {
                        Some(s) => view! { <ShiftFigures shift=s /> }.into_any(),
                        None => ().into_any(),
                    }}
                }
            })}
        </Suspense>
        <Show when=move || closed.with(Option::is_none) fallback=move || view! {
            <button type="button" class="primary" data-test="new-shift" on:click=move |_| shift.set(None)>
                {move || tr!(lang.get(), "kiosk.open_shift")}
            </button>
        }>
            <form class="kiosk-card" on:submit=submit data-test="close-shift-form">
                <label for="counted">{move || tr!(lang.get(), "kiosk.counted")}</label>
                <input id="counted" inputmode="numeric" autocomplete="off" bind:value=counted data-test="counted" />
                <button type="submit" class="primary" data-test="close-shift-button">{move || tr!(lang.get(), "kiosk.close_shift")}</button>
                {error_line(lang, error)}
            </form>
        </Show>
    }
}

#[component]
pub(super) fn ShiftFigures(shift: Shift) -> impl IntoView {
    let lang = use_lang();
    let f = shift.figures.clone();
    let expected = shift.expected_cash();
    let variance = shift.variance();
    let counted = shift.counted;
    let row = move |key: &'static str, value: String, test: &'static str| {
        view! { <tr><th scope="row">{move || crate::i18n::translate(lang.get(), key, &[])}</th><td class="num" data-test=test>{value}</td></tr> }
    };
    let l = lang.get_untracked();
    view! {
        <table class="shift-figures" data-test="shift-figures" data-closed=shift.closed_at.is_some().to_string()>
            <tbody>
                {row("kiosk.float", price(l, shift.float), "fig-float")}
                {row("kiosk.cash_sales", format!("{} · {}", f.cash_sales, price(l, f.cash_amount)), "fig-cash")}
                {row("kiosk.card_sales", format!("{} · {}", f.card_sales, price(l, f.card_amount)), "fig-card")}
                {row("kiosk.comps", format!("{} · {}", f.comp_sales, f.comp_seats), "fig-comp")}
                {row("kiosk.cash_refunds", format!("{} · {}", f.cash_refunds, price(l, f.cash_refunded)), "fig-cash-refunds")}
                {row("kiosk.other_refunds", format!("{} · {}", f.other_refunds, price(l, f.other_refunded)), "fig-other-refunds")}
                {row("kiosk.expected_cash", price(l, expected), "fig-expected")}
                {counted.map(|c| row("kiosk.counted", price(l, c), "fig-counted"))}
                {variance.map(|v| row("kiosk.variance", signed_price(l, v), "fig-variance"))}
            </tbody>
        </table>
    }
}
