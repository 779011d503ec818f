//! The box office and the door. A clerk opens a shift at a register with a cash float; their
//! pick is a hold like a customer's (the web sees it at once, a web customer trying those seats
//! gets 409) that lasts while the sale is at the counter (`gate::CLERK_HOLD_TTL`) and is released on
//! cancel, lock or sign-out; the sale confirms it with the fenced confirmation and writes
//! `BookingConfirmed` (channel `box_office`, or `complimentary`) in the same transaction.
//! Refunds, complimentary sales and reprints need a supervisor: their own session, or their name
//! and PIN given at the clerk's kiosk. The door checks a ticket in once.

mod counter;
mod door;
mod prints;
mod returns;
mod shifts;

pub use door::DOORS_OPEN_BEFORE;
pub use prints::VENUE;

use super::staff::Said;
use super::*;
use crate::store::{
    AuditLine, BookingFilter, BookingStatus, CounterExchangeRow, CounterExchanged,
    CounterRefundRow, CounterRefunded, CounterSaleRow, CounterSold, Scanned, ShiftFilter,
    ShiftRecord, TenderSum,
};
use app::domain::{
    Approval, AuditFact, BestAvailable, CheckIn, CheckInResult, CounterExchange,
    CounterExchangeRequest, CounterRefund, CounterRefundRequest, CounterSale, CounterSaleRequest,
    PrintedSeat, PrintedTicket, ScanAt, Shift, ShiftFigures, StaffRole, Tender, Won,
    APPROVER_ROLES,
};
use app::engine::{Actor, Counter, Door, Holder, Holds, Prints, Returns, Shifts};

const APPROVERS: [StaffRole; 1] = APPROVER_ROLES;
/// The largest cash float or amount of cash a drawer is told about (₩100,000,000).
const MAX_CASH: Won = Won::new(100_000_000);

impl Engine {
    /// An audit line of `actor`'s, to be written by the transaction of the action it records.
    fn audit_line(&self, actor: &Actor, action: &'static str, said: Said) -> AuditLine {
        AuditLine {
            at: self.now_at(),
            staff_id: actor.member.id,
            staff_name: actor.member.name.clone(),
            action,
            detail: said.text,
            facts: said.facts,
            address: actor.address.map(|a| a.to_string()),
        }
    }

    async fn open_shift_id(&self, actor: &Actor) -> Result<i64, InventoryError> {
        Ok(self.open_shift_of(actor).await?.id)
    }

    /// The acting member's open shift.
    async fn open_shift_of(&self, actor: &Actor) -> Result<ShiftRecord, InventoryError> {
        self.store
            .shifts(ShiftFilter::OpenOf(actor.member.id))
            .await?
            .pop()
            .ok_or(InventoryError::NoOpenShift)
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
            .pin_approves(name, hash, &approval.pin, actor.member.id)
            .await;
        match (approved, account) {
            (Ok(()), Some(account)) => Ok((account.id, account.name)),
            (Err(e @ (InventoryError::RateLimited(_) | InventoryError::Unavailable)), _) => Err(e),
            _ => {
                self.audit(actor, "approval_failed", {
                    let named: String = name.chars().filter(|c| !c.is_control()).take(40).collect();
                    Said::new(
                        format!("supervisor {named:?}: not accepted"),
                        vec![AuditFact::NotAccepted(named)],
                    )
                })
                .await;
                Err(InventoryError::ApprovalRefused)
            }
        }
    }

    /// The booking a reference names: its id, the booking number printed on its tickets
    /// (`21D6B008`), or a ticket's code (the booking's or a seat's).
    pub(in crate::engine) async fn booking_named(
        &self,
        reference: &str,
    ) -> Result<BookingId, InventoryError> {
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
                _ => Err(InventoryError::invalid(
                    "invalid.several_bookings",
                    &[("number", reference.to_string())],
                )),
            };
        }
        self.verify_ticket(reference)
            .ok_or(InventoryError::BookingNotFound)
    }
}
