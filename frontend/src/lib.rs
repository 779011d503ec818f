// Leptos views are deeply nested types; release builds of the hydrate bundle need more depth.
#![recursion_limit = "256"]

//! The customer's browser bundle: hydrates the customer's pages (the showtimes, the seat map,
//! the waiting room, bookings). The staff's pages are the bundle in `staff/`.

#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    app::read_venue_offset();
    leptos::mount::hydrate_body(app::CustomerApp);
}
