use crate::domain::BookingView;
use crate::error::InventoryError;
use leptos::prelude::*;

/// A booking found again by its reference and the address given at checkout (the same engine
/// call as `POST /bookings/lookup`): from then on the current customer sees it as their own.
#[server(endpoint = "lookup_booking", input = server_fn::codec::Json)]
pub async fn lookup_booking(
    reference: String,
    email: String,
) -> Result<BookingView, InventoryError> {
    use crate::domain::BookingLookup;
    use crate::engine::{current_client_addr, current_customer, inventory, respond};
    respond(
        async {
            inventory()?
                .lookup_booking(
                    BookingLookup { reference, email },
                    current_customer()?,
                    current_client_addr(),
                )
                .await
        }
        .await,
    )
}
