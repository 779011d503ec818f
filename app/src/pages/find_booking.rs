//! `/find-booking`: a booking found again on any device — after the cookies were cleared, or on
//! the phone after buying on a laptop — by the booking number on its ticket and the e-mail
//! address given at checkout. Found, it opens, and "My bookings" on this device lists it from
//! then on.

use crate::error::InventoryError;
use crate::error_text::error_text;
use crate::i18n::use_lang;
use crate::serverfns::lookup_booking;
use crate::tr;
use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::hooks::use_navigate;

#[component]
pub fn FindBookingPage() -> impl IntoView {
    let lang = use_lang();
    let reference = RwSignal::new(String::new());
    let email = RwSignal::new(String::new());
    let error = RwSignal::new(None::<InventoryError>);
    let busy = RwSignal::new(false);
    let ready = RwSignal::new(false);
    Effect::new(move |_| ready.set(true));
    let navigate = use_navigate();
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        if busy.get_untracked() {
            return;
        }
        busy.set(true);
        error.set(None);
        let (r, e) = (reference.get_untracked(), email.get_untracked());
        let navigate = navigate.clone();
        spawn_local(async move {
            match lookup_booking(r, e).await {
                Ok(b) => navigate(
                    &format!("/my-bookings/{}", b.booking_id.0),
                    Default::default(),
                ),
                Err(e) => error.set(Some(e)),
            }
            busy.set(false);
        });
    };
    view! {
        <section class="find-booking" data-test="find-booking-page" data-hydrated=move || ready.get().to_string()>
            <h1>{move || tr!(lang.get(), "find.heading")}</h1>
            <p>{move || tr!(lang.get(), "find.explain")}</p>
            <form method="post" on:submit=submit data-test="find-booking-form">
                <label for="find-reference">{move || tr!(lang.get(), "find.reference")}</label>
                <input id="find-reference" name="reference" required autocomplete="off"
                    autocapitalize="characters" spellcheck="false" maxlength="20"
                    placeholder="21D6B008" bind:value=reference data-test="find-reference" />
                <label for="find-email">{move || tr!(lang.get(), "find.email")}</label>
                <input id="find-email" name="email" type="email" required autocomplete="email"
                    inputmode="email" maxlength="254" bind:value=email data-test="find-email" />
                <button type="submit" class="primary" disabled=move || !ready.get() || busy.get() data-test="find-button">
                    {move || tr!(lang.get(), "find.button")}
                </button>
            </form>
            {move || error.get().map(|e| {
                // Not found says what to check, the same for an unknown number and a wrong address.
                let text = match e {
                    InventoryError::BookingNotFound => tr!(lang.get(), "find.not_found"),
                    e => error_text(lang.get(), &e),
                };
                view! { <p class="error" role="alert" data-test="find-error">{text}</p> }
            })}
        </section>
    }
}
