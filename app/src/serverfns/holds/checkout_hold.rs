use crate::domain::Checkout;
use crate::error::InventoryError;
use leptos::prelude::*;
use uuid::Uuid;

/// Starts the payment of the current customer's hold (the same engine call as
/// `POST /holds/{id}/checkout`; repeating it finds the same payment session). As there, a UUID
/// that no hold can have is a 404.
#[server(endpoint = "checkout_hold", input = server_fn::codec::Json)]
pub async fn checkout_hold(hold_id: Uuid) -> Result<Checkout, InventoryError> {
    use crate::domain::HoldId;
    use crate::engine::{current_client_addr, current_customer, inventory, respond};
    respond(
        async {
            let hold = HoldId::from_uuid(hold_id).ok_or(InventoryError::HoldNotFound)?;
            inventory()?
                .checkout_hold(hold, current_customer()?, current_client_addr())
                .await
        }
        .await,
    )
}
