use crate::i18n::{switch_lang, use_lang};
use crate::tr;
use leptos::prelude::*;

/// Switches between Korean and English; the choice is kept in a cookie.
#[component]
pub fn LangSwitch() -> impl IntoView {
    let lang = use_lang();
    view! {
        <button
            type="button"
            class="lang-switch"
            data-test="lang-switch"
            lang=move || lang.get().other().code()
            on:click=move |_| switch_lang(lang, lang.get_untracked().other())
        >
            {move || tr!(lang.get(), "lang.switch")}
        </button>
    }
}
