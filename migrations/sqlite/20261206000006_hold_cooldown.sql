-- When a hold ended before its time (cancelled): with its expiry (when it lapses by itself) it
-- starts the cool-down in which its customer and address cannot hold those seats again, so that
-- cancelling and holding again cannot keep seats off sale for ever.
alter table seat_hold add column ended_at integer;
