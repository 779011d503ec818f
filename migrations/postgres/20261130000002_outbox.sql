-- The transactional outbox: events written in the same transaction as the
-- change they describe. Payment events are taken by the confirmation worker (processed_at);
-- booking events are for the relay to the message broker.
create table outbox (
    id              bigint generated always as identity primary key,
    -- The booking the event is about (the broker's message key).
    aggregate_id    uuid not null,
    event_type      text not null,
    payload         jsonb not null,
    created_at      timestamptz not null default now(),
    processed_at    timestamptz,
    attempts        int not null default 0,
    next_attempt_at timestamptz not null default now()
);
create index outbox_unprocessed on outbox (next_attempt_at) where processed_at is null;
