-- A seat's ticket that left its booking is told apart (refunded or exchanged) by the booking's
-- refunds at the counter: found by booking, not by scanning every refund.
create index counter_refund_booking on counter_refund (booking_id);
