use crate::domain::Checkout;
use crate::error::InventoryError;
use leptos::prelude::*;

/// Starts the payment of the current customer's hold (the same engine call as
/// `POST /holds/{id}/checkout`; repeating it finds the same payment session).
#[server(endpoint = "checkout_hold", input = server_fn::codec::Json)]
pub async fn checkout_hold(hold_id: String) -> Result<Checkout, InventoryError> {
    crate::engine::respond(checkout_hold_inner(hold_id).await)
}

#[cfg(feature = "ssr")]
async fn checkout_hold_inner(hold_id: String) -> Result<Checkout, InventoryError> {
    let hold = crate::domain::HoldId::parse(&hold_id).ok_or(InventoryError::HoldNotFound)?;
    let customer = crate::engine::current_customer()?;
    crate::engine::inventory()?.checkout(hold, customer).await
}
