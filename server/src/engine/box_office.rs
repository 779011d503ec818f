//! The box office and the door. A clerk opens a shift at a register with a cash float; their
//! pick is a hold like a customer's (the web sees it at once, a web customer trying those seats
//! gets 409) that lasts while the sale is at the counter (`holds::CLERK_HOLD_TTL`) and is released on
//! cancel, lock or sign-out; the sale confirms it with the fenced confirmation and writes
//! `BookingConfirmed` (channel `box_office`, or `complimentary`) in the same transaction.
//! Refunds, complimentary sales and reprints need a supervisor: their own session, or their name
//! and PIN given at the clerk's kiosk. The door checks a ticket in once.

use super::*;
use crate::store::{
    AuditLine, BookingFilter, BookingStatus, CounterExchangeRow, CounterExchanged,
    CounterRefundRow, CounterRefunded, CounterSaleRow, CounterSold, Scanned, ShiftFilter,
    ShiftRecord, TenderSum,
};
use app::domain::{
    Approval, BestAvailable, CheckIn, CheckInResult, CounterExchange, CounterExchangeRequest,
    CounterRefund, CounterRefundRequest, CounterSale, CounterSaleRequest, PrintedSeat,
    PrintedTicket, ScanAt, Shift, ShiftFigures, StaffRole, Tender, APPROVER_ROLES,
};
use app::engine::{Actor, BoxOfficeDesk};

const APPROVERS: [StaffRole; 1] = APPROVER_ROLES;
/// The largest cash float or amount of cash a drawer is told about (₩100,000,000).
const MAX_CASH: i64 = 100_000_000;
/// The venue's name on printed tickets.
pub const VENUE: &str = "Seats Cinema";
/// How long before its start a showtime's doors open (a door naming no showtime admits it
/// from then to its end).
pub const DOORS_OPEN_BEFORE: chrono::TimeDelta = chrono::TimeDelta::hours(2);

/// Whether the doors of `layout`'s showtime are open at `now`: from [`DOORS_OPEN_BEFORE`] before
/// the start to the end of its running time.
fn doors_open(layout: &crate::store::Layout, now: chrono::DateTime<chrono::Utc>) -> bool {
    let ends = layout.starts_at + chrono::TimeDelta::minutes(i64::from(layout.duration_minutes));
    (layout.starts_at - DOORS_OPEN_BEFORE..=ends).contains(&now)
}

/// The customer id a clerk's holds carry: fixed per staff member, never a customer's (customer
/// ids are random v4 UUIDs; these are version 8 with a fixed prefix).
pub fn clerk_customer(staff_id: i64) -> CustomerId {
    let mut bytes = [0u8; 16];
    bytes[..8].copy_from_slice(b"seatsclk");
    bytes[8..].copy_from_slice(&staff_id.to_be_bytes());
    CustomerId(uuid::Builder::from_custom_bytes(bytes).into_uuid())
}

fn figures(sales: &[TenderSum], refunds: &[TenderSum]) -> ShiftFigures {
    let sale = |kind: &str| sales.iter().find(|t| t.kind == kind);
    let (cash, card, comp) = (sale("cash"), sale("card"), sale("comp"));
    let cash_refund = refunds.iter().find(|t| t.kind == "cash");
    let other = refunds.iter().filter(|t| t.kind != "cash");
    ShiftFigures {
        cash_sales: cash.map_or(0, |t| t.count),
        cash_amount: cash.map_or(0, |t| t.amount),
        card_sales: card.map_or(0, |t| t.count),
        card_amount: card.map_or(0, |t| t.amount),
        comp_sales: comp.map_or(0, |t| t.count),
        comp_seats: comp.map_or(0, |t| t.seats),
        cash_refunds: cash_refund.map_or(0, |t| t.count),
        cash_refunded: cash_refund.map_or(0, |t| t.amount),
        other_refunds: other.clone().map(|t| t.count).sum(),
        other_refunded: other.map(|t| t.amount).sum(),
        owed_refunds: 0,
        owed_amount: 0,
    }
}

impl Engine {
    /// An audit line of `actor`'s, to be written by the transaction of the action it records.
    fn audit_line(&self, actor: &Actor, action: &'static str, detail: String) -> AuditLine {
        AuditLine {
            at: self.staff_now(),
            staff_id: actor.member.id,
            staff_name: actor.member.name.clone(),
            action,
            detail,
            address: actor.address.map(|a| a.to_string()),
        }
    }

    async fn shift_view(&self, record: ShiftRecord) -> Result<Shift, InventoryError> {
        let (sales, refunds) = self.store.shift_sums(record.id).await?;
        let (owed_refunds, owed_amount) = self.store.shift_owed(record.id).await?;
        Ok(Shift {
            id: record.id,
            clerk: record.clerk,
            register: record.register,
            float: record.float_krw,
            opened_at: record.opened_at.0,
            closed_at: record.closed_at.map(|at| at.0),
            counted: record.counted_krw,
            closed_by: record.closed_by,
            figures: ShiftFigures {
                owed_refunds,
                owed_amount,
                ..figures(&sales, &refunds)
            },
        })
    }

    /// The acting member's open shift.
    pub async fn current_shift(&self, actor: &Actor) -> Result<Option<Shift>, InventoryError> {
        match self
            .store
            .shifts(ShiftFilter::OpenOf(actor.member.id))
            .await?
            .pop()
        {
            Some(record) => Ok(Some(self.shift_view(record).await?)),
            None => Ok(None),
        }
    }

    async fn open_shift_id(&self, actor: &Actor) -> Result<i64, InventoryError> {
        self.store
            .shifts(ShiftFilter::OpenOf(actor.member.id))
            .await?
            .pop()
            .map(|s| s.id)
            .ok_or(InventoryError::NoOpenShift)
    }

    /// Opens a shift at `register` with `float` won in the drawer.
    pub async fn open_shift(
        &self,
        actor: &Actor,
        register: &str,
        float: i64,
    ) -> Result<Shift, InventoryError> {
        if let Some(problem) = app::domain::name_problem("a register's name", register, 40) {
            return Err(InventoryError::InvalidRequest(problem));
        }
        let register = register.trim();
        if !(0..=MAX_CASH).contains(&float) {
            return Err(InventoryError::InvalidRequest(format!(
                "the float is between 0 and {MAX_CASH} won"
            )));
        }
        let Some(id) = self
            .store
            .open_shift(actor.member.id, register, float, self.staff_now())
            .await?
        else {
            return Err(InventoryError::ShiftAlreadyOpen(
                match self.current_shift(actor).await? {
                    Some(shift) => format!(
                        "you have a shift open at register {:?}: close it first",
                        shift.register
                    ),
                    None => format!("register {register:?} has another clerk's shift open"),
                },
            ));
        };
        self.audit(
            actor,
            "shift_opened",
            format!("shift {id} at register {register}, float {float}"),
        )
        .await;
        let record = self.store.shifts(ShiftFilter::One(id)).await?.pop();
        self.shift_view(record.ok_or(InventoryError::Unavailable)?)
            .await
    }

    /// Closes the acting member's open shift, or (a supervisor) shift `id`, with the cash
    /// counted.
    pub async fn close_shift(
        &self,
        actor: &Actor,
        id: Option<i64>,
        counted: i64,
    ) -> Result<Shift, InventoryError> {
        if !(0..=MAX_CASH).contains(&counted) {
            return Err(InventoryError::InvalidRequest(format!(
                "the cash counted is between 0 and {MAX_CASH} won"
            )));
        }
        let id = match id {
            Some(id) => id,
            None => self.open_shift_id(actor).await?,
        };
        let record = self
            .store
            .shifts(ShiftFilter::One(id))
            .await?
            .pop()
            .ok_or_else(|| InventoryError::InvalidRequest(format!("no shift {id}")))?;
        if record.clerk_id != actor.member.id && !actor.member.role.may(&APPROVERS) {
            return Err(InventoryError::StaffForbidden);
        }
        if !self
            .store
            .close_shift(id, counted, actor.member.id, self.staff_now())
            .await?
        {
            return Err(InventoryError::ShiftClosed);
        }
        // The clerk's picks that were never sold go back on sale.
        self.release_clerk_holds(record.clerk_id).await?;
        let record = self.store.shifts(ShiftFilter::One(id)).await?.pop();
        let shift = self
            .shift_view(record.ok_or(InventoryError::Unavailable)?)
            .await?;
        self.audit(
            actor,
            "shift_closed",
            format!(
                "shift {id} of {}: expected cash {}, counted {counted}, variance {}",
                shift.clerk,
                shift.expected_cash(),
                shift.variance().unwrap_or_default()
            ),
        )
        .await;
        Ok(shift)
    }

    /// Recent shifts, newest first (the operator's report).
    pub async fn recent_shifts(&self) -> Result<Vec<Shift>, InventoryError> {
        let mut out = Vec::new();
        for record in self.store.shifts(ShiftFilter::Recent).await? {
            out.push(self.shift_view(record).await?);
        }
        Ok(out)
    }

    /// A clerk's pick: the seats, or the best `best` — held for the sale at the counter.
    pub async fn clerk_hold(
        &self,
        actor: &Actor,
        showtime: ShowtimeId,
        seats: Option<&SeatSelection>,
        best: Option<&BestAvailable>,
    ) -> Result<Hold, InventoryError> {
        self.open_shift_id(actor).await?;
        let clerk = clerk_customer(actor.member.id);
        // One sale at a time: whatever the clerk picked before and did not sell goes back.
        self.release_clerk_holds(actor.member.id).await?;
        match (seats, best) {
            (Some(seats), None) => self.place_hold(showtime, seats, clerk, None, true).await,
            (None, Some(best)) => {
                self.hold_best_seats(showtime, best, clerk, None, true)
                    .await
            }
            _ => Err(InventoryError::InvalidRequest(
                "give either seats or a best-available request".into(),
            )),
        }
    }

    /// Releases every live hold of the clerk (a cancelled sale, a locked kiosk, signing out, a
    /// closed shift); how many.
    pub async fn release_clerk_holds(&self, staff_id: i64) -> Result<usize, InventoryError> {
        let clerk = clerk_customer(staff_id);
        let holds = self.store.live_holds_of(clerk, self.staff_now()).await?;
        let mut released = 0;
        for hold in holds {
            match self.cancel_hold(hold, clerk).await {
                Ok(()) => released += 1,
                Err(InventoryError::HoldNotFound) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(released)
    }

    /// The approver of a refund, a comp or a reprint: the acting member if they may approve,
    /// else the supervisor named in `approval`, whose PIN must match (see `pin_approves`: every
    /// refusal the same, wrong PINs slow further approvals by that supervisor, never her own
    /// sign-in). Its id and name.
    async fn approver(
        &self,
        actor: &Actor,
        approval: Option<&Approval>,
    ) -> Result<(i64, String), InventoryError> {
        if actor.member.role.may(&APPROVERS) {
            return Ok((actor.member.id, actor.member.name.clone()));
        }
        let approval = approval.ok_or(InventoryError::ApprovalRequired)?;
        let name = approval.supervisor.trim();
        // A name no account can have is not looked up (a NUL byte would not even be stored).
        let account = match crate::staff::StaffName::parse(name) {
            Ok(parsed) => self.store.staff_named(parsed.as_str()).await?,
            Err(_) => None,
        }
        .filter(|a| a.disabled_at.is_none() && a.role.may(&APPROVERS));
        let hash = account.as_ref().and_then(|a| a.pin_hash.clone());
        let approved = self
            .pin_approves(name, hash, &approval.pin, actor.address)
            .await;
        match (approved, account) {
            (Ok(()), Some(account)) => Ok((account.id, account.name)),
            (Err(e @ (InventoryError::RateLimited(_) | InventoryError::Unavailable)), _) => Err(e),
            _ => {
                self.audit(
                    actor,
                    "approval_failed",
                    format!(
                        "supervisor {:?}: not accepted",
                        name.chars()
                            .filter(|c| !c.is_control())
                            .take(40)
                            .collect::<String>()
                    ),
                )
                .await;
                Err(InventoryError::ApprovalRefused)
            }
        }
    }

    /// Sells the clerk's hold at the counter.
    pub async fn sell_at_counter(
        &self,
        actor: &Actor,
        request: &CounterSaleRequest,
    ) -> Result<CounterSale, InventoryError> {
        let clerk = clerk_customer(actor.member.id);
        let showtime = request.hold_id.showtime_id();
        let shift = self.open_shift_id(actor).await?;
        let live = self.live_hold(request.hold_id, clerk).await?;
        let layout = self.layout(showtime).await?;
        if live.now >= layout.sales_close_at() {
            return Err(InventoryError::SalesClosed);
        }
        let price = layout.price_of(&live.seats);
        let (amount, tendered, card_reference, approved_by) = match request.tender {
            Tender::Cash => {
                let tendered = request.tendered.ok_or_else(|| {
                    InventoryError::InvalidRequest("cash: say how much was tendered".into())
                })?;
                if tendered < price {
                    return Err(InventoryError::InvalidRequest(format!(
                        "cash tendered ({tendered} won) is less than the total ({price} won)"
                    )));
                }
                if tendered > MAX_CASH {
                    return Err(InventoryError::InvalidRequest(format!(
                        "cash tendered is at most {MAX_CASH} won"
                    )));
                }
                (price, Some(tendered), None, None)
            }
            Tender::Card => {
                let reference = request
                    .card_reference
                    .as_deref()
                    .map(str::trim)
                    .filter(|r| app::domain::name_problem("", r, 64).is_none())
                    .ok_or_else(|| {
                        InventoryError::InvalidRequest(
                            "card: give the terminal's reference of the payment (1 to 64 printable characters)"
                                .into(),
                        )
                    })?;
                (price, None, Some(reference.to_string()), None)
            }
            Tender::Comp => {
                let approver = self.approver(actor, request.approval.as_ref()).await?;
                (0, None, None, Some(approver))
            }
        };
        let booking = BookingId(uuid::Uuid::new_v4());
        let seats: Vec<String> = live.seats.iter().map(|c| c.to_string()).collect();
        let approval = approved_by
            .as_ref()
            .map_or_else(String::new, |(_, name)| format!(", approved by {name}"));
        let audit = self.audit_line(
            actor,
            "counter_sale",
            format!(
                "booking {} showtime {showtime} seats {} {} {amount}{approval}",
                booking.0,
                seats.join(" "),
                request.tender.as_str()
            ),
        );
        let row = CounterSaleRow {
            booking,
            hold: request.hold_id,
            customer: clerk,
            seats: seats.clone(),
            amount,
            shift,
            tender: request.tender,
            tendered,
            card_reference: card_reference.clone(),
            approved_by: approved_by.map(|(id, _)| id),
            audit,
        };
        let changes = match self
            .store
            .sell_at_counter(&row, self.staff_now(), self.clock.now())
            .await?
        {
            CounterSold::Sold(changes) => changes,
            CounterSold::HoldLapsed => return Err(InventoryError::HoldLapsed),
            CounterSold::ShiftClosed => return Err(InventoryError::ShiftClosed),
            CounterSold::SalesClosed => return Err(InventoryError::SalesClosed),
            CounterSold::Cancelled => return Err(InventoryError::ShowtimeCancelled),
        };
        self.relay_wake.notify_one();
        self.announce_booked(showtime, booking, changes).await;
        Ok(CounterSale {
            booking_id: booking,
            showtime_id: showtime,
            seats,
            tender: request.tender,
            amount,
            tendered,
            change: tendered.map(|t| t - amount),
            card_reference,
        })
    }

    /// The booking a reference names: its id, the booking number printed on its tickets
    /// (`21D6B008`), or a ticket's code (the booking's or a seat's).
    async fn booking_named(&self, reference: &str) -> Result<BookingId, InventoryError> {
        let reference = reference.trim();
        if let Ok(id) = uuid::Uuid::try_parse(reference) {
            return Ok(BookingId(id));
        }
        if reference.len() == 8 && reference.bytes().all(|b| b.is_ascii_hexdigit()) {
            return match self
                .store
                .bookings_numbered(&reference.to_ascii_lowercase())
                .await?
                .as_slice()
            {
                [one] => Ok(*one),
                [] => Err(InventoryError::BookingNotFound),
                _ => Err(InventoryError::InvalidRequest(format!(
                    "several bookings have the number {reference}: scan the ticket or give the whole booking id"
                ))),
            };
        }
        self.verify_ticket(reference)
            .ok_or(InventoryError::BookingNotFound)
    }

    /// Refunds a whole booking at the counter, with a supervisor's approval.
    pub async fn refund_at_counter(
        &self,
        actor: &Actor,
        request: &CounterRefundRequest,
    ) -> Result<CounterRefund, InventoryError> {
        let booking = self.booking_named(&request.booking).await?;
        let shift = self.open_shift_id(actor).await?;
        let seats = match &request.seats {
            Some(seats) => Some(self.seats_of_booking(booking, seats).await?),
            None => None,
        };
        let partial_amount = match &seats {
            Some((showtime, seats)) => self.price_of(*showtime, seats).await?,
            None => 0,
        };
        let (approved_by, approver) = self.approver(actor, request.approval.as_ref()).await?;
        let what = match &seats {
            Some((_, seats)) => format!("seats {}", seats.join(" ")),
            None => "all seats".into(),
        };
        // The amount and method are the store's decision: the line names the booking, the
        // seats and the approver; the answer and the shift's figures carry the amount.
        let audit = self.audit_line(
            actor,
            "counter_refund",
            format!("booking {} {what}, approved by {approver}", booking.0),
        );
        let row = CounterRefundRow {
            booking,
            shift,
            approved_by,
            seats: seats.map(|(_, seats)| seats),
            partial_amount,
            audit,
        };
        match self.store.refund_at_counter(&row, self.staff_now()).await? {
            CounterRefunded::Refunded {
                showtime,
                seats,
                amount,
                method,
            } => {
                self.relay_wake.notify_one();
                self.refund_wake.notify_one();
                let codes: Vec<_> = seats.iter().map(|s| s.code.clone()).collect();
                self.gate.release_booked(showtime, &codes, booking).await;
                self.announce_released(showtime, seats.clone()).await;
                Ok(CounterRefund {
                    booking_id: booking,
                    showtime_id: showtime,
                    seats,
                    amount,
                    method,
                })
            }
            CounterRefunded::NotFound => Err(InventoryError::BookingNotFound),
            CounterRefunded::Refused(why) => Err(InventoryError::NotRefundable(why)),
            CounterRefunded::ShiftClosed => Err(InventoryError::ShiftClosed),
        }
    }

    /// The showtime of `booking` and `seats` (distinct, 1 to 8, seat codes), checked.
    async fn seats_of_booking(
        &self,
        booking: BookingId,
        seats: &[String],
    ) -> Result<(ShowtimeId, Vec<String>), InventoryError> {
        let selection = SeatSelection::parse(seats)?;
        let record = self.booking_record(booking).await?;
        let seats: Vec<String> = selection.seats().iter().map(|c| c.to_string()).collect();
        if let Some(seat) = seats.iter().find(|s| !record.seats.contains(s)) {
            return Err(InventoryError::InvalidRequest(format!(
                "seat {seat} is not in this booking (it has {})",
                record.seats.join(", ")
            )));
        }
        Ok((record.showtime, seats))
    }

    /// What `seats` of the showtime cost at its prices.
    async fn price_of(
        &self,
        showtime: ShowtimeId,
        seats: &[String],
    ) -> Result<i64, InventoryError> {
        Ok(self.layout(showtime).await?.price_of(seats))
    }

    /// Exchanges seats of a booking for the clerk's hold of as many seats of the same price
    /// categories in the same showtime, with a supervisor's approval (as for refunds: another
    /// customer's seats are moved); the booking's code stays valid, the seats' own codes follow
    /// the seats. Writes `SeatsExchanged`.
    pub async fn exchange_at_counter(
        &self,
        actor: &Actor,
        request: &CounterExchangeRequest,
    ) -> Result<CounterExchange, InventoryError> {
        let booking = self.booking_named(&request.booking).await?;
        let shift = self.open_shift_id(actor).await?;
        let clerk = clerk_customer(actor.member.id);
        let (showtime, from) = self.seats_of_booking(booking, &request.seats).await?;
        if showtime != request.hold_id.showtime_id() {
            return Err(InventoryError::InvalidRequest(
                "an exchange is for seats of the same showtime; anything else is a refund and a new sale"
                    .into(),
            ));
        }
        let live = self.live_hold(request.hold_id, clerk).await?;
        let to: Vec<String> = live.seats.iter().map(|c| c.to_string()).collect();
        let layout = self.layout(showtime).await?;
        let categories = |seats: &[String]| {
            let mut list: Vec<String> = seats
                .iter()
                .filter_map(|code| layout.seats.iter().find(|s| s.code.as_str() == code))
                .map(|s| s.category.clone())
                .collect();
            list.sort();
            list
        };
        if categories(&from) != categories(&to) {
            return Err(InventoryError::InvalidRequest(format!(
                "an exchange is for as many seats of the same price categories ({} for {}); anything else is a refund and a new sale",
                from.join(", "),
                to.join(", ")
            )));
        }
        let (_, approver) = self.approver(actor, request.approval.as_ref()).await?;
        let audit = self.audit_line(
            actor,
            "counter_exchange",
            format!(
                "booking {} showtime {showtime}: {} for {}, approved by {approver}",
                booking.0,
                from.join(" "),
                to.join(" ")
            ),
        );
        let row = CounterExchangeRow {
            booking,
            shift,
            from: from.clone(),
            hold: request.hold_id,
            to: to.clone(),
            audit,
        };
        match self
            .store
            .exchange_at_counter(&row, self.staff_now(), self.clock.now())
            .await?
        {
            CounterExchanged::Exchanged { released, booked } => {
                let freed: Vec<_> = released.iter().map(|s| s.code.clone()).collect();
                self.gate.release_booked(showtime, &freed, booking).await;
                self.announce_released(showtime, released).await;
                self.announce_booked(showtime, booking, booked).await;
                self.relay_wake.notify_one();
                Ok(CounterExchange {
                    booking_id: booking,
                    showtime_id: showtime,
                    released: from,
                    booked: to,
                })
            }
            CounterExchanged::NotFound => Err(InventoryError::BookingNotFound),
            CounterExchanged::Refused(why) => Err(InventoryError::NotRefundable(why)),
            CounterExchanged::HoldLapsed => Err(InventoryError::HoldLapsed),
            CounterExchanged::ShiftClosed => Err(InventoryError::ShiftClosed),
        }
    }

    /// What a booking's ticket says, to print, in the clerk's open shift; a second print is a
    /// reprint, a supervisor's. Every print is recorded and audited, online bookings' too.
    pub async fn print_ticket(
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
            return Err(InventoryError::NotRefundable(
                "this booking was refunded: its ticket is not printed".into(),
            ));
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
            .filter_map(|code| layout.seats.iter().find(|s| s.code.as_str() == code))
            .map(|seat| {
                let category = layout.categories.iter().find(|c| c.code == seat.category);
                let ticket_code = self.seat_ticket_code(booking, seat.code.as_str());
                Ok(PrintedSeat {
                    qr_svg: super::tickets::qr_svg(&ticket_code, 120)?,
                    ticket_code,
                    code: seat.code.to_string(),
                    row: seat.row.clone(),
                    number: seat.number.to_string(),
                    category: category.map_or_else(|| seat.category.clone(), |c| c.name.clone()),
                    price: category.map_or(0, |c| c.price),
                })
            })
            .collect::<Result<Vec<_>, InventoryError>>()?;
        // Print n: the first needs nobody's approval, a reprint a supervisor's. Two prints at the
        // same moment cannot both be the first (one row per number).
        let mut approved_by: Option<(i64, String)> = None;
        let reprint = loop {
            let n = self.store.prints(booking).await?;
            if n > 0 && approved_by.is_none() {
                approved_by = Some(self.approver(actor, approval).await?);
            }
            let audit = match (n, &approved_by) {
                (0, _) => self.audit_line(
                    actor,
                    "ticket_printed",
                    format!("booking {} in shift {shift}", booking.0),
                ),
                (n, approver) => self.audit_line(
                    actor,
                    "ticket_reprinted",
                    format!(
                        "booking {} reprint {n} in shift {shift}, approved by {}",
                        booking.0,
                        approver.as_ref().map_or("", |(_, name)| name.as_str())
                    ),
                ),
            };
            let approver = approved_by.as_ref().map(|(id, _)| *id);
            if self
                .store
                .record_print(booking, n, approver, &audit)
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

    /// Checks a ticket in at the door: each seat once, even from two doors at once. A seat's
    /// ticket lets that seat in; the booking's code lets in every seat not in yet. A door that
    /// names no showtime admits the showtimes whose doors are open: from [`DOORS_OPEN_BEFORE`]
    /// before the start to the end.
    pub async fn check_in(
        &self,
        code: &str,
        at: &ScanAt,
        staff: Option<i64>,
    ) -> Result<CheckIn, InventoryError> {
        let gate = at
            .gate
            .as_deref()
            .map(str::trim)
            .filter(|g| !g.is_empty())
            .unwrap_or("main");
        if let Some(problem) = app::domain::name_problem("a gate's name", gate, 40) {
            return Err(InventoryError::InvalidRequest(problem));
        }
        let Some(ticket) = self.verify_ticket_ref(code) else {
            return Ok(CheckIn::not_found());
        };
        let booking = ticket.booking;
        let Some(record) = self
            .store
            .bookings(BookingFilter::One(booking))
            .await?
            .pop()
            .filter(|r| r.status == BookingStatus::Confirmed)
        else {
            return Ok(CheckIn::not_found());
        };
        let layout = self.layout(record.showtime).await?;
        let mut answer = CheckIn {
            result: CheckInResult::Ok,
            booking_id: Some(booking),
            showtime_id: Some(record.showtime),
            movie_title: Some(layout.movie_title.clone()),
            hall_name: Some(layout.hall_name.clone()),
            starts_at: Some(layout.starts_at),
            seats: record.seats.clone(),
            ..CheckIn::not_found()
        };
        if record.showtime_cancelled {
            answer.result = CheckInResult::Cancelled;
            return Ok(answer);
        }
        if record.refunded_at.is_some() {
            answer.result = CheckInResult::Refunded;
            return Ok(answer);
        }
        let seats = match &ticket.seat {
            // A seat given back or exchanged since: its ticket is no longer one.
            Some(seat) if !record.seats.contains(seat) => {
                answer.result = CheckInResult::Refunded;
                return Ok(answer);
            }
            Some(seat) => vec![seat.clone()],
            None => record.seats.clone(),
        };
        let now = self.clock.now().unwrap_or_else(chrono::Utc::now);
        let admits = match at.showtime_id {
            Some(showtime) => showtime == record.showtime,
            None => doors_open(&layout, now),
        };
        if !admits {
            answer.result = CheckInResult::WrongShowtime;
            return Ok(answer);
        }
        match self
            .store
            .check_in(
                booking,
                record.showtime,
                &seats,
                gate,
                staff,
                self.staff_now(),
            )
            .await?
        {
            Scanned::CheckedIn { admitted, inside } => {
                answer.admitted = admitted;
                answer.checked_in = inside.max(0) as usize;
            }
            Scanned::Already(first_at, first_gate, inside) => {
                answer.result = CheckInResult::AlreadyCheckedIn;
                answer.first_scan_at = Some(first_at);
                answer.first_scan_gate = Some(first_gate);
                answer.checked_in = inside.max(0) as usize;
            }
            // Refunded (or cancelled) since it was read above.
            Scanned::Refunded => answer.result = CheckInResult::Refunded,
            Scanned::NotFound => return Ok(CheckIn::not_found()),
        }
        Ok(answer)
    }

    /// Tickets checked in per showtime (the operator's door counts).
    pub async fn check_in_counts(&self) -> Result<Vec<(i64, i64)>, InventoryError> {
        Ok(self.store.check_in_counts().await?)
    }
}

#[async_trait::async_trait]
impl BoxOfficeDesk for Engine {
    async fn current_shift(&self, by: &Actor) -> Result<Option<Shift>, InventoryError> {
        Engine::current_shift(self, by).await
    }

    async fn open_shift(
        &self,
        by: &Actor,
        register: &str,
        float: i64,
    ) -> Result<Shift, InventoryError> {
        Engine::open_shift(self, by, register, float).await
    }

    async fn close_shift(
        &self,
        by: &Actor,
        shift: Option<i64>,
        counted: i64,
    ) -> Result<Shift, InventoryError> {
        Engine::close_shift(self, by, shift, counted).await
    }

    async fn shifts(&self) -> Result<Vec<Shift>, InventoryError> {
        self.recent_shifts().await
    }

    async fn refunds_owed(&self) -> Result<Vec<app::domain::OwedRefund>, InventoryError> {
        self.store
            .refunds_owed()
            .await?
            .into_iter()
            .map(|o| {
                Ok(app::domain::OwedRefund {
                    booking_id: BookingId(o.booking_id),
                    showtime_id: crate::store::stored_showtime(o.showtime_id)?,
                    movie_title: o.movie_title,
                    starts_at: o.starts_at.0,
                    method: o.method,
                    amount: o.amount_krw,
                    owed_at: o.owed_at.0,
                    clerk: o.clerk,
                })
            })
            .collect::<Result<_, crate::store::StoreError>>()
            .map_err(InventoryError::from)
    }

    async fn clerk_hold(
        &self,
        by: &Actor,
        showtime: ShowtimeId,
        seats: Option<&SeatSelection>,
        best: Option<&BestAvailable>,
    ) -> Result<Hold, InventoryError> {
        Engine::clerk_hold(self, by, showtime, seats, best).await
    }

    async fn clerk_release(&self, by: &Actor) -> Result<usize, InventoryError> {
        self.release_clerk_holds(by.member.id).await
    }

    async fn counter_sale(
        &self,
        by: &Actor,
        sale: &CounterSaleRequest,
    ) -> Result<CounterSale, InventoryError> {
        self.sell_at_counter(by, sale).await
    }

    async fn counter_refund(
        &self,
        by: &Actor,
        refund: &CounterRefundRequest,
    ) -> Result<CounterRefund, InventoryError> {
        self.refund_at_counter(by, refund).await
    }

    async fn counter_exchange(
        &self,
        by: &Actor,
        exchange: &CounterExchangeRequest,
    ) -> Result<CounterExchange, InventoryError> {
        self.exchange_at_counter(by, exchange).await
    }

    async fn print_ticket(
        &self,
        by: &Actor,
        booking: &str,
        approval: Option<&Approval>,
    ) -> Result<PrintedTicket, InventoryError> {
        Engine::print_ticket(self, by, booking, approval).await
    }

    async fn check_in(
        &self,
        by: &Actor,
        code: &str,
        at: &ScanAt,
    ) -> Result<CheckIn, InventoryError> {
        Engine::check_in(self, code, at, Some(by.member.id)).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clerk_customer_id_is_fixed_per_member_and_unlike_a_customer_id() {
        assert_eq!(clerk_customer(7), clerk_customer(7));
        assert_ne!(clerk_customer(7), clerk_customer(8));
        assert_ne!(
            clerk_customer(7).0.get_version_num(),
            uuid::Uuid::new_v4().get_version_num()
        );
    }

    #[test]
    fn shift_figures_add_up_per_tender() {
        let sum = |kind: &str, count, seats, amount| TenderSum {
            kind: kind.into(),
            count,
            seats,
            amount,
        };
        let f = figures(
            &[
                sum("cash", 2, 5, 60_000),
                sum("card", 1, 2, 24_000),
                sum("comp", 1, 2, 0),
            ],
            &[sum("cash", 1, 0, 12_000), sum("gateway", 1, 0, 24_000)],
        );
        assert_eq!((f.cash_sales, f.cash_amount), (2, 60_000));
        assert_eq!((f.card_sales, f.card_amount), (1, 24_000));
        assert_eq!((f.comp_sales, f.comp_seats), (1, 2));
        assert_eq!((f.cash_refunds, f.cash_refunded), (1, 12_000));
        assert_eq!((f.other_refunds, f.other_refunded), (1, 24_000));
        assert_eq!(f.expected_cash(10_000), 58_000);
    }
}
