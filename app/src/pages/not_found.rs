use crate::i18n::use_lang;
use crate::tr;
use leptos::prelude::*;

#[component]
pub fn NotFound() -> impl IntoView {
    #[cfg(feature = "ssr")]
    if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
        response.set_status(http::StatusCode::NOT_FOUND);
    }
    let lang = use_lang();
    view! {
        <h1>{move || tr!(lang.get(), "not_found.heading")}</h1>
        <p>
            <a href="/">{move || tr!(lang.get(), "not_found.back")}</a>
        </p>
    }
}
