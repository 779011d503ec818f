//! A customer's bookings as they see them: status, seats, money, payments, the ticket once
//! issued. Only their own.

use super::*;
use crate::store::{BookingFilter, BookingRecord, BookingStatus, PaymentStatus};
use app::domain::Ticket;
use app::domain::{BookingView, PaymentView};
use app::engine::Bookings;

#[async_trait::async_trait]
impl Bookings for Engine {
    /// A booking as its customer sees it: 404 when unknown, 403 for another customer's.
    async fn get_booking(
        &self,
        booking: BookingId,
        customer: CustomerId,
    ) -> Result<BookingView, InventoryError> {
        let record = self.booking_record(booking).await?;
        if record.customer != customer {
            return Err(InventoryError::NotYourBooking);
        }
        self.booking_view(record).await
    }

    /// The ticket of the customer's confirmed booking.
    async fn get_ticket(
        &self,
        booking: BookingId,
        customer: CustomerId,
    ) -> Result<Ticket, InventoryError> {
        let view = self.get_booking(booking, customer).await?;
        if view.status != "CONFIRMED" {
            return Err(InventoryError::TicketNotReady);
        }
        // Issued by the ticket consumer after the confirmation (a moment later).
        let Some((code, _)) = self.store.issued_ticket(booking).await? else {
            return Err(InventoryError::TicketNotReady);
        };
        let qr_svg = super::tickets::qr_svg(&code, 200)?;
        let seats = self.seat_tickets(booking, &view.seats, 160)?;
        Ok(Ticket {
            code,
            qr_svg,
            seats,
        })
    }

    /// The customer's bookings, newest first.
    async fn my_bookings(&self, customer: CustomerId) -> Result<Vec<BookingView>, InventoryError> {
        let mut out = Vec::new();
        for record in self
            .store
            .bookings(BookingFilter::OfCustomer(customer))
            .await?
        {
            out.push(self.booking_view(record).await?);
        }
        Ok(out)
    }
}

impl Engine {
    /// A booking as stored: 404 when unknown.
    pub(super) async fn booking_record(
        &self,
        booking: BookingId,
    ) -> Result<BookingRecord, InventoryError> {
        self.store
            .bookings(BookingFilter::One(booking))
            .await?
            .pop()
            .ok_or(InventoryError::BookingNotFound)
    }

    pub(super) async fn booking_view(
        &self,
        record: BookingRecord,
    ) -> Result<BookingView, InventoryError> {
        let layout = self.layout(record.showtime).await?;
        let ticket_issued_at = if record.status == BookingStatus::Confirmed {
            self.store.issued_ticket(record.id).await?.map(|(_, at)| at)
        } else {
            None
        };
        Ok(BookingView {
            ticket_issued_at,
            showtime_cancelled: record.showtime_cancelled,
            refunded_at: record.refunded_at,
            booking_id: record.id,
            status: record.status.to_string(),
            showtime_id: record.showtime,
            movie_title: layout.movie_title.clone(),
            hall_name: layout.hall_name.clone(),
            starts_at: layout.starts_at,
            seats: record.seats,
            amount: record.amount,
            currency: "KRW".into(),
            failure_reason: record.failure_reason,
            created_at: record.created_at,
            updated_at: record.updated_at,
            payments: record
                .payments
                .into_iter()
                .map(|p| PaymentView {
                    payment_url: (p.status == PaymentStatus::Pending).then_some(p.payment_url),
                    status: p.status.to_string(),
                    amount: p.amount,
                    pay_before: p.pay_before,
                    updated_at: p.updated_at,
                })
                .collect(),
        })
    }
}
