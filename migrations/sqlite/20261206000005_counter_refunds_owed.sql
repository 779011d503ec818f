-- A cancelled showtime's counter sales are owed back at the counter (see the PostgreSQL
-- migration of the same name).
create table counter_refund_owed (
    booking_id  blob primary key references booking (id),
    showtime_id integer not null,
    sale_shift  integer not null references shift (id),
    method      text not null check (method in ('cash', 'card')),
    amount_krw  integer not null check (amount_krw >= 0),
    owed_at     integer not null,
    paid_at     integer,
    paid_shift  integer references shift (id)
);
create index counter_refund_owed_open on counter_refund_owed (owed_at) where paid_at is null;

drop index outbox_unpublished;
create index outbox_unpublished on outbox (id)
    where published_at is null
      and event_type in ('BookingConfirmed', 'BookingFailed', 'RefundIssued',
                         'SeatsExchanged', 'RefundOwed');
