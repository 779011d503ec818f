//! `/admin/audit`: the newest staff actions — who, what, when, from where (operators only).

use super::{AdminNav, StaffRefusal};
use crate::format::showtime_when;
use crate::i18n::use_lang;
use crate::serverfns::audit_log;
use crate::tr;
use leptos::prelude::*;

#[component]
pub fn AuditPage() -> impl IntoView {
    let lang = use_lang();
    let lines = Resource::new(|| (), |_| audit_log());
    view! {
        <section class="audit-page" data-test="audit-page">
            <h1>{move || tr!(lang.get(), "audit.heading")}</h1>
            <Suspense fallback=move || view! { <p>{tr!(lang.get_untracked(), "common.loading")}</p> }>
                {move || Suspend::new(async move {
                    match lines.await {
                        Ok(lines) => view! {
                            <AdminNav />
                            <table class="audit" data-test="audit-table">
                                <thead>
                                    <tr>
                                        <th scope="col">{move || tr!(lang.get(), "audit.when")}</th>
                                        <th scope="col">{move || tr!(lang.get(), "audit.who")}</th>
                                        <th scope="col">{move || tr!(lang.get(), "audit.action")}</th>
                                        <th scope="col">{move || tr!(lang.get(), "audit.detail")}</th>
                                        <th scope="col">{move || tr!(lang.get(), "audit.address")}</th>
                                    </tr>
                                </thead>
                                <tbody>
                                    {lines.into_iter().map(|line| {
                                        let at = line.at;
                                        let action = line.action.clone();
                                        view! {
                                            <tr data-test="audit-row" data-action=action>
                                                <td>{move || showtime_when(lang.get(), at)}</td>
                                                <td>{line.staff_name}</td>
                                                <td><code>{line.action}</code></td>
                                                <td>{line.detail}</td>
                                                <td>{line.address.unwrap_or_default()}</td>
                                            </tr>
                                        }
                                    }).collect_view()}
                                </tbody>
                            </table>
                        }.into_any(),
                        Err(error) => view! { <StaffRefusal error=error here="/admin/audit" /> }.into_any(),
                    }
                })}
            </Suspense>
        </section>
    }
}
