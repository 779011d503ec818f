//! The sales page's chart: net revenue (revenue less refunds) per day as SVG bars, drawn on the
//! server with the page (no chart service, no script).

use crate::domain::{SalesFigure, Won};
use crate::format::price;
use crate::i18n::use_lang;
use crate::tr;
use leptos::prelude::*;
use std::collections::BTreeMap;

/// Net revenue per day (`YYYY-MM-DD`), oldest first.
pub fn revenue_by_day(rows: &[SalesFigure]) -> Vec<(String, Won)> {
    let mut days: BTreeMap<String, Won> = BTreeMap::new();
    for r in rows {
        *days.entry(r.day.clone()).or_default() += r.revenue - r.refunded;
    }
    days.into_iter().collect()
}

const BAR: i64 = 48;
const GAP: i64 = 16;
const HEIGHT: i64 = 140;

#[component]
pub fn RevenueChart(days: Vec<(String, Won)>) -> impl IntoView {
    let lang = use_lang();
    let most = days.iter().map(|d| d.1.get()).max().unwrap_or(0).max(1);
    let width = days.len() as i64 * (BAR + GAP) + GAP;
    let summary = days.clone();
    view! {
        <figure class="sales-chart" data-test="sales-chart">
            <svg
                viewBox=format!("0 0 {width} {}", HEIGHT + 40)
                width=width.to_string()
                role="img"
                aria-label=move || {
                    let parts: Vec<String> = summary
                        .iter()
                        .map(|(day, net)| format!("{day}: {}", price(lang.get(), *net)))
                        .collect();
                    format!("{}: {}", tr!(lang.get(), "sales.chart"), parts.join(", "))
                }
            >
                {days.into_iter().enumerate().map(|(i, (day, net))| {
                    let height = net.get().max(0) * HEIGHT / most;
                    let x = GAP + i as i64 * (BAR + GAP);
                    let label = day.get(5..).unwrap_or(&day).to_string();
                    view! {
                        <rect class="bar" data-test="sales-bar" data-day=day
                            x=x.to_string() y=(HEIGHT + 10 - height).to_string()
                            width=BAR.to_string() height=height.max(1).to_string() />
                        <text x=(x + BAR / 2).to_string() y=(HEIGHT + 30).to_string() text-anchor="middle">{label}</text>
                    }
                }).collect_view()}
            </svg>
            <figcaption>{move || tr!(lang.get(), "sales.chart")}</figcaption>
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn figure(day: &str, revenue: i64, refunded: i64) -> SalesFigure {
        SalesFigure {
            day: day.into(),
            channel: crate::domain::SalesChannel::Online,
            showtime_id: crate::domain::ShowtimeId::try_from(1).unwrap(),
            movie_title: "t".into(),
            starts_at: chrono::DateTime::from_timestamp(0, 0).unwrap(),
            bookings: 1,
            seats: 1,
            adult_seats: 1,
            youth_seats: 0,
            senior_seats: 0,
            disabled_seats: 0,
            revenue: Won::new(revenue),
            refunds: 0,
            refunded: Won::new(refunded),
        }
    }

    #[test]
    fn revenue_is_netted_and_summed_per_day_oldest_first() {
        let rows = [
            figure("2026-12-02", 30_000, 0),
            figure("2026-12-01", 20_000, 5_000),
            figure("2026-12-02", 12_000, 12_000),
        ];
        assert_eq!(
            revenue_by_day(&rows),
            [
                ("2026-12-01".to_string(), Won::new(15_000)),
                ("2026-12-02".to_string(), Won::new(30_000))
            ]
        );
    }
}
