-- Customers beyond the cookie: the address a booking's ticket goes to, and the language of its
-- messages, given at checkout. Stored once, here, and nowhere else (never in an event); emptied a
-- configurable time after the showtime.
alter table booking add column email text;
alter table booking add column language text check (language in ('ko', 'en'));
create index booking_email on booking (email) where email is not null;

-- Bookings a customer found again (reference and e-mail) on another device: they see them as
-- their own, without taking them from the customer who booked.
create table booking_access (
    booking_id  blob not null references booking (id),
    customer_id blob not null,
    granted_at  integer not null,
    primary key (customer_id, booking_id)
);
