//! Everything the server and the browser share: domain types, the Leptos components and routes,
//! and the server functions. Server-only code sits behind the `ssr` feature.

pub mod components;
pub mod domain;
#[cfg(feature = "ssr")]
pub mod engine;
pub mod error;
pub mod format;
pub mod i18n;
pub mod pages;
pub mod seating;
pub mod serverfns;

rust_i18n::i18n!("locales", fallback = "en");

use components::LangSwitch;
use leptos::prelude::*;
use leptos_meta::{provide_meta_context, MetaTags, Title};
use leptos_router::components::{Route, Router, Routes};
use leptos_router::{path, SsrMode};

/// The HTML document around the app, rendered on the server in the request's language.
pub fn shell(options: LeptosOptions) -> impl IntoView {
    #[cfg(feature = "ssr")]
    content_security_policy();
    view! {
        <!DOCTYPE html>
        <html lang=i18n::initial_lang().code()>
            <head>
                <meta charset="utf-8" />
                <meta name="viewport" content="width=device-width, initial-scale=1" />
                <meta name="venue-utc-offset" content=format::venue_offset_text() />
                <link rel="stylesheet" id="leptos" href=stylesheet(&options) />
                <AutoReload options=options.clone() />
                <HydrationScripts options />
                <MetaTags />
            </head>
            <body>
                <App />
            </body>
        </html>
    }
}

/// The stylesheet's address: its content-hashed name when the site build listed one in the
/// site's `hash.txt` (`css: <hash>`), else the plain name.
fn stylesheet(options: &LeptosOptions) -> String {
    let (pkg, name) = (&options.site_pkg_dir, &options.output_name);
    #[cfg(feature = "ssr")]
    if options.hash_files {
        static CSS: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
        let hash = CSS.get_or_init(|| {
            let hashes = std::fs::read_to_string(&*options.hash_file).ok()?;
            hashes
                .lines()
                .find_map(|l| l.strip_prefix("css:").map(|h| h.trim().to_string()))
        });
        if let Some(hash) = hash {
            return format!("/{pkg}/{name}.{hash}.css");
        }
    }
    format!("/{pkg}/{name}.css")
}

/// The page's Content-Security-Policy: scripts only from this site or inline with this
/// response's nonce (Leptos puts it on its hydration and streaming scripts), WebAssembly
/// compilation allowed, styles from this site (plus `style` attributes, which the seat map
/// positions seats with), no plugins, no framing, forms and connections (the live feed) only to
/// this site.
#[cfg(feature = "ssr")]
fn content_security_policy() {
    let Some(nonce) = leptos::nonce::use_nonce() else {
        return;
    };
    let Some(response) = use_context::<leptos_axum::ResponseOptions>() else {
        return;
    };
    let policy = format!(
        "default-src 'self'; script-src 'self' 'nonce-{nonce}' 'wasm-unsafe-eval'; \
         style-src 'self' 'nonce-{nonce}'; style-src-attr 'unsafe-inline'; \
         img-src 'self' data:; font-src 'self'; connect-src 'self'; object-src 'none'; \
         base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
    );
    if let Ok(value) = http::HeaderValue::from_str(&policy) {
        response.insert_header(http::header::CONTENT_SECURITY_POLICY, value);
    }
}

#[component]
pub fn App() -> impl IntoView {
    provide_meta_context();
    let lang = i18n::provide_lang();
    // The title follows a language switch in the browser. On the server it is read once: a page
    // rendered whole before it is sent (the staff pages) has its head written after the
    // request's reactive owner is gone, where reading a signal would panic.
    #[cfg(feature = "ssr")]
    let title = {
        let text = tr!(lang.get_untracked(), "site.title");
        move || text.clone()
    };
    #[cfg(not(feature = "ssr"))]
    let title = move || tr!(lang.get(), "site.title");
    view! {
        <Title text=title />
        <Router>
            <header class="site-header">
                <a href="/" class="brand">"Seats"</a>
                <nav aria-label=move || tr!(lang.get(), "nav.label")>
                    <a href="/">{move || tr!(lang.get(), "nav.showtimes")}</a>
                    <a href="/my-bookings">{move || tr!(lang.get(), "booking.all")}</a>
                </nav>
                <LangSwitch />
                <components::HydratedMark />
            </header>
            <main>
                <Routes fallback=pages::NotFound>
                    <Route path=path!("/") view=pages::ShowtimesPage />
                    <Route path=path!("/showtimes/:id") view=pages::SeatMapPage />
                    <Route path=path!("/showtimes/:id/waiting-room") view=pages::QueuePage />
                    <Route path=path!("/my-bookings") view=pages::MyBookingsPage />
                    <Route path=path!("/my-bookings/:id") view=pages::BookingPage />
                    // The staff's pages. Each page's data comes from a server function that
                    // checks the member's role itself (not the path); rendered whole before
                    // the answer starts, so a refusal is the page's status (401, 403).
                    <Route path=path!("/staff/sign-in") view=pages::SignInPage />
                    <Route path=path!("/box-office") view=pages::BoxOfficePage />
                    <Route path=path!("/door") view=pages::DoorPage />
                    <Route path=path!("/admin") view=pages::AdminPage ssr=SsrMode::Async />
                    <Route path=path!("/admin/halls") view=pages::HallsPage ssr=SsrMode::Async />
                    <Route path=path!("/admin/sales") view=pages::SalesPage ssr=SsrMode::Async />
                    <Route path=path!("/admin/audit") view=pages::AuditPage ssr=SsrMode::Async />
                    <Route path=path!("/admin/tokens") view=pages::TokensPage ssr=SsrMode::Async />
                </Routes>
            </main>
        </Router>
    }
}

/// In the browser, before hydrating: the venue's offset from the page the server rendered, so
/// times read the same on both sides.
#[cfg(feature = "hydrate")]
pub fn read_venue_offset() {
    let offset = leptos::prelude::document()
        .query_selector("meta[name='venue-utc-offset']")
        .ok()
        .flatten()
        .and_then(|meta| meta.get_attribute("content"));
    if let Some(offset) = offset {
        format::set_venue_offset(&offset);
    }
}
