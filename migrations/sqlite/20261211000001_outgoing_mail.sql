-- Messages to customers: queued by the notification consumer, one per booking event (a
-- redelivered event queues nothing), and sent by the mail worker. The address is read from the
-- booking when the message goes out, so it is stored once, with the booking.
create table outgoing_mail (
    id              integer primary key autoincrement,
    event_id        text not null unique,
    booking_id      blob not null references booking (id),
    -- `ticket` (the booking is confirmed) or `refund` (its payment was given back; the message
    -- says so when the showtime was cancelled).
    kind            text not null check (kind in ('ticket', 'refund')),
    -- `queued` until sent; `parked` after too many failed tries (an operator looks); `skipped`
    -- when the address was gone (purged) by the time it was due.
    status          text not null default 'queued'
                    check (status in ('queued', 'sent', 'parked', 'skipped')),
    attempts        integer not null default 0,
    next_attempt_at integer not null,
    -- A worker that claimed it sends it before this; past it, another may.
    leased_until    integer,
    last_error      text,
    created_at      integer not null,
    sent_at         integer
);
create index outgoing_mail_due on outgoing_mail (next_attempt_at) where status = 'queued';
create index outgoing_mail_booking on outgoing_mail (booking_id);

-- Events delivered before the notification consumer existed are past their moment: recorded as
-- applied by it, so its Kafka group, which starts at the beginning of the topic, e-mails nobody
-- about old bookings.
insert into consumed_event (consumer, event_id, consumed_at)
select 'notify', event_id, min(consumed_at) from consumed_event
 where consumer in ('tickets', 'sales')
 group by event_id
on conflict do nothing;
