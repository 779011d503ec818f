//! The header above every staff page (the console, the kiosk, the door, signing in): where the
//! member's role may go, who is signed in, the language, and signing out. The customer's links
//! ("Showtimes", "My bookings") are not on a staff page: a kiosk is no place to browse.

use crate::components::{HydratedMark, LangSwitch};
use crate::domain::{StaffMember, StaffRole};
use crate::i18n::{use_lang, Lang};
use crate::serverfns::{staff_sign_out, staff_whoami};
use crate::tr;
use leptos::prelude::*;
use leptos::task::spawn_local;

/// A staff role's name in `lang`.
pub fn role_name(lang: Lang, role: StaffRole) -> String {
    match role {
        StaffRole::Operator => tr!(lang, "role.operator"),
        StaffRole::Supervisor => tr!(lang, "role.supervisor"),
        StaffRole::Clerk => tr!(lang, "role.clerk"),
        StaffRole::Door => tr!(lang, "role.door"),
    }
}

/// The staff pages a role works on, as (path, locale key): the console for operators, the
/// kiosk for the box office (who may also scan at the door), the door for door staff; everyone's
/// own account is on `/admin`.
pub fn staff_places(role: StaffRole) -> Vec<(&'static str, &'static str)> {
    match role {
        StaffRole::Operator => vec![
            ("/admin", "staff.place_console"),
            ("/box-office", "staff.place_box_office"),
            ("/door", "staff.place_door"),
        ],
        StaffRole::Supervisor | StaffRole::Clerk => vec![
            ("/box-office", "staff.place_box_office"),
            ("/door", "staff.place_door"),
            ("/admin", "staff.place_account"),
        ],
        StaffRole::Door => vec![
            ("/door", "staff.place_door"),
            ("/admin", "staff.place_account"),
        ],
    }
}

#[component]
pub fn StaffHeader() -> impl IntoView {
    let lang = use_lang();
    let location = leptos_router::hooks::use_location();
    // Read again on every page: signing in or out moves between pages in the browser.
    let me = crate::codec::resource(move || location.pathname.get(), |_| staff_whoami());
    let sign_out = move |_| {
        spawn_local(async move {
            // The session ends on the server whatever this page does next; a full load leaves
            // nothing of the member's pages in the browser.
            let _ = staff_sign_out().await;
            let _ = window().location().set_href("/staff/sign-in");
        });
    };
    let member = move |m: StaffMember| {
        let role = m.role;
        let here = location.pathname.get_untracked();
        view! {
            <nav aria-label=move || tr!(lang.get(), "staff.nav") data-test="staff-nav">
                {staff_places(role).into_iter().map(|(path, key)| {
                    let current = (here == path).then_some("page");
                    view! {
                        <a href=path aria-current=current data-test="staff-place">
                            {move || crate::i18n::translate(lang.get(), key, &[])}
                        </a>
                    }
                }).collect_view()}
            </nav>
            <span class="staff-who" data-test="staff-who">
                {m.name.clone()} " · " {move || role_name(lang.get(), role)}
            </span>
            <LangSwitch />
            <button type="button" class="secondary" on:click=sign_out data-test="staff-sign-out">
                {move || tr!(lang.get(), "staff.sign_out")}
            </button>
        }
    };
    view! {
        <header class="site-header staff-header" data-test="staff-header">
            <span class="brand">"Seats"</span>
            <Transition fallback=|| view! { <span class="staff-spacer"></span> }>
                {move || Suspend::new(async move {
                    match me.await {
                        Ok(Some(m)) => member(m).into_any(),
                        // Nobody (the sign-in page: the public site too), or a locked kiosk
                        // (nothing but the language until its PIN opens it).
                        _ => {
                            let signing_in = location.pathname.get_untracked().starts_with("/staff/sign-in");
                            view! {
                                {signing_in.then(|| view! {
                                    <nav aria-label=move || tr!(lang.get(), "nav.label")>
                                        <a href="/">{move || tr!(lang.get(), "nav.showtimes")}</a>
                                    </nav>
                                })}
                                <span class="staff-spacer"></span>
                                <LangSwitch />
                            }.into_any()
                        }
                    }
                })}
            </Transition>
            <HydratedMark />
        </header>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_role_reaches_its_own_pages_and_its_account() {
        for role in StaffRole::ALL {
            let paths: Vec<&str> = staff_places(role).into_iter().map(|(p, _)| p).collect();
            assert!(paths.contains(&"/admin"), "{role}: own account");
            let own = match role {
                StaffRole::Operator => "/admin",
                StaffRole::Supervisor | StaffRole::Clerk => "/box-office",
                StaffRole::Door => "/door",
            };
            assert_eq!(paths[0], own, "{role}: its own page first");
        }
        assert!(!staff_places(StaffRole::Door)
            .iter()
            .any(|(p, _)| *p == "/box-office"));
    }
}
