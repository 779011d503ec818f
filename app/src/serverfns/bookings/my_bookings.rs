use crate::domain::BookingView;
use crate::error::InventoryError;
use leptos::prelude::*;

/// The current customer's bookings, newest first.
#[server(endpoint = "my_bookings", input = server_fn::codec::Json)]
pub async fn my_bookings() -> Result<Vec<BookingView>, InventoryError> {
    use crate::engine::{current_customer, inventory, respond};
    respond(async { inventory()?.my_bookings(current_customer()?).await }.await)
}
