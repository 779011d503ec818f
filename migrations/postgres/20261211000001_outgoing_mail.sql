-- Messages to customers: queued by the notification consumer, one per booking event (a
-- redelivered event queues nothing), and sent by the mail worker. The address is read from the
-- booking when the message goes out, so it is stored once, with the booking.
create table outgoing_mail (
    id              bigserial primary key,
    event_id        text not null unique,
    booking_id      uuid not null references booking (id),
    -- `ticket` (the booking is confirmed) or `refund` (its payment was given back; the message
    -- says so when the showtime was cancelled).
    kind            text not null check (kind in ('ticket', 'refund')),
    -- `queued` until sent; `parked` after too many failed tries (an operator looks); `skipped`
    -- when the address was gone (purged) by the time it was due.
    status          text not null default 'queued'
                    check (status in ('queued', 'sent', 'parked', 'skipped')),
    attempts        integer not null default 0,
    next_attempt_at timestamptz not null default now(),
    -- A worker that claimed it sends it before this; past it, another may.
    leased_until    timestamptz,
    last_error      text,
    created_at      timestamptz not null default now(),
    sent_at         timestamptz
);
create index outgoing_mail_due on outgoing_mail (next_attempt_at) where status = 'queued';
create index outgoing_mail_booking on outgoing_mail (booking_id);
