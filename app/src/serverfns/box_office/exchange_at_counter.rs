use crate::domain::{CounterExchange, CounterExchangeRequest};
use crate::error::InventoryError;
use leptos::prelude::*;

/// Exchanges seats of a booking for the clerk's hold (same showtime, same price categories).
#[server(endpoint = "exchange_at_counter", input = server_fn::codec::Json)]
pub async fn exchange_at_counter(
    exchange: CounterExchangeRequest,
) -> Result<CounterExchange, InventoryError> {
    use crate::domain::COUNTER_ROLES;
    use crate::engine::{inventory, require_staff, respond};
    respond(
        async {
            let actor = require_staff(&COUNTER_ROLES).await?;
            inventory()?.exchange_at_counter(&actor, &exchange).await
        }
        .await,
    )
}
