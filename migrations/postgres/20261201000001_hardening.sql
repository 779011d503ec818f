-- Hardening: a statement-level assertion for the hold, the client address of a hold (for the
-- per-address cap), what became of each successful payment, and parked outbox events.

-- Raises (and so rolls the whole statement back) unless `ok`. The hold statement uses it to
-- refuse to commit a hold that moved some but not all of its seats.
create function seats_check(ok boolean, message text) returns boolean
    language plpgsql volatile as $$
begin
    if ok is distinct from true then
        raise exception 'seats_check failed: %', message using errcode = 'P0001';
    end if;
    return true;
end $$;

-- The address the hold came from (the peer, or the trusted proxy's forwarded address).
alter table seat_hold add column client_addr text;
create index seat_hold_address on seat_hold (showtime_id, client_addr)
    where client_addr is not null;
-- Purging finished holds looks them up by expiry.
create index seat_hold_expiry on seat_hold (expires_at);

-- What settlement made of a PAID payment: CONFIRMED (it confirmed its booking) or REFUND (the
-- money goes back: the hold lapsed, the booking was already paid, sales had closed, or the
-- payment did not match what was asked). Set once, by the settling transaction.
alter table payment add column outcome varchar(16) check (outcome in ('CONFIRMED', 'REFUND'));
-- Set when the gateway reported a payment that does not match the session we asked for
-- (amount, currency or merchant reference): what was reported, for the operator.
alter table payment add column mismatch text;
-- What the gateway reported taking (a refund gives back what was taken, whatever was asked).
alter table payment add column paid_amount bigint;

-- Events that failed too often (or can never succeed) stop being retried and wait here for an
-- operator, with the last error.
alter table outbox add column parked_at timestamptz;
alter table outbox add column last_error text;
