//! Everything the server and the browser share: domain types, the Leptos components and routes,
//! and the server functions. Server-only code sits behind the `ssr` feature.

pub mod codec;
pub mod components;
pub mod domain;
#[cfg(feature = "ssr")]
pub mod engine;
pub mod error;
pub mod error_text;
pub mod format;
pub mod i18n;
pub mod pages;
pub mod particles;
pub mod seating;
pub mod serverfns;

// The texts: the server and the staff's bundle have all of them (`locales/**`); the customer's
// bundle only the customer's pages' and the shared ones (`locales/customer/`), so that a phone
// downloads none of the console's or the kiosk's. (The unit tests have all of them.)
#[cfg(any(feature = "ssr", feature = "staff", test))]
rust_i18n::i18n!("locales", fallback = "en");
#[cfg(not(any(feature = "ssr", feature = "staff", test)))]
rust_i18n::i18n!("locales/customer", fallback = "en");

use components::LangSwitch;
use leptos::prelude::*;
use leptos_meta::{provide_meta_context, MetaTags, Title};
use leptos_router::components::{Route, Router, Routes};
use leptos_router::{path, SsrMode};

/// The HTML document around a page, rendered on the server in the request's language: the
/// page's own bundle (by its path, see [`Bundle`]) is linked and hydrates it.
pub fn shell(options: LeptosOptions) -> impl IntoView {
    #[cfg(feature = "ssr")]
    content_security_policy();
    let bundle = Bundle::of_request();
    let scripts = bundle.options(&options);
    view! {
        <!DOCTYPE html>
        <html lang=i18n::initial_lang().code()>
            <head>
                <meta charset="utf-8" />
                <meta name="viewport" content="width=device-width, initial-scale=1" />
                <meta name="venue-utc-offset" content=format::venue_offset_text() />
                <link rel="stylesheet" id="leptos" href=stylesheet(&options) />
                <link rel="icon" type="image/svg+xml" href="/favicon.svg" />
                <AutoReload options=options.clone() />
                <HydrationScripts options=scripts />
                <MetaTags />
            </head>
            <body>
                {match bundle {
                    Bundle::Customer => view! { <CustomerApp /> }.into_any(),
                    Bundle::Bookings => view! { <BookingsApp /> }.into_any(),
                    Bundle::Staff => view! { <StaffApp /> }.into_any(),
                }}
            </body>
        </html>
    }
}

/// The three WebAssembly bundles. The customer's is the rush's: the showtimes, the seat map and
/// the waiting room, what a phone opens when a sale starts. A customer's bookings (the list, a
/// booking's page and tickets, finding a booking) are a bundle of their own, opened after paying
/// (the gateway's page sends the customer back to a page loaded afresh) or later; the staff's
/// pages (console, layout editor, kiosk, door) are the third. A page's path says which one it
/// belongs to; each bundle hydrates its own root ([`CustomerApp`], [`BookingsApp`],
/// [`StaffApp`]), and a link from one to another's page loads that page afresh (see
/// [`OtherBundle`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bundle {
    Customer,
    Bookings,
    Staff,
}

impl Bundle {
    /// The bundle of the page at `path`: the staff's under `/staff/`, `/admin`, `/box-office`
    /// and `/door`, the bookings' under `/my-bookings` and `/find-booking`, the customer's
    /// everywhere else (a page that does not exist included).
    pub fn of_path(path: &str) -> Self {
        let under = |prefix: &str| {
            path.strip_prefix(prefix)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
        };
        if ["/staff", "/admin", "/box-office", "/door"]
            .into_iter()
            .any(under)
        {
            Self::Staff
        } else if ["/my-bookings", "/find-booking"].into_iter().any(under) {
            Self::Bookings
        } else {
            Self::Customer
        }
    }

    /// The bundle of the page being rendered (the server's request; in the browser, the
    /// address shown).
    fn of_request() -> Self {
        #[cfg(feature = "ssr")]
        let path = use_context::<http::request::Parts>().map(|p| p.uri.path().to_string());
        #[cfg(not(feature = "ssr"))]
        let path = leptos::prelude::window().location().pathname().ok();
        path.map_or(Self::Customer, |p| Self::of_path(&p))
    }

    /// The bundle's file name: the site's output name, with `-bookings` or `-staff` for those.
    pub fn output_name(self, site: &str) -> String {
        match self {
            Self::Customer => site.to_string(),
            Self::Bookings => format!("{site}-bookings"),
            Self::Staff => format!("{site}-staff"),
        }
    }

    /// The name of the site's file that lists the bundle's content hashes: `hash.txt` for the
    /// customer's (with the stylesheet's), `hash-bookings.txt`, `hash-staff.txt`.
    pub fn hash_file_name(self) -> &'static str {
        match self {
            Self::Customer => "hash.txt",
            Self::Bookings => "hash-bookings.txt",
            Self::Staff => "hash-staff.txt",
        }
    }

    /// The site's options with this bundle's names, for the hydration scripts.
    fn options(self, options: &LeptosOptions) -> LeptosOptions {
        let mut mine = options.clone();
        mine.output_name = self.output_name(&options.output_name).into();
        if self != Self::Customer {
            let file =
                std::path::Path::new(&*options.hash_file).with_file_name(self.hash_file_name());
            mine.hash_file = file.to_string_lossy().into_owned().into();
        }
        mine
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

/// The customer's pages of a sale, the root the customer's bundle hydrates.
#[component]
pub fn CustomerApp() -> impl IntoView {
    view! {
        <Frame header=customer_header>
            <Routes fallback=|| view! { <OtherBundle mine=Bundle::Customer /> }>
                <Route path=path!("/") view=pages::ShowtimesPage />
                <Route path=path!("/showtimes/:id") view=pages::SeatMapPage />
                <Route path=path!("/showtimes/:id/waiting-room") view=pages::QueuePage />
            </Routes>
        </Frame>
    }
}

/// A customer's bookings, the root the bookings' bundle hydrates.
#[component]
pub fn BookingsApp() -> impl IntoView {
    view! {
        <Frame header=customer_header>
            <Routes fallback=|| view! { <OtherBundle mine=Bundle::Bookings /> }>
                <Route path=path!("/my-bookings") view=pages::MyBookingsPage />
                <Route path=path!("/my-bookings/:id") view=pages::BookingPage />
                <Route path=path!("/find-booking") view=pages::FindBookingPage />
            </Routes>
        </Frame>
    }
}

/// The staff's pages, the root the staff's bundle hydrates. Each page's data comes from a
/// server function that checks the member's role itself (not the path); the console's pages
/// are rendered whole before the answer starts, so a refusal is the page's status (401, 403).
#[component]
pub fn StaffApp() -> impl IntoView {
    view! {
        <Frame header=staff_header>
            <Routes fallback=|| view! { <OtherBundle mine=Bundle::Staff /> }>
                <Route path=path!("/staff/sign-in") view=pages::SignInPage />
                <Route path=path!("/box-office") view=pages::BoxOfficePage />
                <Route path=path!("/door") view=pages::DoorPage />
                <Route path=path!("/admin") view=pages::AdminPage ssr=SsrMode::Async />
                <Route path=path!("/admin/halls") view=pages::HallsPage ssr=SsrMode::Async />
                <Route path=path!("/admin/sales") view=pages::SalesPage ssr=SsrMode::Async />
                <Route path=path!("/admin/audit") view=pages::AuditPage ssr=SsrMode::Async />
                <Route path=path!("/admin/bookings") view=pages::BookingsPage ssr=SsrMode::Async />
                <Route path=path!("/admin/tokens") view=pages::TokensPage ssr=SsrMode::Async />
            </Routes>
        </Frame>
    }
}

/// What a bundle's router shows for a path it has no page for. A page of the other bundle
/// (the browser followed a link there): that page is loaded afresh, with its own bundle. Any
/// other path, and always on the server: "not found".
#[component]
fn OtherBundle(mine: Bundle) -> impl IntoView {
    #[cfg(not(feature = "ssr"))]
    {
        // The router's address, which the browser's may not show yet.
        let at = leptos_router::hooks::use_location();
        let path = at.pathname.get_untracked();
        if Bundle::of_path(&path) != mine {
            let (search, hash) = (at.search.get_untracked(), at.hash.get_untracked());
            let query = if search.is_empty() {
                String::new()
            } else {
                format!("?{search}")
            };
            let _ = leptos::prelude::window()
                .location()
                .set_href(&format!("{path}{query}{hash}"));
            return ().into_any();
        }
    }
    #[cfg(feature = "ssr")]
    let _ = mine;
    view! { <pages::NotFound /> }.into_any()
}

/// The customer's pages' header: the showtimes, their bookings, the language.
fn customer_header() -> AnyView {
    let lang = i18n::use_lang();
    view! {
        <header class="site-header">
            <a href="/" class="brand">"Seats"</a>
            <nav aria-label=move || tr!(lang.get(), "nav.label")>
                <a href="/">{move || tr!(lang.get(), "nav.showtimes")}</a>
                <a href="/my-bookings">{move || tr!(lang.get(), "booking.all")}</a>
            </nav>
            <LangSwitch />
            <components::HydratedMark />
        </header>
    }
    .into_any()
}

/// The staff pages' header (signing out, where the member's role works).
fn staff_header() -> AnyView {
    view! { <pages::staff::StaffHeader /> }.into_any()
}

/// What every page has around it: the title, the router, the header of the bundle's pages. The
/// header is given by the bundle's root, so that the customer's bundle holds nothing of the
/// staff's header (nor the staff's of the customer's).
#[component]
fn Frame(header: fn() -> AnyView, children: Children) -> impl IntoView {
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
            {header()}
            <main>{children()}</main>
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
