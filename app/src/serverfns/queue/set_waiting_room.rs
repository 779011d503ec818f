// The settings are the server function's flat arguments (its documented JSON body), on the
// server and in the browser's generated call alike.
#![allow(clippy::too_many_arguments)]

use crate::domain::{ShowtimeId, WaitingRoomView};
use crate::error::InventoryError;
use leptos::prelude::*;

/// Turns the showtime's waiting room on or off (its hot-sale flag), pauses admissions, sets how
/// many shoppers are inside at once and how many are let in a minute, the room's message,
/// whether those who joined before sales open are drawn in a random order at the opening, and
/// the proof of work (bits) a new place costs.
/// Operators only; every server process follows within a second.
#[server(endpoint = "set_waiting_room", input = server_fn::codec::Json)]
pub async fn set_waiting_room(
    showtime_id: ShowtimeId,
    on: bool,
    max_active: u32,
    admit_per_minute: u32,
    #[server(default)] message: String,
    #[server(default)] paused: bool,
    #[server(default)] shuffle: bool,
    #[server(default)] proof_bits: u8,
) -> Result<WaitingRoomView, InventoryError> {
    use crate::domain::WaitingRoomSettings;
    use crate::engine::{inventory, require_staff, respond};
    respond(
        async {
            let actor = require_staff(&[]).await?;
            let settings = WaitingRoomSettings {
                on,
                paused,
                max_active,
                admit_per_minute,
                message,
                shuffle,
                proof_bits,
            };
            inventory()?
                .set_waiting_room(showtime_id, &settings, &actor)
                .await
        }
        .await,
    )
}
