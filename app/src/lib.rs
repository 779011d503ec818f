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
use leptos_meta::{provide_meta_context, MetaTags, Stylesheet, Title};
use leptos_router::components::{Route, Router, Routes};
use leptos_router::path;

/// The HTML document around the app, rendered on the server in the request's language.
pub fn shell(options: LeptosOptions) -> impl IntoView {
    view! {
        <!DOCTYPE html>
        <html lang=i18n::initial_lang().code()>
            <head>
                <meta charset="utf-8" />
                <meta name="viewport" content="width=device-width, initial-scale=1" />
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

#[component]
pub fn App() -> impl IntoView {
    provide_meta_context();
    let lang = i18n::provide_lang();
    view! {
        <Stylesheet id="leptos" href="/pkg/seats.css" />
        <Title text=move || tr!(lang.get(), "site.title") />
        <Router>
            <header class="site-header">
                <a href="/" class="brand">"Seats"</a>
                <nav aria-label=move || tr!(lang.get(), "nav.label")>
                    <a href="/">{move || tr!(lang.get(), "nav.showtimes")}</a>
                    <a href="/my-bookings">{move || tr!(lang.get(), "booking.all")}</a>
                </nav>
                <LangSwitch />
            </header>
            <main>
                <Routes fallback=pages::NotFound>
                    <Route path=path!("/") view=pages::ShowtimesPage />
                    <Route path=path!("/showtimes/:id") view=pages::SeatMapPage />
                    <Route path=path!("/my-bookings") view=pages::MyBookingsPage />
                    <Route path=path!("/my-bookings/:id") view=pages::BookingPage />
                    <Route path=path!("/operator/sales") view=pages::SalesPage />
                </Routes>
            </main>
        </Router>
    }
}
