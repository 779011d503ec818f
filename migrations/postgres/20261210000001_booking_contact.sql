-- Customers beyond the cookie: the address a booking's ticket goes to, and the language of its
-- messages, given at checkout. Stored once, here, and nowhere else (never in an event); emptied a
-- configurable time after the showtime.
alter table booking add column email text;
alter table booking add column language varchar(2) check (language in ('ko', 'en'));
create index booking_email on booking (email) where email is not null;

-- Bookings a customer found again (reference and e-mail) on another device: they see them as
-- their own, without taking them from the customer who booked.
create table booking_access (
    booking_id  uuid not null references booking (id),
    customer_id uuid not null,
    granted_at  timestamptz not null default now(),
    primary key (customer_id, booking_id)
);
