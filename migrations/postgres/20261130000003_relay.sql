-- The outbox relay (issue 7): booking events leave for the message broker once each
-- (published_at, set only after the broker acknowledged), sent by whichever relay holds the lease.
alter table outbox add column published_at timestamptz;
create index outbox_unpublished on outbox (id)
    where published_at is null
      and event_type in ('BookingConfirmed', 'BookingFailed', 'RefundIssued');

-- One row per relay role: the relay that holds it publishes; the others wait. The lease runs
-- out by itself when its holder dies.
create table relay_lease (
    name        text primary key,
    owner       text not null,
    expires_at  timestamptz not null
);

-- Wakes the relay when an outbox event commits (a rolled-back insert notifies nothing).
create function outbox_notify() returns trigger language plpgsql as $$
begin
    perform pg_notify('outbox_events', '');
    return null;
end $$;
create trigger outbox_notify after insert on outbox
    for each statement execute function outbox_notify();

-- Events each consumer has applied: a consumer applies an event and records it in one
-- transaction, so a redelivered event changes nothing.
create table consumed_event (
    consumer    text not null,
    event_id    text not null,
    consumed_at timestamptz not null default now(),
    primary key (consumer, event_id)
);

-- Tickets issued by the ticket consumer from BookingConfirmed. The consumers' tables are their
-- own (no foreign keys into the booking side): they could live in another service's database.
create table ticket (
    booking_id  uuid primary key,
    code        text not null unique,
    issued_at   timestamptz not null default now()
);

-- Sales figures kept by the sales consumer, per showtime and per day of the event (the
-- venue's day).
create table sales_daily (
    showtime_id     bigint not null,
    day             date not null,
    bookings        int not null default 0,
    seats           int not null default 0,
    revenue_krw     bigint not null default 0,
    refunds         int not null default 0,
    refunded_krw    bigint not null default 0,
    primary key (showtime_id, day)
);
