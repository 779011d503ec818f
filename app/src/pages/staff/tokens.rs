//! `/admin/tokens`: bearer tokens for API clients of the sales report (operators only). A new
//! token's secret is shown once; a token can be revoked at once.

use super::{AdminNav, StaffRefusal};
use crate::domain::NewApiToken;
use crate::error::InventoryError;
use crate::error_text::error_text;
use crate::format::showtime_when;
use crate::i18n::use_lang;
use crate::serverfns::{api_tokens, create_api_token, revoke_api_token};
use crate::tr;
use leptos::prelude::*;
use leptos::task::spawn_local;

#[component]
pub fn TokensPage() -> impl IntoView {
    let lang = use_lang();
    let tokens = crate::codec::resource(|| (), |_| api_tokens());
    let name = RwSignal::new(String::new());
    let created = RwSignal::new(None::<NewApiToken>);
    let error = RwSignal::new(None::<InventoryError>);
    let create = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let n = name.get_untracked();
        spawn_local(async move {
            match create_api_token(n).await {
                Ok(token) => {
                    created.set(Some(token));
                    name.set(String::new());
                    error.set(None);
                    tokens.refetch();
                }
                Err(e) => error.set(Some(e)),
            }
        });
    };
    let revoke = move |id: i64| {
        spawn_local(async move {
            match revoke_api_token(id).await {
                Ok(()) => tokens.refetch(),
                Err(e) => error.set(Some(e)),
            }
        });
    };
    view! {
        <section class="tokens-page" data-test="tokens-page">
            <h1>{move || tr!(lang.get(), "tokens.heading")}</h1>
            <Suspense fallback=move || view! { <p>{tr!(lang.get_untracked(), "common.loading")}</p> }>
                {move || Suspend::new(async move {
                    match tokens.await {
                        Ok(list) => view! {
                            <AdminNav />
                            <p>{move || tr!(lang.get(), "tokens.explain")}</p>
                            <form on:submit=create data-test="token-form">
                                <label for="token-name">{move || tr!(lang.get(), "tokens.name")}</label>
                                <input id="token-name" required maxlength="80" bind:value=name data-test="token-name" />
                                <button type="submit" class="primary" data-test="token-create">{move || tr!(lang.get(), "tokens.create")}</button>
                            </form>
                            {move || created.get().map(|new| view! {
                                <p class="token-secret" role="status">
                                    {move || tr!(lang.get(), "tokens.secret_once")} " "
                                    <code data-test="token-secret">{new.secret.clone()}</code>
                                </p>
                            })}
                            {move || error.get().map(|e| view! {
                                <p class="error" role="alert">{error_text(lang.get(), &e)}</p>
                            })}
                            <table class="tokens" data-test="tokens-table">
                                <thead>
                                    <tr>
                                        <th scope="col">{move || tr!(lang.get(), "tokens.name")}</th>
                                        <th scope="col">{move || tr!(lang.get(), "tokens.created")}</th>
                                        <th scope="col">{move || tr!(lang.get(), "tokens.last_used")}</th>
                                        <th scope="col">{move || tr!(lang.get(), "tokens.state")}</th>
                                    </tr>
                                </thead>
                                <tbody>
                                    {list.into_iter().map(|t| {
                                        let (id, created_at, used, revoked) = (t.id, t.created_at, t.last_used_at, t.revoked_at);
                                        view! {
                                            <tr data-test="token-row" data-token=id.to_string()>
                                                <td>{t.name}</td>
                                                <td>{move || showtime_when(lang.get(), created_at)} " · " {t.created_by.clone()}</td>
                                                <td>{move || used.map(|u| showtime_when(lang.get(), u)).unwrap_or_default()}</td>
                                                <td>{match revoked {
                                                    Some(at) => view! { <span>{move || tr!(lang.get(), "tokens.revoked", when = showtime_when(lang.get(), at))}</span> }.into_any(),
                                                    None => view! {
                                                        <button type="button" class="secondary" on:click=move |_| revoke(id) data-test="token-revoke">
                                                            {move || tr!(lang.get(), "tokens.revoke")}
                                                        </button>
                                                    }.into_any(),
                                                }}</td>
                                            </tr>
                                        }
                                    }).collect_view()}
                                </tbody>
                            </table>
                        }.into_any(),
                        Err(error) => view! { <StaffRefusal error=error here="/admin/tokens" /> }.into_any(),
                    }
                })}
            </Suspense>
        </section>
    }
}
