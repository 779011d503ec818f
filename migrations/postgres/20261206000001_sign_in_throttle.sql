-- Guessing a password or a PIN is slowed, never switched off for the member: failures are
-- counted per key (an account from one address, an account from everywhere, a supervisor's PIN
-- from one kiosk, one locked session), and after a few free ones each key waits longer and
-- longer (next_at) before its next try. A stranger's failures only slow the keys they use, so a
-- member signing in from her own address (one she signed in from before) is not locked out.
-- Kept in the database so that every server instance and `server staff unlock` see the same
-- counts; rows untouched for a day are deleted.
create table sign_in_throttle (
    key      text primary key,
    failures integer not null check (failures >= 0),
    next_at  timestamptz not null,
    seen_at  timestamptz not null
);
create index sign_in_throttle_seen on sign_in_throttle (seen_at);

-- The old hard lock (five failures locked an account for everyone) is gone; its columns stay
-- unused so that an older build can still start on this database.
update staff_user set failed_sign_ins = 0, locked_until = null;

-- Where a member has signed in from before (the account-wide count does not slow them there).
create index staff_session_staff_address on staff_session (staff_id, address);
