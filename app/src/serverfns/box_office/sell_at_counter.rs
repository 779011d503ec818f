use crate::domain::{CounterSale, CounterSaleRequest};
use crate::error::InventoryError;
use leptos::prelude::*;

/// Sells the clerk's hold: cash, card or complimentary.
#[server(endpoint = "sell_at_counter", input = server_fn::codec::Json)]
pub async fn sell_at_counter(sale: CounterSaleRequest) -> Result<CounterSale, InventoryError> {
    use crate::domain::COUNTER_ROLES;
    use crate::engine::{inventory, require_staff, respond};
    respond(
        async {
            let actor = require_staff(&COUNTER_ROLES).await?;
            inventory()?.sell_at_counter(&actor, &sale).await
        }
        .await,
    )
}
