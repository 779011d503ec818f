use crate::domain::BookingView;
use crate::error::InventoryError;
use leptos::prelude::*;

/// The customer cancels their own online booking before the venue's cut-off: the seats go
/// back on sale and the payment is refunded. Answers the booking as it is then.
#[server(endpoint = "cancel_booking", input = server_fn::codec::Json)]
pub async fn cancel_booking(booking_id: String) -> Result<BookingView, InventoryError> {
    use crate::engine::{current_customer, inventory, respond};
    respond(
        async {
            inventory()?
                .cancel_booking(super::booking(&booking_id)?, current_customer()?)
                .await
        }
        .await,
    )
}
