// Leptos views are deeply nested types; release builds of the hydrate bundle need more depth.
#![recursion_limit = "256"]

//! The customer's browser bundle: hydrates the pages of a sale (the showtimes, the seat map, the
//! waiting room). A customer's bookings are the bundle in `bookings/`, the staff's pages the one
//! in `staff/`.

#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    app::read_venue_offset();
    leptos::mount::hydrate_body(app::CustomerApp);
}
