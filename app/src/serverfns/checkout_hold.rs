use crate::domain::{Checkout, HoldId};
use crate::error::InventoryError;
use leptos::prelude::*;

/// Starts the payment of the current customer's hold (the same engine call as
/// `POST /holds/{id}/checkout`; repeating it finds the same payment session).
#[server(endpoint = "checkout_hold", input = server_fn::codec::Json)]
pub async fn checkout_hold(hold_id: HoldId) -> Result<Checkout, InventoryError> {
    use crate::engine::{current_customer, inventory, respond};
    respond(async { inventory()?.checkout(hold_id, current_customer()?).await }.await)
}
