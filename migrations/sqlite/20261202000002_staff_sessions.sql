-- Signing in: sessions, lockouts, API tokens and the audit log (see migrations/postgres).
alter table staff_user add column failed_sign_ins integer not null default 0;
alter table staff_user add column locked_until integer;

create table staff_session (
    token_hash   text primary key,
    staff_id     integer not null references staff_user (id),
    created_at   integer not null,
    last_seen_at integer not null,
    expires_at   integer not null,
    ended_at     integer,
    address      text
);
create index staff_session_staff on staff_session (staff_id);

create table api_token (
    id           integer primary key autoincrement,
    name         text not null,
    token_hash   text not null unique,
    created_by   integer not null references staff_user (id),
    created_at   integer not null,
    last_used_at integer,
    revoked_at   integer
);

create table staff_audit (
    id         integer primary key autoincrement,
    at         integer not null,
    staff_id   integer references staff_user (id),
    staff_name text not null,
    action     text not null,
    detail     text not null default '',
    address    text
);
create index staff_audit_at on staff_audit (at desc, id desc);
