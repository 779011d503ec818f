//! What the audit log says of a showtime scheduled: a line a person reads, and its facts.

use super::super::staff::Said;
use app::domain::{AuditFact, NewShowtime, ShowtimeId, TicketType, Won};

/// The audit line of showtime `id`, scheduled as `showtime` with its table of ticket prices.
pub(super) fn scheduled(
    id: ShowtimeId,
    showtime: &NewShowtime,
    ticket_prices: &[(String, TicketType, Won)],
) -> Said {
    let hall_id = showtime.hall_id;
    let sales = showtime.sales();
    let detail = format!(
        "showtime {id}: {} in hall {hall_id} at {} for {} min, on sale {} to {}{}",
        showtime.title.trim(),
        showtime.starts_at.to_rfc3339(),
        showtime.duration_minutes,
        sales.opens_at.map_or("now".into(), |at| at.to_rfc3339()),
        sales.closes_at.to_rfc3339(),
        if showtime.hot_sale { ", hot sale" } else { "" },
    );
    let prices: Vec<String> = showtime
        .prices
        .iter()
        .map(|(c, p)| format!("{c} {p}"))
        .collect();
    let detail = if prices.is_empty() {
        detail
    } else {
        format!("{detail}; prices {}", prices.join(", "))
    };
    let ticket_prices: Vec<String> = ticket_prices
        .iter()
        .map(|(c, t, p)| format!("{c} {} {p}", t.as_str()))
        .collect();
    let detail = if ticket_prices.is_empty() {
        detail
    } else {
        format!("{detail}; ticket types {}", ticket_prices.join(", "))
    };
    let mut facts = vec![
        AuditFact::Showtime(id.get()),
        AuditFact::Title(showtime.title.trim().to_string()),
        AuditFact::Hall(hall_id),
        AuditFact::StartsAt(showtime.starts_at.to_rfc3339()),
        AuditFact::Minutes(i64::from(showtime.duration_minutes)),
    ];
    if let Some(at) = sales.opens_at {
        facts.push(AuditFact::OnSaleFrom(at.to_rfc3339()));
    }
    facts.push(AuditFact::OnSaleUntil(sales.closes_at.to_rfc3339()));
    if showtime.hot_sale {
        facts.push(AuditFact::HotSale);
    }
    if !showtime.prices.is_empty() {
        let prices = showtime
            .prices
            .iter()
            .map(|(c, p)| (c.clone(), *p))
            .collect();
        facts.push(AuditFact::Prices(prices));
    }
    Said::new(detail, facts)
}
