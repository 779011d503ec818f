//! The staff's use cases: the operator's console, staff accounts, and the box office by task
//! (shifts, the counter, refunds and exchanges, prints, the door). Callers check
//! [`require_staff`](super::require_staff) with the roles the action is open to first; `by` is
//! who acts. Each method has the name of the server function that calls it.

use super::Actor;
use crate::domain::{
    ApiToken, Approval, AuditEntry, BestAvailable, BookingFound, CheckIn, CounterExchange,
    CounterExchangeRequest, CounterRefund, CounterRefundRequest, CounterSale, CounterSaleRequest,
    CustomerMessage, HallPlan, HallSummary, Hold, NewApiToken, NewShowtime, OwedRefund,
    PrintedTicket, SalesFigure, ScanAt, SeatBlock, SeatChange, SeatSelection, Shift,
    ShowtimeCancelled, ShowtimeCounts, ShowtimeId, StaffAccountView, StaffMember,
};
use crate::error::InventoryError;

/// The operator's console: halls, the schedule, blocked seats, figures.
#[async_trait::async_trait]
pub trait Console: Send + Sync + 'static {
    /// Makes a hall from its plan (checked first: everything wrong is said at once).
    async fn import_hall(&self, plan: &HallPlan, by: &Actor)
        -> Result<HallSummary, InventoryError>;
    /// Every hall, by name.
    async fn halls(&self) -> Result<Vec<HallSummary>, InventoryError>;
    /// A hall's plan, to export (and import elsewhere).
    async fn export_hall(&self, hall_id: i64) -> Result<HallPlan, InventoryError>;
    /// Showtimes from a day ago on, with their seats sold, held and free.
    async fn showtime_figures(&self) -> Result<Vec<ShowtimeCounts>, InventoryError>;
    /// Schedules a showtime (in the future, in an existing hall, with a sensible sales window).
    async fn schedule_showtime(
        &self,
        showtime: &NewShowtime,
        by: &Actor,
    ) -> Result<ShowtimeId, InventoryError>;
    /// Cancels a showtime and refunds its paid bookings (once; again changes nothing).
    async fn cancel_showtime(
        &self,
        showtime: ShowtimeId,
        by: &Actor,
    ) -> Result<ShowtimeCancelled, InventoryError>;
    /// Takes free seats of a showtime off public sale, or puts them back.
    async fn block_seats(
        &self,
        showtime: ShowtimeId,
        seats: &[String],
        block: SeatBlock,
        by: &Actor,
    ) -> Result<Vec<SeatChange>, InventoryError>;
    /// Sales figures per showtime and day, newest day first.
    async fn sales_figures(&self) -> Result<Vec<SalesFigure>, InventoryError>;
    /// The booking `query` names: its id, its 8-character number, a ticket's code, or a sold
    /// seat as `<showtime> <seat>` (`25 G7`), or the customer's e-mail address — a search by
    /// address is audited, found or not: who looked up whose bookings.
    async fn find_booking(&self, query: &str, by: &Actor) -> Result<BookingFound, InventoryError>;
    /// The newest messages to customers, newest first, with how each went.
    async fn outgoing_mail(&self) -> Result<Vec<CustomerMessage>, InventoryError>;
    /// Queues the ticket of the booking `booking` names (its id, number or a ticket's code) to
    /// its address again: a confirmed booking that stands and has one. Audited.
    async fn resend_ticket(&self, booking: &str, by: &Actor) -> Result<(), InventoryError>;
}

/// Staff accounts, their PINs, API tokens and the audit log.
#[async_trait::async_trait]
pub trait StaffAccounts: Send + Sync + 'static {
    /// Every staff account (name, role, whether it has a PIN, disabled or not).
    async fn staff_accounts(&self) -> Result<Vec<StaffAccountView>, InventoryError>;
    /// Who may approve at the counter (a refund, a reprint, complimentary tickets): the names of
    /// the supervisors and operators with a PIN and not disabled, by name. The kiosk offers
    /// them as a list, so a supervisor taps their name and types only the PIN.
    async fn approvers(&self) -> Result<Vec<String>, InventoryError>;
    /// Sets the acting member's kiosk PIN (4 to 8 digits), after checking their password.
    async fn staff_set_pin(
        &self,
        by: &Actor,
        password: &str,
        pin: &str,
    ) -> Result<(), InventoryError>;
    /// Sets (or with `None` removes) another member's PIN (an operator's reset).
    async fn staff_reset_pin(
        &self,
        member: &str,
        pin: Option<&str>,
        by: &Actor,
    ) -> Result<(), InventoryError>;
    /// Adds a member with a first password (which they change in their account). Audited.
    async fn add_member(
        &self,
        name: &str,
        role: crate::domain::StaffRole,
        password: &str,
        by: &Actor,
    ) -> Result<(), InventoryError>;
    /// Disables a member: they can no longer sign in, and their sessions end. Audited.
    async fn disable_member(&self, name: &str, by: &Actor) -> Result<(), InventoryError>;
    /// The newest lines of the staff audit log, newest first.
    async fn audit_log(&self) -> Result<Vec<AuditEntry>, InventoryError>;
    /// Every API token, newest first.
    async fn api_tokens(&self) -> Result<Vec<ApiToken>, InventoryError>;
    /// A new API token named `name` (its secret is in the answer, and nowhere else).
    async fn create_api_token(&self, name: &str, by: &Actor)
        -> Result<NewApiToken, InventoryError>;
    async fn revoke_api_token(&self, id: i64, by: &Actor) -> Result<(), InventoryError>;
}

/// A clerk's shift at a register, and the operator's view of shifts.
#[async_trait::async_trait]
pub trait Shifts: Send + Sync + 'static {
    /// The acting member's open shift, if any.
    async fn box_office_shift(&self, by: &Actor) -> Result<Option<Shift>, InventoryError>;
    async fn open_shift(
        &self,
        by: &Actor,
        register: &str,
        float: crate::domain::Won,
    ) -> Result<Shift, InventoryError>;
    /// Closes the member's open shift, or (a supervisor) shift `shift`, with the cash counted.
    async fn close_shift(
        &self,
        by: &Actor,
        shift: Option<i64>,
        counted: crate::domain::Won,
    ) -> Result<Shift, InventoryError>;
    /// Recent shifts, newest first.
    async fn shifts_report(&self) -> Result<Vec<Shift>, InventoryError>;
    /// Counter sales of cancelled showtimes owed back and not given back yet, oldest first.
    async fn refunds_owed(&self) -> Result<Vec<OwedRefund>, InventoryError>;
}

/// A sale at the counter: the clerk's pick, held while the sale is at the counter, then sold.
#[async_trait::async_trait]
pub trait Counter: Send + Sync + 'static {
    /// Holds the clerk's pick (the seats, or the best available), releasing what they held
    /// before.
    async fn clerk_hold(
        &self,
        by: &Actor,
        showtime: ShowtimeId,
        seats: Option<&SeatSelection>,
        best: Option<&BestAvailable>,
    ) -> Result<Hold, InventoryError>;
    /// Releases the clerk's picks; how many holds.
    async fn clerk_release(&self, by: &Actor) -> Result<usize, InventoryError>;
    /// Sells the clerk's hold for cash, by card, or (approved) as complimentary tickets.
    async fn sell_at_counter(
        &self,
        by: &Actor,
        sale: &CounterSaleRequest,
    ) -> Result<CounterSale, InventoryError>;
}

/// Giving money or seats back at the counter, with a supervisor's approval.
#[async_trait::async_trait]
pub trait Returns: Send + Sync + 'static {
    async fn refund_at_counter(
        &self,
        by: &Actor,
        refund: &CounterRefundRequest,
    ) -> Result<CounterRefund, InventoryError>;
    async fn exchange_at_counter(
        &self,
        by: &Actor,
        exchange: &CounterExchangeRequest,
    ) -> Result<CounterExchange, InventoryError>;
}

/// Printed tickets.
#[async_trait::async_trait]
pub trait Prints: Send + Sync + 'static {
    /// A booking's ticket to print (a second print is a supervisor's reprint).
    async fn print_ticket(
        &self,
        by: &Actor,
        booking: &str,
        approval: Option<&Approval>,
    ) -> Result<PrintedTicket, InventoryError>;
}

/// The door.
#[async_trait::async_trait]
pub trait Door: Send + Sync + 'static {
    /// Checks a ticket in: each seat once, even from two doors at once.
    async fn check_in_ticket(
        &self,
        by: &Actor,
        code: &str,
        at: &ScanAt,
    ) -> Result<CheckIn, InventoryError>;
}

/// The staff side of one request: who is signed in (from the staff cookie), signing in and
/// out, locking the kiosk. The server's middleware puts one in every request as
/// [`StaffAccess`](super::StaffAccess); nothing is looked up until a staff action asks.
#[async_trait::async_trait]
pub trait StaffGate: Send + Sync + 'static {
    /// The member of the request's live staff session; `StaffSignInRequired` without one.
    async fn staff_me(&self) -> Result<StaffMember, InventoryError>;
    /// Checks the name and password — with the proof of work the server asked, if it asked one
    /// (`ProofRequired`: tries past the free ones from a browser the member never signed in
    /// from) — and on success opens a session: the member and the `Set-Cookie` values of the
    /// session and of the browser's device.
    async fn staff_sign_in(
        &self,
        name: &str,
        password: &str,
        proof: Option<crate::domain::QueueProof>,
    ) -> Result<(StaffMember, Vec<String>), InventoryError>;
    /// Ends the request's session, if it has one; the `Set-Cookie` value that clears the cookie.
    async fn staff_sign_out(&self) -> Result<String, InventoryError>;
    /// Locks the request's session: nothing but unlocking or signing out until its member's PIN
    /// unlocks it.
    async fn staff_lock(&self) -> Result<(), InventoryError>;
    /// Unlocks the request's session with its member's PIN (wrong ones slow further tries of
    /// this session, and enough of them end it).
    async fn staff_unlock(&self, pin: &str) -> Result<(), InventoryError>;
    /// Changes the password of the request's member, checking the current one first (counted
    /// like a sign-in); every other session of the member ends.
    async fn staff_change_password(&self, current: &str, new: &str) -> Result<(), InventoryError>;
}
