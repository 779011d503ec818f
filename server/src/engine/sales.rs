//! The operator's sales figures (kept by the sales consumer).

use super::*;

impl Engine {
    pub(super) async fn sales_figures(
        &self,
    ) -> Result<Vec<app::domain::SalesFigure>, InventoryError> {
        Ok(self
            .store
            .sales()
            .await?
            .into_iter()
            .map(|r| app::domain::SalesFigure {
                day: r.day.format("%Y-%m-%d").to_string(),
                channel: r.channel,
                showtime_id: r.showtime,
                movie_title: r.movie_title,
                starts_at: r.starts_at,
                bookings: r.bookings,
                seats: r.seats,
                revenue: r.revenue,
                refunds: r.refunds,
                refunded: r.refunded,
            })
            .collect())
    }
}
