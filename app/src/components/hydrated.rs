//! A mark that says this part of the page has hydrated in the browser: rendered `false` by the
//! server, set `true` by an effect, which only runs once the part around it came to life. The
//! end-to-end tests wait on it; a page whose hydration failed never sets it.

use leptos::prelude::*;

#[component]
pub fn HydratedMark() -> impl IntoView {
    let done = RwSignal::new(false);
    Effect::new(move |_| done.set(true));
    view! { <span hidden data-test="hydrated" data-done=move || done.get().to_string()></span> }
}
