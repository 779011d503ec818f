//! `/admin`: the console's home — who is signed in, where to go, signing out, one's own
//! password and PIN, and (operators) the members' PINs.

use super::account::{staff_list, OwnAccount, StaffPins};
use super::{AdminNav, StaffRefusal};
use crate::i18n::use_lang;
use crate::serverfns::{staff_me, staff_sign_out};
use crate::tr;
use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::hooks::use_navigate;

#[component]
pub fn AdminPage() -> impl IntoView {
    let lang = use_lang();
    let me = crate::codec::resource(|| (), |_| staff_me());
    let accounts = staff_list();
    let navigate = use_navigate();
    let sign_out = move |_| {
        let navigate = navigate.clone();
        spawn_local(async move {
            // Signing out ends the session on the server whatever this page does next.
            let _ = staff_sign_out().await;
            navigate("/staff/sign-in", Default::default());
        });
    };
    view! {
        <section class="admin-page" data-test="admin-page">
            <h1>{move || tr!(lang.get(), "admin.heading")}</h1>
            <Suspense fallback=move || view! { <p>{tr!(lang.get_untracked(), "common.loading")}</p> }>
                {move || {
                    let sign_out = sign_out.clone();
                    Suspend::new(async move {
                    match me.await {
                        Ok(member) => {
                            let (own, pins) = (member.clone(), member.clone());
                            view! {
                            <AdminNav />
                            <p data-test="signed-in-as">
                                {move || tr!(lang.get(), "staff.signed_in_as", name = member.name.clone(), role = super::role_name(lang.get(), member.role))}
                            </p>
                            <button type="button" class="secondary" on:click=sign_out data-test="sign-out">
                                {move || tr!(lang.get(), "staff.sign_out")}
                            </button>
                            <OwnAccount member=own />
                            <StaffPins member=pins accounts />
                        }.into_any()
                        }
                        Err(error) => view! { <StaffRefusal error=error here="/admin" /> }.into_any(),
                    }
                    })
                }}
            </Suspense>
        </section>
    }
}
