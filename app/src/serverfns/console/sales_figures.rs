use crate::domain::SalesFigure;
use crate::error::InventoryError;
use leptos::prelude::*;

/// Sales figures for the operator page: the operator's only.
#[server(endpoint = "sales_figures", input = server_fn::codec::Json)]
pub async fn sales_figures() -> Result<Vec<SalesFigure>, InventoryError> {
    use crate::engine::{inventory, require_staff, respond};
    respond(
        async {
            require_staff(&[]).await?;
            inventory()?.sales_figures().await
        }
        .await,
    )
}
