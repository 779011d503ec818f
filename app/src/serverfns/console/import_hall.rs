use crate::domain::{HallPlan, HallSummary};
use crate::error::InventoryError;
use leptos::prelude::*;

/// Makes a hall from its plan (JSON, see `domain::HallPlan`): operators only.
#[server(endpoint = "import_hall", input = server_fn::codec::Json)]
pub async fn import_hall(plan: HallPlan) -> Result<HallSummary, InventoryError> {
    use crate::engine::{inventory, require_staff, respond};
    respond(
        async {
            let actor = require_staff(&[]).await?;
            inventory()?.import_hall(&plan, &actor).await
        }
        .await,
    )
}
