use crate::domain::{BestAvailable, Hold, ShowtimeId};
use crate::error::InventoryError;
use leptos::prelude::*;

/// Picks and holds the best seats for the current customer (see `seat_rules`).
#[server(endpoint = "hold_best", input = server_fn::codec::Json)]
pub async fn hold_best(
    showtime_id: ShowtimeId,
    request: BestAvailable,
) -> Result<Hold, InventoryError> {
    use crate::engine::{
        current_client_addr, current_customer, inventory, respond, AdmissionProof, Holder,
    };
    respond(
        async {
            let request = request.check().map_err(InventoryError::from)?;
            inventory()?
                .hold_best(
                    showtime_id,
                    &request,
                    Holder::customer(current_customer()?, current_client_addr())
                        .admitted_by(AdmissionProof::Session),
                )
                .await
        }
        .await,
    )
}
