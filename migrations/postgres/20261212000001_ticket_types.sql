-- Ticket types: each seat is sold as ADULT, YOUTH, SENIOR or DISABLED. Adult is the category's
-- own price (price_category, showtime_price); the other types have their own price per category:
-- a hall's defaults, copied to each showtime when it is scheduled (unless the operator gives the
-- showtime its own). A type without prices for a showtime is not sold for it. Existing halls and
-- showtimes sell adult tickets only.
create table category_ticket_price (
    hall_id     bigint not null,
    category    text not null,
    ticket_type varchar(16) not null check (ticket_type in ('YOUTH', 'SENIOR', 'DISABLED')),
    price_krw   bigint not null check (price_krw >= 0),
    primary key (hall_id, category, ticket_type),
    foreign key (hall_id, category) references price_category (hall_id, code)
);

create table showtime_ticket_price (
    showtime_id bigint not null references showtime (id),
    category    text not null,
    ticket_type varchar(16) not null check (ticket_type in ('YOUTH', 'SENIOR', 'DISABLED')),
    price_krw   bigint not null check (price_krw >= 0),
    primary key (showtime_id, category, ticket_type)
);

-- Each seat's type and price as sold, JSON: [{"seat":"F5","type":"YOUTH","price":9000}]. Null
-- for bookings made before types: every seat adult.
alter table booking add column tickets text;

-- The seats sold of each type (seats counts them all). Everything sold so far was adult.
alter table sales_daily add column adult_seats int not null default 0;
alter table sales_daily add column youth_seats int not null default 0;
alter table sales_daily add column senior_seats int not null default 0;
alter table sales_daily add column disabled_seats int not null default 0;
update sales_daily set adult_seats = seats;
