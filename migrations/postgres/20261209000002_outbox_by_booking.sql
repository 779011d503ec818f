-- The console's booking search lists a booking's events: found by the booking, not by a scan
-- of the whole outbox.
create index outbox_aggregate on outbox (aggregate_id, id);
