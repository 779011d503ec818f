//! A counter sale and a ticket's print: one transaction each, and their statements. A refund
//! or an exchange checks the shift and the showtime with the sale's statements.

use super::*;
use app::domain::{SeatCode, Won};

/// A counter sale to record.
#[derive(Debug, Clone)]
pub struct CounterSaleRow {
    pub booking: BookingId,
    pub hold: HoldId,
    /// The clerk's customer id (their holds carry it).
    pub customer: CustomerId,
    pub seats: Vec<SeatCode>,
    /// Each seat's type and its price (comp sales: 0).
    pub tickets: Vec<SoldSeat>,
    /// Where the ticket goes too (as [`app::domain::Email`] stores it), and in which language.
    pub email: Option<String>,
    pub language: Option<String>,
    pub amount: Won,
    pub shift: i64,
    pub tender: Tender,
    pub tendered: Option<Won>,
    pub card_reference: Option<String>,
    /// The supervisor who approved a comp.
    pub approved_by: Option<i64>,
    /// The sale's audit line, written with it.
    pub audit: AuditLine,
}

impl CounterSaleRow {
    fn confirmed(&self) -> Envelope {
        Envelope::new(
            self.booking.0,
            BookingEvent::BookingConfirmed {
                showtime_id: self.hold.showtime_id(),
                seats: sql::seat_texts(&self.seats),
                tickets: self.tickets.clone(),
                amount: self.amount,
                payment_id: format!("{}:{}", self.tender.as_str(), self.booking.0),
                channel: match self.tender {
                    Tender::Comp => SalesChannel::Complimentary,
                    _ => SalesChannel::BoxOffice,
                },
            },
        )
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CounterSold {
    Sold(Vec<SeatChange>),
    /// The hold had lapsed, was released, or was sold already: nothing changed.
    HoldLapsed,
    ShiftClosed,
    SalesClosed,
    Cancelled,
}

impl Store {
    /// Sells the clerk's hold in one transaction: the shift still open, the
    /// showtime not cancelled and on sale at `fence` (its row first: a cancellation and this sale go
    /// one after the other), the booking inserted CONFIRMED (one per hold), the hold's seats booked
    /// by the fenced confirm, the sale's row, `BookingConfirmed` and the audit line — all of it or
    /// nothing.
    pub async fn sell_at_counter(
        &self,
        sale: &CounterSaleRow,
        at: At,
        now: Now,
    ) -> Result<CounterSold, StoreError> {
        // The sale is judged at the time it was asked, not after waiting for the writer.
        let fence = self.fence(now);
        let mut tx = self.begin().await?;
        let open = shift_open(&mut tx, sale.shift).await?;
        let state = match open {
            true => showtime_state(&mut tx, sale.hold.showtime_id().get(), fence).await?,
            false => None,
        };
        if let Some(refusal) = sale_refusal(open, state) {
            return Ok(refusal);
        }
        if !insert_booking(&mut tx, sale, at).await? {
            return Ok(CounterSold::HoldLapsed);
        }
        let hold = sale.hold;
        let booked = tx
            .confirm(hold.showtime_id(), hold.as_uuid(), sale.booking, fence)
            .await?;
        if booked.len() != sale.seats.len() {
            tx.rollback().await?;
            return Ok(CounterSold::HoldLapsed);
        }
        insert_sale(&mut tx, sale, at).await?;
        tx.append_event(&sale.confirmed()).await?;
        record_audit(&mut tx, &sale.audit).await?;
        tx.commit().await?;
        Ok(CounterSold::Sold(changes(booked, SeatStatus::Booked)?))
    }

    /// Records print `n` of a booking's ticket (0: the first) by `audit`'s member with its audit
    /// line, in one transaction: one row per print number, so two prints at once cannot both be
    /// the `n`th; `false` (nothing written) when another print took that number first.
    pub async fn print_ticket(
        &self,
        booking: BookingId,
        n: i64,
        approved_by: Option<i64>,
        audit: &AuditLine,
    ) -> Result<bool, StoreError> {
        let mut tx = self.begin().await?;
        if !insert_print(&mut tx, booking, n, approved_by, audit).await? {
            return Ok(false);
        }
        record_audit(&mut tx, audit).await?;
        tx.commit().await?;
        Ok(true)
    }
}

/// Whether shift `shift` is open. A sale or refund holds the shift's row (shared, on
/// PostgreSQL) until it commits: closing the shift waits for the sales in flight, and a sale
/// after the close sees it closed.
pub(super) async fn shift_open(tx: &mut Tx, shift: i64) -> Result<bool, StoreError> {
    let shift_open = "select id from shift where id = $1 and closed_at is null";
    let open = format!("{shift_open} {}", tx.row_lock("for share"));
    let open: Option<i64> = on!(tx, c => {
        sqlx::query_scalar(&open).bind(shift).fetch_optional(c).await?
    });
    Ok(open.is_some())
}

/// Whether the showtime is cancelled, and whether its sales are open at `fence`. A sale takes
/// the showtime's row (shared, on PostgreSQL): a cancellation and this transaction go one after
/// the other.
pub(super) async fn showtime_state(
    tx: &mut Tx,
    showtime: i64,
    fence: Now,
) -> Result<Option<(bool, bool)>, StoreError> {
    let state = format!(
        "select cancelled_at is not null,
                coalesce(sales_close_at, starts_at) > coalesce($2, current_timestamp)
           from showtime where id = $1 {}",
        tx.row_lock("for share")
    );
    Ok(on!(tx, c => {
        sqlx::query_as(&state).bind(showtime).bind(Moment(fence)).fetch_optional(c).await?
    }))
}

/// Inserts the sale's booking, CONFIRMED; false when the hold has one already.
async fn insert_booking(tx: &mut Tx, sale: &CounterSaleRow, at: At) -> Result<bool, StoreError> {
    let insert_booking = "insert into booking (id, showtime_id, hold_id, customer_id, seats,
                                                   amount_krw, status, created_at, updated_at,
                                                   tickets, email, language)
                              values ($1, $2, $3, $4, $5, $6, 'CONFIRMED', $7, $7, $8, $9,
                                      $10)
                              on conflict (hold_id) do nothing returning id";
    let inserted: Option<uuid::Uuid> = on!(tx, c => {
        sqlx::query_scalar(insert_booking)
            .bind(sale.booking.0)
            .bind(sale.hold.showtime_id().get())
            .bind(sale.hold.as_uuid())
            .bind(sale.customer.0)
            .bind(List(sale.seats.clone()))
            .bind(sale.amount)
            .bind(at)
            .bind(crate::store::write_list(&sale.tickets))
            .bind(sale.email.as_deref())
            .bind(sale.language.as_deref())
            .fetch_optional(c)
            .await?
    });
    Ok(inserted.is_some())
}

/// The sale's row.
async fn insert_sale(tx: &mut Tx, sale: &CounterSaleRow, at: At) -> Result<(), StoreError> {
    let insert_sale = "insert into counter_sale (booking_id, shift_id, tender, amount_krw,
                                                     tendered_krw, card_reference, approved_by,
                                                     created_at, seat_count)
                           values ($1, $2, $3, $4, $5, $6, $7, $8, $9)";
    on!(tx, c => {
        sqlx::query(insert_sale)
            .bind(sale.booking.0)
            .bind(sale.shift)
            .bind(sale.tender.as_str())
            .bind(sale.amount)
            .bind(sale.tendered)
            .bind(sale.card_reference.as_deref())
            .bind(sale.approved_by)
            .bind(at)
            .bind(sale.seats.len() as i32)
            .execute(c)
            .await?;
    });
    Ok(())
}

const RECORD_PRINT: &str =
    "insert into ticket_print (booking_id, n, staff_id, approved_by, printed_at)
     values ($1, $2, $3, $4, $5) on conflict do nothing returning n";

/// Records print `n` of the booking; false when that print is recorded already.
async fn insert_print(
    tx: &mut Tx,
    booking: BookingId,
    n: i64,
    approved_by: Option<i64>,
    audit: &AuditLine,
) -> Result<bool, StoreError> {
    let inserted: Option<i32> = on!(tx, c => {
        sqlx::query_scalar(RECORD_PRINT)
            .bind(booking.0)
            .bind(i32::try_from(n).unwrap_or(i32::MAX))
            .bind(audit.staff_id)
            .bind(approved_by)
            .bind(audit.at)
            .fetch_optional(c)
            .await?
    });
    Ok(inserted.is_some())
}
