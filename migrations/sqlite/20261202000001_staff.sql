-- Staff accounts (see migrations/postgres): one role each, argon2id hashes only.
create table staff_user (
    id            integer primary key autoincrement,
    name          text not null unique,
    role          text not null check (role in ('operator', 'supervisor', 'clerk', 'door')),
    password_hash text not null,
    pin_hash      text,
    disabled_at   integer,
    created_at    integer not null
);
