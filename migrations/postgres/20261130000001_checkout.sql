-- Checkout: bookings, their payments at the gateway, and idempotency keys.
-- Every state change carries a timestamp, so an operator can answer "where is my money?".

-- One booking per hold: the unique hold_id makes concurrent checkouts of one hold share it.
create table booking (
    id             uuid primary key,
    showtime_id    bigint not null,
    hold_id        uuid not null unique,
    customer_id    uuid not null,
    seats          text[] not null,
    amount_krw     bigint not null check (amount_krw >= 0),
    -- PENDING (waiting for payment) → CONFIRMED, or FAILED (refunded when money was taken).
    status         varchar(16) not null default 'PENDING'
                   check (status in ('PENDING', 'CONFIRMED', 'FAILED')),
    failure_reason text,
    created_at     timestamptz not null default now(),
    updated_at     timestamptz not null default now()
);
create index booking_customer on booking (customer_id, created_at);

-- A payment session at the gateway for a booking.
create table payment (
    id                  uuid primary key,
    booking_id          uuid not null references booking (id),
    provider            text not null,
    provider_session_id text not null unique,
    -- Set when the gateway reports the payment; unique, so a repeated callback records nothing.
    provider_payment_id text unique,
    amount_krw          bigint not null check (amount_krw >= 0),
    currency            char(3) not null default 'KRW',
    -- PENDING → PAID | DECLINED | EXPIRED; PAID → REFUNDED.
    status              varchar(16) not null default 'PENDING'
                        check (status in ('PENDING', 'PAID', 'DECLINED', 'EXPIRED', 'REFUNDED')),
    payment_url         text not null,
    session_expires_at  timestamptz not null,
    created_at          timestamptz not null default now(),
    updated_at          timestamptz not null default now()
);
create index payment_booking on payment (booking_id);
create index payment_pending on payment (status, created_at);

-- Idempotency keys, per customer, kept 24 hours: the first request's fingerprint and, once it
-- finished, its answer (replayed for the same key and request).
create table idempotency_key (
    customer_id     uuid not null,
    key             text not null,
    fingerprint     text not null,
    -- IN_FLIGHT while the first request runs; DONE with its answer.
    state           varchar(16) not null default 'IN_FLIGHT'
                    check (state in ('IN_FLIGHT', 'DONE')),
    response_status int,
    response_body   text,
    created_at      timestamptz not null default now(),
    primary key (customer_id, key)
);
create index idempotency_key_age on idempotency_key (created_at);
