-- Signing in: sessions, lockouts, API tokens and the audit log.

-- Failed sign-ins in a row per account; after too many the account is locked until locked_until.
alter table staff_user add column failed_sign_ins integer not null default 0;
alter table staff_user add column locked_until timestamptz;

-- One row per staff session, found by the SHA-256 of the random token in the staff cookie (the
-- token itself is never stored). A session ends when it has been idle too long (last_seen_at),
-- reaches expires_at, is signed out (ended_at), or its account is disabled.
create table staff_session (
    token_hash   text primary key,
    staff_id     bigint not null references staff_user (id),
    created_at   timestamptz not null,
    last_seen_at timestamptz not null,
    expires_at   timestamptz not null,
    ended_at     timestamptz,
    address      text
);
create index staff_session_staff on staff_session (staff_id);

-- Bearer tokens for API clients of the reports, created and revoked by operators; found by
-- the SHA-256 of the token.
create table api_token (
    id           bigint generated always as identity primary key,
    name         text not null,
    token_hash   text not null unique,
    created_by   bigint not null references staff_user (id),
    created_at   timestamptz not null,
    last_used_at timestamptz,
    revoked_at   timestamptz
);

-- What staff did: who, what, when, from where. Rows are only ever added.
create table staff_audit (
    id         bigint generated always as identity primary key,
    at         timestamptz not null,
    staff_id   bigint references staff_user (id),
    staff_name text not null,
    action     text not null,
    detail     text not null default '',
    address    text
);
create index staff_audit_at on staff_audit (at desc, id desc);
