// Leptos views are deeply nested types; release builds of the hydrate bundle need more depth.
#![recursion_limit = "256"]

//! A customer's bookings' browser bundle: hydrates the list of their bookings, a booking's page
//! with its tickets, and finding a booking. Kept out of the customer's bundle, which a phone
//! downloads when a sale starts.

#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    app::read_venue_offset();
    leptos::mount::hydrate_body(app::BookingsApp);
}
