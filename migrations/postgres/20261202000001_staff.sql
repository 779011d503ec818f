-- Staff accounts: the people who run a venue. One role each: operator (everything), supervisor
-- (box office and approvals), clerk (counter sales), door (ticket scanning). Passwords and kiosk
-- PINs are kept only as argon2id hashes (PHC strings). A disabled account stays, for the record
-- of what it did.
create table staff_user (
    id            bigint generated always as identity primary key,
    name          text not null unique,
    role          text not null check (role in ('operator', 'supervisor', 'clerk', 'door')),
    password_hash text not null,
    pin_hash      text,
    disabled_at   timestamptz,
    created_at    timestamptz not null default now()
);
