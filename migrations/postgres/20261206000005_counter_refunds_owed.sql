-- A cancelled showtime's counter sales (cash, card) are owed back at the counter: one row per
-- booking, written by the cancellation, paid when a clerk gives the money back (the refund's
-- shift). Until then the console lists it and the shift it was sold in shows it.
create table counter_refund_owed (
    booking_id  uuid primary key references booking (id),
    showtime_id bigint not null,
    sale_shift  bigint not null references shift (id),
    method      varchar(8) not null check (method in ('cash', 'card')),
    amount_krw  bigint not null check (amount_krw >= 0),
    owed_at     timestamptz not null,
    paid_at     timestamptz,
    paid_shift  bigint references shift (id)
);
create index counter_refund_owed_open on counter_refund_owed (owed_at) where paid_at is null;

-- The relay publishes RefundOwed too (the sales figures move the sale to refunds at once).
drop index outbox_unpublished;
create index outbox_unpublished on outbox (id)
    where published_at is null
      and event_type in ('BookingConfirmed', 'BookingFailed', 'RefundIssued',
                         'SeatsExchanged', 'RefundOwed');
