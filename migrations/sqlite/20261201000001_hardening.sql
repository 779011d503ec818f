-- Hardening (see migrations/postgres): the client address of a hold, what became of each
-- successful payment, and parked outbox events. SQLite needs no assertion function: its hold
-- runs in a transaction that checks the row count before committing.

alter table seat_hold add column client_addr text;
create index seat_hold_address on seat_hold (showtime_id, client_addr)
    where client_addr is not null;
create index seat_hold_expiry on seat_hold (expires_at);

alter table payment add column outcome text check (outcome in ('CONFIRMED', 'REFUND'));
alter table payment add column mismatch text;
alter table payment add column paid_amount integer;

alter table outbox add column parked_at integer;
alter table outbox add column last_error text;
