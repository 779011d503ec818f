-- An exchange at the counter writes SeatsExchanged, which the relay publishes like the other
-- booking events: the partial index of events still to publish names it too.
drop index outbox_unpublished;
create index outbox_unpublished on outbox (id)
    where published_at is null
      and event_type in ('BookingConfirmed', 'BookingFailed', 'RefundIssued',
                         'SeatsExchanged');
