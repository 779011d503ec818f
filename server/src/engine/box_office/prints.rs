//! Printed tickets: the first print of a counter sale in the clerk's open shift; reprints, and
//! any print of a booking paid online, with a supervisor's approval; every print recorded and
//! audited.

use super::*;

/// The venue's name on printed tickets.
pub const VENUE: &str = "Seats Cinema";

#[async_trait::async_trait]
impl Prints for Engine {
    /// What a booking's ticket says, to print, in the clerk's open shift; a second print is a
    /// reprint, a supervisor's. Every print is recorded and audited, online bookings' too.
    async fn print_ticket(
        &self,
        actor: &Actor,
        reference: &str,
        approval: Option<&Approval>,
    ) -> Result<PrintedTicket, InventoryError> {
        let shift = self.open_shift_id(actor).await?;
        let booking = self.booking_named(reference).await?;
        let record = self
            .store
            .bookings(BookingFilter::One(booking))
            .await?
            .pop()
            .filter(|r| r.status == BookingStatus::Confirmed)
            .ok_or(InventoryError::BookingNotFound)?;
        if record.refunded_at.is_some() {
            return Err(InventoryError::NotRefundable(Reason::new(
                "invalid.refunded_not_printed",
                &[],
            )));
        }
        if record.showtime_cancelled {
            return Err(InventoryError::ShowtimeCancelled);
        }
        // Everything the ticket says first: a print is recorded only once it can be given.
        let layout = self.layout(record.showtime).await?;
        let code = self.ticket_code(booking);
        let qr_svg = super::tickets::qr_svg(&code, 160)?;
        let seats = record
            .seats
            .iter()
            .filter_map(|code| layout.seats.iter().find(|s| s.code == *code))
            .map(|seat| {
                let category = layout.categories.iter().find(|c| c.code == seat.category);
                let ticket_code = self.seat_ticket_code(booking, seat.code.as_str());
                let sold = record.tickets.iter().find(|t| t.seat == seat.code.as_str());
                Ok(PrintedSeat {
                    ticket_type: sold.map(|t| t.ticket_type).unwrap_or_default(),
                    qr_svg: super::tickets::qr_svg(&ticket_code, 120)?,
                    ticket_code,
                    code: seat.code.to_string(),
                    row: seat.row.clone(),
                    number: seat.number.to_string(),
                    category: category.map_or_else(|| seat.category.clone(), |c| c.name.clone()),
                    category_code: seat.category.clone(),
                    price: sold
                        .map_or_else(|| category.map_or(Won::ZERO, |c| c.price), |t| t.price),
                })
            })
            .collect::<Result<Vec<_>, InventoryError>>()?;
        // Print n: the first of a counter sale needs nobody's approval; a reprint, and any print
        // of a booking paid online (its holder has the e-mailed ticket already: a paper one is a
        // second ticket), a supervisor's. Two prints at the same moment cannot both be the
        // first (one row per number).
        let online = !record.payments.is_empty();
        let mut approved_by: Option<(i64, String)> = None;
        let reprint = loop {
            let n = self.store.prints(booking).await?;
            if (n > 0 || online) && approved_by.is_none() {
                approved_by = Some(self.approver(actor, approval).await?);
            }
            let audit = match (n, &approved_by) {
                (0, Some((_, name))) => self.audit_line(
                    actor,
                    "ticket_printed",
                    Said::new(
                        format!(
                            "booking {} (paid online) in shift {shift}, approved by {name}",
                            booking.0
                        ),
                        vec![
                            AuditFact::Booking(booking.0.to_string()),
                            AuditFact::Shift(shift),
                            AuditFact::ApprovedBy(name.clone()),
                        ],
                    ),
                ),
                (0, None) => self.audit_line(
                    actor,
                    "ticket_printed",
                    Said::new(
                        format!("booking {} in shift {shift}", booking.0),
                        vec![
                            AuditFact::Booking(booking.0.to_string()),
                            AuditFact::Shift(shift),
                        ],
                    ),
                ),
                (n, approver) => {
                    let name = approver.as_ref().map_or("", |(_, name)| name.as_str());
                    self.audit_line(
                        actor,
                        "ticket_reprinted",
                        Said::new(
                            format!(
                                "booking {} reprint {n} in shift {shift}, approved by {name}",
                                booking.0,
                            ),
                            vec![
                                AuditFact::Booking(booking.0.to_string()),
                                AuditFact::Reprint(n),
                                AuditFact::Shift(shift),
                                AuditFact::ApprovedBy(name.to_string()),
                            ],
                        ),
                    )
                }
            };
            let approver = approved_by.as_ref().map(|(id, _)| *id);
            if self
                .store
                .print_ticket(booking, n, approver, &audit)
                .await?
            {
                break n;
            }
        };
        Ok(PrintedTicket {
            booking_id: booking,
            code,
            qr_svg,
            venue: VENUE.into(),
            hall_name: layout.hall_name.clone(),
            movie_title: layout.movie_title.clone(),
            starts_at: layout.starts_at,
            seats,
            amount: record.amount,
            reprint,
        })
    }
}
