use crate::domain::{Hold, SeatSelection, ShowtimeId};
use crate::error::InventoryError;
use leptos::prelude::*;

/// Holds the seats for the current customer: all of them or none.
#[server(endpoint = "hold_seats", input = server_fn::codec::Json)]
pub async fn hold_seats(
    showtime_id: ShowtimeId,
    seats: SeatSelection,
) -> Result<Hold, InventoryError> {
    use crate::engine::{
        current_client_addr, current_customer, inventory, respond, AdmissionProof, Holder,
    };
    respond(
        async {
            inventory()?
                .hold_seats(
                    showtime_id,
                    &seats,
                    Holder::customer(current_customer()?, current_client_addr())
                        .admitted_by(AdmissionProof::Session),
                )
                .await
        }
        .await,
    )
}
