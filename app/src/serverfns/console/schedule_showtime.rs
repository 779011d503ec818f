// Each argument of the server function is a field of the request's JSON object (all but three
// optional), on the server and in the browser's generated caller alike.
#![expect(clippy::too_many_arguments)]

use crate::domain::ShowtimeId;
use crate::error::InventoryError;
use leptos::prelude::*;

/// Schedules a showtime of `title` in a hall, starting at `starts_at`: operators only. Times are
/// RFC 3339 (e.g. `2026-12-24T19:30:00+09:00`). Optional: `duration_minutes` (running time,
/// default 120), `sales_open_at` (default: on sale at once), `sales_close_at` (default: the
/// start), `hot_sale` (default false), `prices` (category code → whole won, for some or all of
/// the hall's categories; default: the hall's prices), `accessible_release_hours` (hours before
/// the start from which unsold wheelchair and companion seats are ordinary seats; default:
/// never), `ticket_types` (the types sold besides `ADULT`: `YOUTH`, `SENIOR`, `DISABLED`;
/// default: every type the hall has prices for), `ticket_prices` (category code → type → whole
/// won; default: the hall's).
#[server(endpoint = "schedule_showtime", input = server_fn::codec::Json)]
pub async fn schedule_showtime(
    hall_id: i64,
    title: String,
    starts_at: String,
    duration_minutes: Option<i32>,
    sales_open_at: Option<String>,
    sales_close_at: Option<String>,
    hot_sale: Option<bool>,
    prices: Option<std::collections::BTreeMap<String, crate::domain::Won>>,
    accessible_release_hours: Option<u32>,
    ticket_types: Option<Vec<crate::domain::TicketType>>,
    ticket_prices: Option<std::collections::BTreeMap<String, crate::domain::TicketPrices>>,
) -> Result<ShowtimeId, InventoryError> {
    use crate::domain::{rfc3339, NewShowtime, DEFAULT_DURATION_MINUTES};
    use crate::engine::{inventory, require_staff, respond};
    respond(
        async {
            let actor = require_staff(&[]).await?;
            let time = |name: &str, text: &str| {
                rfc3339::parse(text.trim()).ok_or_else(|| {
                    InventoryError::invalid(
                        "invalid.time",
                        &[("field", name.to_string()), ("text", text.to_string())],
                    )
                })
            };
            // An empty field of the console's form is "not set".
            let optional = |name: &str, text: Option<String>| match text {
                Some(text) if !text.trim().is_empty() => time(name, &text).map(Some),
                _ => Ok(None),
            };
            let starts = time("startsAt", &starts_at)?;
            let accessible_release_at = match accessible_release_hours {
                Some(hours) if hours > 24 * 400 => {
                    return Err(InventoryError::invalid("invalid.release_hours", &[]))
                }
                Some(hours) => Some(starts - chrono::Duration::hours(i64::from(hours))),
                None => None,
            };
            let showtime = NewShowtime {
                hall_id,
                starts_at: starts,
                accessible_release_at,
                title,
                duration_minutes: duration_minutes.unwrap_or(DEFAULT_DURATION_MINUTES),
                sales_open_at: optional("salesOpenAt", sales_open_at)?,
                sales_close_at: optional("salesCloseAt", sales_close_at)?,
                hot_sale: hot_sale.unwrap_or(false),
                prices: prices.unwrap_or_default(),
                ticket_types,
                ticket_prices: ticket_prices.unwrap_or_default(),
            };
            inventory()?.schedule_showtime(&showtime, &actor).await
        }
        .await,
    )
}
