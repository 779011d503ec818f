// Leptos views are deeply nested types; release builds of the hydrate bundle need more depth.
#![recursion_limit = "256"]

//! The browser entry point: hydrates the server-rendered page.

#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    app::read_venue_offset();
    leptos::mount::hydrate_body(app::App);
}
