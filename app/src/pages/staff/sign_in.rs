//! `/staff/sign-in`: name and password. Submitting calls the `staff_sign_in` server function
//! (JSON), which sets the staff cookie; then the page goes to `next` (a path on this site) or
//! the console. The button waits for the page to be interactive, so the form never submits
//! itself the plain-HTML way.

use super::local_path;
use crate::domain::QueueProof;
use crate::error::InventoryError;
use crate::error_text::error_text;
use crate::i18n::use_lang;
use crate::serverfns::staff_sign_in;
use crate::tr;
use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::hooks::{use_navigate, use_query_map};

#[component]
pub fn SignInPage() -> impl IntoView {
    let lang = use_lang();
    let query = use_query_map();
    let name = RwSignal::new(String::new());
    let password = RwSignal::new(String::new());
    let error = RwSignal::new(None::<InventoryError>);
    let busy = RwSignal::new(false);
    let checking = RwSignal::new(false);
    let ready = RwSignal::new(false);
    Effect::new(move |_| ready.set(true));
    let navigate = use_navigate();
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        if busy.get_untracked() {
            return;
        }
        busy.set(true);
        let next = local_path(query.get_untracked().get("next"));
        let (n, p) = (name.get_untracked(), password.get_untracked());
        let navigate = navigate.clone();
        spawn_local(async move {
            // Past the free tries, the server asks a proof of work: solved here, then sent
            // again with the same name and password (a few rounds at most, each a bit harder).
            let mut proof = None;
            let mut rounds = 0;
            let answer = loop {
                match staff_sign_in(n.clone(), p.clone(), proof.take()).await {
                    Err(InventoryError::ProofRequired { challenge, bits }) if rounds < 12 => {
                        rounds += 1;
                        checking.set(true);
                        let nonce = crate::components::proof::solve(&challenge, bits).await;
                        proof = Some(QueueProof { challenge, nonce });
                    }
                    answer => break answer,
                }
            };
            checking.set(false);
            match answer {
                Ok(_) => {
                    password.set(String::new());
                    navigate(&next, Default::default());
                }
                Err(e) => error.set(Some(e)),
            }
            busy.set(false);
        });
    };
    view! {
        <section class="staff-sign-in" data-test="sign-in-page">
            <h1>{move || tr!(lang.get(), "staff.sign_in")}</h1>
            <form method="post" on:submit=submit data-test="sign-in-form">
                <label for="staff-name">{move || tr!(lang.get(), "staff.name")}</label>
                <input id="staff-name" name="name" autocomplete="username" required
                    autocapitalize="none" spellcheck="false" bind:value=name data-test="staff-name" />
                <label for="staff-password">{move || tr!(lang.get(), "staff.password")}</label>
                <input id="staff-password" name="password" type="password" required
                    autocomplete="current-password" bind:value=password data-test="staff-password" />
                <button type="submit" class="primary" disabled=move || !ready.get() || busy.get() data-test="sign-in-button">
                    {move || tr!(lang.get(), "staff.sign_in")}
                </button>
            </form>
            <Show when=move || checking.get()>
                <p class="hint" role="status" data-test="sign-in-checking">{move || tr!(lang.get(), "staff.sign_in_checking")}</p>
            </Show>
            {move || error.get().map(|e| view! {
                <p class="error" role="alert" data-test="sign-in-error">{error_text(lang.get(), &e)}</p>
            })}
        </section>
    }
}
