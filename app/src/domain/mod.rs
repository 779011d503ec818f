//! Domain types shared by the server and the browser. They are parsed, not validated: a value of
//! one of these types can only exist if it is valid, so the same rule runs on both sides.

mod box_office;
mod contact;
mod door;
mod hall_plan;
mod ids;
mod live;
mod money;
pub mod rfc3339;
mod seat_code;
mod seat_map;
pub mod seat_rules;
mod selection;
mod showtime;
mod staff;
mod text;
mod ticket_type;
mod waiting_room;

pub use box_office::{
    Approval, BookingEventLine, BookingFound, CounterExchange, CounterExchangeRequest,
    CounterRefund, CounterRefundRequest, CounterSale, CounterSaleRequest, OwedRefund, PrintedSeat,
    PrintedTicket, Shift, ShiftFigures, Tender, APPROVER_ROLES, COUNTER_ROLES,
};
pub use contact::{
    mask, BookingLookup, CheckoutDetails, CustomerMessage, Email, MailLanguage, MAX_EMAIL_LEN,
};
pub use door::{CheckIn, CheckInResult, ScanAt, DOOR_ROLES};
pub use hall_plan::{
    seats_text, HallPlan, HallSummary, NameFault, PlacedSeat, PlanProblem, RowPlan, SeatPlan,
    ShowtimeCounts, MAX_HALL_SEATS,
};
pub use ids::{BookingId, CustomerId, HoldId, InvalidHoldId, InvalidShowtimeId, ShowtimeId};
pub use live::LiveMessage;
pub use money::Won;
pub use seat_code::{SeatCode, SeatCodeError};
pub use seat_map::{
    BookingState, BookingView, Checkout, Hold, PaymentView, PriceCategory, SalesChannel,
    SalesFigure, Seat, SeatChange, SeatMap, SeatStatus, SeatTicket, ShowtimeSummary, Ticket,
};
pub use selection::{BestAvailable, SeatSelection, SelectionError, MAX_SEATS_PER_HOLD};
pub use showtime::{
    NewShowtime, Sales, SalesWindow, SeatBlock, ShowtimeCancelled, DEFAULT_DURATION_MINUTES,
    MAX_DURATION_MINUTES, MAX_PRICE,
};
pub use staff::{
    ApiToken, AuditEntry, AuditFact, NewApiToken, StaffAccountView, StaffMember, StaffRole,
};
pub use text::{name_problem, unprintable};
pub use ticket_type::{
    assign_types, GivenBack, SeatGivenBack, SoldSeat, TicketCounts, TicketPrices, TicketType,
};
pub use waiting_room::{
    wait_minutes, Admission, QueueDraw, QueueFrame, QueuePlace, QueueProof, QueueState, SeatsLeft,
    WaitingRoomSettings, WaitingRoomView, MAX_PROOF_BITS, MAX_ROOM_RATE, SEATS_PER_ADMISSION,
};
