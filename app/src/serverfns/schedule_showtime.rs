use crate::domain::ShowtimeId;
use crate::error::InventoryError;
use leptos::prelude::*;

/// Schedules a showtime of `title` in a hall, starting at `starts_at` (RFC 3339, e.g.
/// `2026-12-24T19:30:00+09:00`): operators only.
#[server(endpoint = "schedule_showtime", input = server_fn::codec::Json)]
pub async fn schedule_showtime(
    hall_id: i64,
    title: String,
    starts_at: String,
) -> Result<ShowtimeId, InventoryError> {
    use crate::engine::{inventory, require_staff, respond};
    respond(
        async {
            let actor = require_staff(&[]).await?;
            let starts_at = crate::domain::rfc3339::parse(starts_at.trim()).ok_or_else(|| {
                InventoryError::InvalidRequest(format!(
                    "startsAt {starts_at:?} is not an RFC 3339 time such as 2026-12-24T19:30:00+09:00"
                ))
            })?;
            inventory()?
                .schedule_showtime(hall_id, &title, starts_at, &actor)
                .await
        }
        .await,
    )
}
