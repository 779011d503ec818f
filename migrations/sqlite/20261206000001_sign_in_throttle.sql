-- Guessing is slowed per key with growing waits, never a hard lock (see the PostgreSQL
-- migration of the same name). Times in milliseconds since the epoch.
create table sign_in_throttle (
    key      text primary key,
    failures integer not null check (failures >= 0),
    next_at  integer not null,
    seen_at  integer not null
) without rowid;
create index sign_in_throttle_seen on sign_in_throttle (seen_at);

update staff_user set failed_sign_ins = 0, locked_until = null;

create index staff_session_staff_address on staff_session (staff_id, address);
