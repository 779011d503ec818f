-- The transactional outbox (see migrations/postgres).
create table outbox (
    id              integer primary key autoincrement,
    aggregate_id    blob not null,
    event_type      text not null,
    payload         text not null,
    created_at      integer not null,
    processed_at    integer,
    attempts        integer not null default 0,
    next_attempt_at integer not null
);
create index outbox_unprocessed on outbox (next_attempt_at) where processed_at is null;
