//! The server's integration tests, in one binary (one link of the server and its dependencies
//! instead of one per area):
//! - `contract`: the store contract on PostgreSQL and SQLite (`on_both_backends!`);
//! - `api`: the HTTP API and its hygiene against the server on a random port;
//! - `box_office`: shifts, counter sales, approvals, refunds, prints, door check-in;
//! - `live`: the live seat map over WebSockets;
//! - `fanout`: two server processes sharing PostgreSQL and Redis (or a Redis Cluster);
//! - `gate`: the Redis seat gate, rate limits and degradation;
//! - `halls`: the operator's halls (imported from JSON plans) and schedule;
//! - `sandbox`: the payment sandbox as a real process;
//! - `seat_rules`: best available, lone seats, companion, house and killed seats (both stores);
//! - `checkout`: checkout, callbacks, settlement, refunds, reconciliation, tickets;
//! - `relay`: the outbox relay and consumers against a Kafka-compatible broker;
//! - `staff`: staff accounts, the `server staff` command;
//! - `sign_in`: staff sessions, role checks on every staff action, API tokens, audit;
//! - `limits`: the hold cool-down, IPv6 /56, checkout's limit, names, body limits, conflicts;
//! - `guessing`: guesses of passwords and PINs slowed per account and address, never a lockout.
//! - `waiting_room`: the waiting room on both of its homes (process, Redis) and in front of holds;
//! - `waiting_room_draw`: its opening draw and its proof of work;
//! - `waiting_room_promise`: admissions end whatever the switch says, live at most one hold,
//!   a proof makes one place, the automatic switch counts customers, failed room calls retried;
//! - `waiting_pages`: the waiting page's live feed over a real WebSocket;
//! - `waiting_page_caps`: its sockets only for real places, capped, never taking the reserve;
//! - `notices`: what a counter customer is e-mailed of each change, and what the booking keeps;
//! - `openapi`: the REST API's OpenAPI description covers every route, and its page;
//! - `aborted_pages`: pages dropped half-way leave no tasks and no memory behind (both stores);
//! - `seams`: what a hostile test found between features (a hot page's status, a refused body's
//!   connection, the site's files, check-in bodies, hall names, the store's commands).
//!
//! `support` holds what they share: fresh databases per test, servers, Redis, the sandbox.

#[macro_use]
mod support;

mod aborted_pages;
mod api;
mod box_office;
mod checkout;
mod contract;
mod fanout;
mod gate;
mod guessing;
mod halls;
mod kiosk_lock;
mod limits;
mod live;
mod notices;
mod openapi;
mod relay;
mod sandbox;
mod seams;
mod seat_rules;
mod sign_in;
mod staff;
mod waiting_page_caps;
mod waiting_pages;
mod waiting_room;
mod waiting_room_draw;
mod waiting_room_promise;
