use crate::domain::StaffAccountView;
use crate::error::InventoryError;
use leptos::prelude::*;

/// Every staff account with its role and whether it has a PIN: operators only.
#[server(endpoint = "staff_accounts", input = server_fn::codec::Json)]
pub async fn staff_accounts() -> Result<Vec<StaffAccountView>, InventoryError> {
    use crate::engine::{inventory, require_staff, respond};
    respond(
        async {
            require_staff(&[]).await?;
            inventory()?.staff_accounts().await
        }
        .await,
    )
}
