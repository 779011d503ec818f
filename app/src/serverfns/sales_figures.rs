use crate::domain::SalesFigure;
use crate::error::InventoryError;
use leptos::prelude::*;

/// Sales figures for the operator page (the server asks for the operator's password first).
#[server(endpoint = "sales_figures", input = server_fn::codec::Json)]
pub async fn sales_figures() -> Result<Vec<SalesFigure>, InventoryError> {
    use crate::engine::{inventory, respond};
    respond(async { inventory()?.sales().await }.await)
}
