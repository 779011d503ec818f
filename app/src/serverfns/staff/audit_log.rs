use crate::domain::AuditEntry;
use crate::error::InventoryError;
use leptos::prelude::*;

/// The newest lines of the staff audit log: operators only.
#[server(endpoint = "audit_log", input = server_fn::codec::Json)]
pub async fn audit_log() -> Result<Vec<AuditEntry>, InventoryError> {
    use crate::engine::{inventory, require_staff, respond};
    respond(
        async {
            require_staff(&[]).await?;
            inventory()?.audit_log().await
        }
        .await,
    )
}
