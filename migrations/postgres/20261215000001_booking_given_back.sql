-- What a booking no longer has: each seat given back (refunded, or exchanged at the counter), as
-- it was sold, JSON `[{"seat","type","price","state"}]`; with its seats, every seat it was sold.
alter table booking add column given_back text;
-- The money given back in all, in won (`amount_krw` is what the booking still holds).
alter table booking add column refunded_krw bigint not null default 0;
-- What a message says of the change it announces (the amount moved, the seats it concerns), as
-- the event said it, JSON: the booking may have changed again by the time the message goes.
alter table outgoing_mail add column notice text;

-- Bookings refunded before: their refunds at the counter, else (a customer's cancellation) the
-- payment given back.
update booking
   set refunded_krw = (select coalesce(sum(r.amount_krw), 0) from counter_refund r
                        where r.booking_id = booking.id);
update booking
   set refunded_krw = (select coalesce(max(coalesce(p.paid_amount, p.amount_krw)), 0)
                         from payment p
                        where p.booking_id = booking.id and p.status in ('PAID', 'REFUNDED'))
 where refunded_at is not null and refunded_krw = 0;
