-- The outbox relay (see migrations/postgres). The embedded store has no NOTIFY: the relay is
-- woken in-process and polls.
alter table outbox add column published_at integer;
create index outbox_unpublished on outbox (id)
    where published_at is null
      and event_type in ('BookingConfirmed', 'BookingFailed', 'RefundIssued');

create table relay_lease (
    name        text primary key,
    owner       text not null,
    expires_at  integer not null
);

create table consumed_event (
    consumer    text not null,
    event_id    text not null,
    consumed_at integer not null,
    primary key (consumer, event_id)
);

create table ticket (
    booking_id  blob primary key,
    code        text not null unique,
    issued_at   integer not null
);

create table sales_daily (
    showtime_id     integer not null,
    day             text not null,
    bookings        integer not null default 0,
    seats           integer not null default 0,
    revenue_krw     integer not null default 0,
    refunds         integer not null default 0,
    refunded_krw    integer not null default 0,
    primary key (showtime_id, day)
);
