use crate::domain::{CounterRefund, CounterRefundRequest};
use crate::error::InventoryError;
use leptos::prelude::*;

/// Refunds a whole booking at the counter, with a supervisor's approval.
#[server(endpoint = "refund_at_counter", input = server_fn::codec::Json)]
pub async fn refund_at_counter(
    refund: CounterRefundRequest,
) -> Result<CounterRefund, InventoryError> {
    use crate::domain::COUNTER_ROLES;
    use crate::engine::{inventory, require_staff, respond};
    respond(
        async {
            let actor = require_staff(&COUNTER_ROLES).await?;
            inventory()?.refund_at_counter(&actor, &refund).await
        }
        .await,
    )
}
