//! The engine as the server functions (and the REST handlers) see it: `app::engine::Inventory`,
//! each method a use case of its own module.

use super::Engine;
use app::domain::{
    ApiToken, AuditEntry, BestAvailable, BookingId, BookingView, Checkout, CustomerId, HallPlan,
    HallSummary, Hold, HoldId, NewApiToken, SalesFigure, SeatMap, SeatSelection, ShowtimeCounts,
    ShowtimeId, ShowtimeSummary, Ticket,
};
use app::engine::{Actor, Inventory};
use app::error::InventoryError;
use std::net::IpAddr;

#[async_trait::async_trait]
impl Inventory for Engine {
    async fn list_showtimes(&self) -> Result<Vec<ShowtimeSummary>, InventoryError> {
        self.programme().await
    }

    async fn seat_map(&self, showtime: ShowtimeId) -> Result<SeatMap, InventoryError> {
        self.seat_map_now(showtime).await
    }

    async fn hold_from(
        &self,
        showtime: ShowtimeId,
        seats: &SeatSelection,
        customer: CustomerId,
        client_addr: Option<IpAddr>,
    ) -> Result<Hold, InventoryError> {
        // Limits count an address by its bucket (IPv6: the /56).
        let client_addr = client_addr.map(crate::net::bucket);
        self.place_hold(showtime, seats, customer, client_addr, false)
            .await
    }

    async fn hold_best(
        &self,
        showtime: ShowtimeId,
        request: &BestAvailable,
        customer: CustomerId,
        client_addr: Option<IpAddr>,
    ) -> Result<Hold, InventoryError> {
        let client_addr = client_addr.map(crate::net::bucket);
        self.hold_best_seats(showtime, request, customer, client_addr, false)
            .await
    }

    async fn cancel(&self, hold: HoldId, customer: CustomerId) -> Result<(), InventoryError> {
        self.cancel_hold(hold, customer).await
    }

    async fn current_hold(
        &self,
        showtime: ShowtimeId,
        customer: CustomerId,
    ) -> Result<Option<Hold>, InventoryError> {
        self.live_hold_of(showtime, customer).await
    }

    async fn checkout(
        &self,
        hold: HoldId,
        customer: CustomerId,
    ) -> Result<Checkout, InventoryError> {
        // The page's checkout: the same limits as the REST API's (its address from the request).
        let client_addr = app::engine::current_client_addr();
        self.checkout_gate(hold, customer, client_addr).await?;
        self.open_checkout(hold, customer).await
    }

    async fn booking(
        &self,
        booking: BookingId,
        customer: CustomerId,
    ) -> Result<BookingView, InventoryError> {
        self.customer_booking(booking, customer).await
    }

    async fn bookings(&self, customer: CustomerId) -> Result<Vec<BookingView>, InventoryError> {
        self.customer_bookings(customer).await
    }

    async fn ticket(
        &self,
        booking: BookingId,
        customer: CustomerId,
    ) -> Result<Ticket, InventoryError> {
        self.customer_ticket(booking, customer).await
    }

    async fn sales(&self) -> Result<Vec<SalesFigure>, InventoryError> {
        self.sales_figures().await
    }

    async fn audit_log(&self) -> Result<Vec<AuditEntry>, InventoryError> {
        self.audit_lines().await
    }

    async fn api_tokens(&self) -> Result<Vec<ApiToken>, InventoryError> {
        self.list_api_tokens().await
    }

    async fn create_api_token(
        &self,
        name: &str,
        by: &Actor,
    ) -> Result<NewApiToken, InventoryError> {
        self.new_api_token(name, by).await
    }

    async fn revoke_api_token(&self, id: i64, by: &Actor) -> Result<(), InventoryError> {
        self.end_api_token(id, by).await
    }

    async fn import_hall(
        &self,
        plan: &HallPlan,
        by: &Actor,
    ) -> Result<HallSummary, InventoryError> {
        self.make_hall(plan, by).await
    }

    async fn halls(&self) -> Result<Vec<HallSummary>, InventoryError> {
        self.hall_list().await
    }

    async fn hall_plan(&self, hall_id: i64) -> Result<HallPlan, InventoryError> {
        self.export_plan(hall_id).await
    }

    async fn showtime_counts(&self) -> Result<Vec<ShowtimeCounts>, InventoryError> {
        self.counts().await
    }

    async fn schedule_showtime(
        &self,
        showtime: &app::domain::NewShowtime,
        by: &Actor,
    ) -> Result<ShowtimeId, InventoryError> {
        self.schedule(showtime, by).await
    }

    async fn set_staff_pin(
        &self,
        by: &Actor,
        password: &str,
        pin: &str,
    ) -> Result<(), InventoryError> {
        self.staff_set_pin(by, password, pin).await
    }

    async fn reset_staff_pin(
        &self,
        member: &str,
        pin: Option<&str>,
        by: &Actor,
    ) -> Result<(), InventoryError> {
        Engine::reset_staff_pin(self, member, pin, by).await
    }

    async fn staff_accounts(&self) -> Result<Vec<app::domain::StaffAccountView>, InventoryError> {
        Engine::staff_accounts(self).await
    }

    async fn cancel_showtime(
        &self,
        showtime: ShowtimeId,
        by: &Actor,
    ) -> Result<app::domain::ShowtimeCancelled, InventoryError> {
        self.cancel(showtime, by).await
    }

    async fn block_seats(
        &self,
        showtime: ShowtimeId,
        seats: &[String],
        block: app::domain::SeatBlock,
        by: &Actor,
    ) -> Result<Vec<app::domain::SeatChange>, InventoryError> {
        self.block(showtime, seats, block, by).await
    }
}
