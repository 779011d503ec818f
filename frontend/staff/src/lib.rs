// Leptos views are deeply nested types; release builds of the hydrate bundle need more depth.
#![recursion_limit = "256"]

//! The staff's browser bundle: hydrates the staff's pages (the operator console, the layout
//! editor, the box office kiosk, the door). A customer's phone never downloads it.

#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    app::read_venue_offset();
    leptos::mount::hydrate_body(app::StaffApp);
}
