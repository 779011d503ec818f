//! On the console's home: the signed-in member's own password and kiosk PIN, and (operators)
//! every member's PIN — without them a supervisor cannot approve and a clerk cannot unlock a
//! kiosk.

use crate::domain::{StaffMember, StaffRole};
use crate::error::InventoryError;
use crate::error_text::error_text;
use crate::i18n::use_lang;
use crate::serverfns::{
    staff_accounts, staff_add, staff_change_password, staff_disable, staff_me, staff_reset_pin,
    staff_set_pin,
};
use crate::tr;
use leptos::prelude::*;
use leptos::task::spawn_local;

/// A form's outcome: done (the key of its message) or the server's refusal.
type Outcome = RwSignal<Option<Result<&'static str, InventoryError>>>;

/// A change a form asks for: the key of its message once done.
type Step =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<&'static str, InventoryError>>>>;

#[component]
fn OutcomeLine(outcome: Outcome, test: &'static str) -> impl IntoView {
    let lang = use_lang();
    move || {
        outcome.get().map(|o| match o {
            Ok(key) => view! {
                <p class="notice ok" role="status" data-test=test>{crate::i18n::translate(lang.get(), key, &[])}</p>
            }
            .into_any(),
            Err(e) => view! {
                <p class="error" role="alert" data-test=format!("{test}-error")>{error_text(lang.get(), &e)}</p>
            }
            .into_any(),
        })
    }
}

/// Changing one's password and setting one's PIN.
#[component]
pub fn OwnAccount(member: StaffMember) -> impl IntoView {
    let lang = use_lang();
    let (current, new, again) = (
        RwSignal::new(String::new()),
        RwSignal::new(String::new()),
        RwSignal::new(String::new()),
    );
    let password_done: Outcome = RwSignal::new(None);
    let change = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        if new.get_untracked() != again.get_untracked() {
            password_done.set(Some(Err(InventoryError::InvalidRequest(tr!(
                lang.get_untracked(),
                "account.passwords_differ"
            )))));
            return;
        }
        let (c, n) = (current.get_untracked(), new.get_untracked());
        spawn_local(async move {
            let done = staff_change_password(c, n)
                .await
                .map(|()| "account.password_changed");
            if done.is_ok() {
                current.set(String::new());
                new.set(String::new());
                again.set(String::new());
            }
            password_done.set(Some(done));
        });
    };
    let (pin_password, pin) = (RwSignal::new(String::new()), RwSignal::new(String::new()));
    let pin_done: Outcome = RwSignal::new(None);
    let set_pin = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let (password, p) = (pin_password.get_untracked(), pin.get_untracked());
        spawn_local(async move {
            let done = staff_set_pin(password, p).await.map(|()| "account.pin_set");
            if done.is_ok() {
                pin_password.set(String::new());
                pin.set(String::new());
            }
            pin_done.set(Some(done));
        });
    };
    let field = |id: &'static str,
                 key: &'static str,
                 value: RwSignal<String>,
                 kind: &'static str,
                 complete: &'static str| {
        view! {
            <label for=id>{move || crate::i18n::translate(lang.get(), key, &[])}</label>
            <input id=id type=kind autocomplete=complete bind:value=value data-test=id />
        }
    };
    view! {
        <section class="own-account" data-test="own-account">
            <h2>{move || tr!(lang.get(), "account.heading", name = member.name.clone())}</h2>
            <form on:submit=change data-test="password-form">
                <h3>{move || tr!(lang.get(), "account.change_password")}</h3>
                {field("current-password", "account.current_password", current, "password", "current-password")}
                {field("new-password", "account.new_password", new, "password", "new-password")}
                {field("new-password-again", "account.new_password_again", again, "password", "new-password")}
                <button type="submit" class="primary" data-test="change-password">{move || tr!(lang.get(), "account.change_password")}</button>
                <OutcomeLine outcome=password_done test="password-done" />
            </form>
            <form on:submit=set_pin data-test="pin-form">
                <h3>{move || tr!(lang.get(), "account.set_pin")}</h3>
                <p>{move || tr!(lang.get(), "account.pin_explain")}</p>
                {field("pin-password", "account.current_password", pin_password, "password", "current-password")}
                <label for="new-pin">{move || tr!(lang.get(), "account.new_pin")}</label>
                <input id="new-pin" type="password" inputmode="numeric" autocomplete="off" minlength="4" maxlength="8" bind:value=pin data-test="new-pin" />
                <button type="submit" class="primary" data-test="set-pin">{move || tr!(lang.get(), "account.set_pin")}</button>
                <OutcomeLine outcome=pin_done test="pin-done" />
            </form>
        </section>
    }
}

/// Every staff account, for the operator's list.
pub type StaffList =
    crate::codec::Resource<Result<Vec<crate::domain::StaffAccountView>, InventoryError>>;

/// The list the console's home shows (operators only: for anyone else it is empty, and not
/// asked for). Made when the page is, before anything is awaited, so that the browser finds the
/// server's answer for it when the page hydrates: a resource made after an await (inside the
/// page's `Suspend`) was sometimes matched with another resource's answer under load, and the
/// page failed to hydrate.
pub fn staff_list() -> StaffList {
    crate::codec::resource(
        || (),
        |_| async move {
            match staff_me().await {
                Ok(me) if me.role == StaffRole::Operator => staff_accounts().await,
                _ => Ok(Vec::new()),
            }
        },
    )
}

/// The operator's list of members, with a PIN reset for each.
#[component]
pub fn StaffPins(member: StaffMember, accounts: StaffList) -> impl IntoView {
    let lang = use_lang();
    let operator = member.role == StaffRole::Operator;
    let (who, pin) = (RwSignal::new(String::new()), RwSignal::new(String::new()));
    let done: Outcome = RwSignal::new(None);
    // Each change of the list says how it went under its form and shows the list anew.
    let change = move |outcome: Outcome, step: Step| {
        spawn_local(async move {
            let result = step.await;
            if result.is_ok() {
                pin.set(String::new());
                accounts.refetch();
            }
            outcome.set(Some(result));
        });
    };
    let reset = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let (m, p) = (who.get_untracked(), pin.get_untracked());
        let p = (!p.trim().is_empty()).then_some(p);
        change(
            done,
            Box::pin(async move { staff_reset_pin(m, p).await.map(|()| "account.pin_reset") }),
        );
    };
    let disable = move |_| {
        let m = who.get_untracked();
        change(
            done,
            Box::pin(async move { staff_disable(m).await.map(|()| "account.member_disabled") }),
        );
    };
    let (name, role, password) = (
        RwSignal::new(String::new()),
        RwSignal::new(StaffRole::Clerk),
        RwSignal::new(String::new()),
    );
    let added: Outcome = RwSignal::new(None);
    let add = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let (m, r, p) = (
            name.get_untracked(),
            role.get_untracked(),
            password.get_untracked(),
        );
        change(
            added,
            Box::pin(async move {
                let result = staff_add(m, r, p).await.map(|()| "account.member_added");
                if result.is_ok() {
                    password.set(String::new());
                }
                result
            }),
        );
    };
    operator.then(|| view! {
        <section class="staff-pins" data-test="staff-pins">
            <h2>{move || tr!(lang.get(), "account.staff_heading")}</h2>
            <Transition fallback=move || view! { <p>{tr!(lang.get_untracked(), "common.loading")}</p> }>
                {move || accounts.get().map(|list| match list {
                    Ok(list) => view! {
                        <table data-test="staff-table">
                            <thead><tr>
                                <th scope="col">{move || tr!(lang.get(), "staff.name")}</th>
                                <th scope="col">{move || tr!(lang.get(), "account.role")}</th>
                                <th scope="col">{move || tr!(lang.get(), "account.pin")}</th>
                                <th scope="col">{move || tr!(lang.get(), "account.state")}</th>
                            </tr></thead>
                            <tbody>
                                {list.into_iter().map(|a| {
                                    let (has_pin, disabled) = (a.has_pin, a.disabled);
                                    view! {
                                        <tr data-test="staff-row" data-member=a.name.clone() data-disabled=disabled.to_string()>
                                            <td>{a.name.clone()}</td>
                                            <td>{move || super::role_name(lang.get(), a.role)}</td>
                                            <td>{move || match has_pin {
                                                true => tr!(lang.get(), "account.has_pin"),
                                                false => tr!(lang.get(), "account.no_pin"),
                                            }}</td>
                                            <td>{move || match disabled {
                                                true => tr!(lang.get(), "account.disabled"),
                                                false => tr!(lang.get(), "account.active"),
                                            }}</td>
                                        </tr>
                                    }
                                }).collect_view()}
                            </tbody>
                        </table>
                    }.into_any(),
                    Err(e) => view! { <p class="error" role="alert">{error_text(lang.get(), &e)}</p> }.into_any(),
                })}
            </Transition>
            <form on:submit=reset data-test="reset-pin-form">
                <label for="reset-member">{move || tr!(lang.get(), "staff.name")}</label>
                <input id="reset-member" autocomplete="off" autocapitalize="none" bind:value=who data-test="reset-member" />
                <label for="reset-pin">{move || tr!(lang.get(), "account.new_pin_or_empty")}</label>
                <input id="reset-pin" type="password" inputmode="numeric" autocomplete="off" maxlength="8" bind:value=pin data-test="reset-pin" />
                <button type="submit" class="primary" data-test="reset-pin-submit">{move || tr!(lang.get(), "account.reset_pin")}</button>
                <button type="button" on:click=disable data-test="disable-member">{move || tr!(lang.get(), "account.disable")}</button>
                <OutcomeLine outcome=done test="reset-done" />
            </form>
            <h2>{move || tr!(lang.get(), "account.add_member")}</h2>
            <form on:submit=add data-test="add-member-form">
                <label for="add-member">{move || tr!(lang.get(), "staff.name")}</label>
                <input id="add-member" autocomplete="off" autocapitalize="none" bind:value=name data-test="add-member" />
                <label for="add-role">{move || tr!(lang.get(), "account.role")}</label>
                <select id="add-role" data-test="add-role"
                    on:change=move |ev| role.set(StaffRole::parse(&event_target_value(&ev)).unwrap_or(StaffRole::Clerk))>
                    {StaffRole::ALL.into_iter().map(|r| view! {
                        <option value=r.as_str() selected={r == StaffRole::Clerk}>{move || super::role_name(lang.get(), r)}</option>
                    }).collect_view()}
                </select>
                <label for="add-password">{move || tr!(lang.get(), "account.first_password")}</label>
                <input id="add-password" type="password" autocomplete="new-password" minlength="12" bind:value=password data-test="add-password" />
                <button type="submit" class="primary" data-test="add-member-submit">{move || tr!(lang.get(), "account.add")}</button>
                <OutcomeLine outcome=added test="add-done" />
            </form>
        </section>
    })
}
