//! The staff's pages: signing in (`/staff/sign-in`), the operator console under `/admin`
//! (home, halls and schedule, sales, audit log, API tokens), the box office kiosk (`box_office/`, by task) and the door. Each page's data comes from a staff server function
//! that checks the member's role itself; a page only shows what the server answered, and
//! without a session a link to sign in that comes back here.

mod account;
mod admin;
mod audit;
mod bookings;
mod box_office;
mod chart;
mod door;
mod editor;
mod halls;
mod header;
mod sales;
mod sign_in;
mod tokens;
mod waiting_room;

pub use admin::AdminPage;
pub use audit::AuditPage;
pub use bookings::BookingsPage;
pub use box_office::BoxOfficePage;
pub use door::DoorPage;
pub use halls::HallsPage;
pub use header::{role_name, StaffHeader};
pub use sales::SalesPage;
pub use sign_in::SignInPage;
pub use tokens::TokensPage;

use crate::error::InventoryError;
use crate::error_text::error_text;
use crate::i18n::use_lang;
use crate::tr;
use leptos::prelude::*;

/// What a staff page shows instead of its data when the server refused it: a sign-in link
/// (coming back to `here`) without a session, the reason otherwise.
#[component]
pub fn StaffRefusal(error: InventoryError, here: &'static str) -> impl IntoView {
    let lang = use_lang();
    let sign_in = matches!(error, InventoryError::StaffSignInRequired);
    view! {
        <div class="staff-refusal" role="alert" data-test="staff-refusal">
            <p class="error">{move || error_text(lang.get(), &error)}</p>
            {sign_in.then(|| view! {
                <p>
                    <a href=format!("/staff/sign-in?next={here}") data-test="sign-in-link">
                        {move || tr!(lang.get(), "staff.sign_in")}
                    </a>
                </p>
            })}
        </div>
    }
}

/// The console's own navigation, above each of its pages.
#[component]
pub fn AdminNav() -> impl IntoView {
    let lang = use_lang();
    view! {
        // Every console page shows this inside its loaded part: the mark says that part hydrated.
        <crate::components::HydratedMark />
        <nav class="admin-nav" aria-label=move || tr!(lang.get(), "admin.nav")>
            <a href="/admin">{move || tr!(lang.get(), "admin.home")}</a>
            <a href="/admin/halls">{move || tr!(lang.get(), "halls.heading")}</a>
            <a href="/admin/sales">{move || tr!(lang.get(), "sales.heading")}</a>
            <a href="/admin/bookings">{move || tr!(lang.get(), "bookings.heading")}</a>
            <a href="/admin/audit">{move || tr!(lang.get(), "audit.heading")}</a>
            <a href="/admin/tokens">{move || tr!(lang.get(), "tokens.heading")}</a>
        </nav>
    }
}

/// `next` if it is a path on this site (never another site: no open redirect), else `/admin`.
/// Only visible ASCII is accepted: browsers drop tabs and newlines from URLs and read `\` as
/// `/`, which would turn `/\t/evil.example` into `//evil.example`.
pub fn local_path(next: Option<String>) -> String {
    match next {
        Some(path)
            if path.starts_with('/')
                && !path.starts_with("//")
                && path.bytes().all(|b| b.is_ascii_graphic() && b != b'\\') =>
        {
            path
        }
        _ => "/admin".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_paths_on_this_site_are_followed_after_sign_in() {
        assert_eq!(local_path(Some("/admin/sales".into())), "/admin/sales");
        for elsewhere in [
            "//evil.example",
            "https://evil.example",
            "/\\evil.example",
            "/\t/evil.example",
            "/\n/evil.example",
            "/\r/evil.example",
            "/ /evil.example",
            "admin",
        ] {
            assert_eq!(local_path(Some(elsewhere.into())), "/admin", "{elsewhere}");
        }
        assert_eq!(local_path(None), "/admin");
    }
}
