use crate::error::InventoryError;
use leptos::prelude::*;

/// Counter sales of cancelled showtimes owed back at the counter: supervisors (and operators).
#[server(endpoint = "refunds_owed", input = server_fn::codec::Json)]
pub async fn refunds_owed() -> Result<Vec<crate::domain::OwedRefund>, InventoryError> {
    use crate::domain::APPROVER_ROLES;
    use crate::engine::{inventory, require_staff, respond};
    respond(
        async {
            require_staff(&APPROVER_ROLES).await?;
            inventory()?.refunds_owed().await
        }
        .await,
    )
}
