-- Checkout: bookings, their payments at the gateway, and idempotency keys (the same model as
-- migrations/postgres; UUIDs as 16-byte blobs, times as Unix milliseconds, seat lists as JSON).

create table booking (
    id             blob primary key,
    showtime_id    integer not null,
    hold_id        blob not null unique,
    customer_id    blob not null,
    seats          text not null,
    amount_krw     integer not null check (amount_krw >= 0),
    status         text not null default 'PENDING'
                   check (status in ('PENDING', 'CONFIRMED', 'FAILED')),
    failure_reason text,
    created_at     integer not null,
    updated_at     integer not null
);
create index booking_customer on booking (customer_id, created_at);

create table payment (
    id                  blob primary key,
    booking_id          blob not null references booking (id),
    provider            text not null,
    provider_session_id text not null unique,
    provider_payment_id text unique,
    amount_krw          integer not null check (amount_krw >= 0),
    currency            text not null default 'KRW',
    status              text not null default 'PENDING'
                        check (status in ('PENDING', 'PAID', 'DECLINED', 'EXPIRED', 'REFUNDED')),
    payment_url         text not null,
    session_expires_at  integer not null,
    created_at          integer not null,
    updated_at          integer not null
);
create index payment_booking on payment (booking_id);
create index payment_pending on payment (status, created_at);

create table idempotency_key (
    customer_id     blob not null,
    key             text not null,
    fingerprint     text not null,
    state           text not null default 'IN_FLIGHT' check (state in ('IN_FLIGHT', 'DONE')),
    response_status integer,
    response_body   text,
    created_at      integer not null,
    primary key (customer_id, key)
);
create index idempotency_key_age on idempotency_key (created_at);
