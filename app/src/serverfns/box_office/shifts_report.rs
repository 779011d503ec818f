use crate::domain::Shift;
use crate::error::InventoryError;
use leptos::prelude::*;

/// Recent shifts with their figures (operators and supervisors).
#[server(endpoint = "shifts_report", input = server_fn::codec::Json)]
pub async fn shifts_report() -> Result<Vec<Shift>, InventoryError> {
    use crate::domain::APPROVER_ROLES;
    use crate::engine::{inventory, require_staff, respond};
    respond(
        async {
            require_staff(&APPROVER_ROLES).await?;
            inventory()?.shifts_report().await
        }
        .await,
    )
}
