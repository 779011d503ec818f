//! Checkout with an idempotency key, on both stores, against the payment sandbox as a real
//! process: sessions, the gateway's callbacks, settlement and refunds, tickets. This module holds
//! what they share (a shop: a server over a fresh database with the sandbox, and its probes).

use crate::support::*;
use reqwest::StatusCode;
use serde_json::{json, Value};
use server::payments::gateway::{CallbackEvent, PaymentGateway, SessionStatus};
use server::payments::signature;

/// Runs `$body` with `$pool` bound to a pool of the test database's backend. The statements it
/// runs are the same text in both dialects; where a dialect differs, the probe names both
/// statements (see [`Shop::lapse_hold`]).
macro_rules! on_db {
    ($db:expr, |$pool:ident| $body:expr) => {
        match $db.backend {
            Backend::Postgres => {
                let $pool = sqlx::PgPool::connect(&$db.url).await.unwrap();
                $body
            }
            Backend::Sqlite => {
                let $pool = sqlx::SqlitePool::connect(&$db.url).await.unwrap();
                $body
            }
        }
    };
}

/// Holds `seats` for `client` on `app`; the answer must be 201. Returns the hold's JSON.
async fn hold_on(app: &TestApp, client: &reqwest::Client, showtime: i64, seats: &[&str]) -> Value {
    let r = client
        .post(app.url(&format!("/showtimes/{showtime}/holds")))
        .json(&json!({ "seats": seats }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    r.json().await.unwrap()
}

/// Checks out `hold` for `client` on `app`, with `key` as the Idempotency-Key if given.
async fn checkout_on(
    app: &TestApp,
    client: &reqwest::Client,
    hold: &str,
    key: Option<&str>,
) -> (StatusCode, reqwest::header::HeaderMap, Value) {
    let mut request = client.post(app.url(&format!("/holds/{hold}/checkout")));
    if let Some(key) = key {
        request = request.header("Idempotency-Key", key);
    }
    let r = request.send().await.unwrap();
    let (status, headers) = (r.status(), r.headers().clone());
    (status, headers, r.json().await.unwrap())
}

/// How long the shop's probes wait for the workers (settlement, refunds, consumers).
const WAIT: std::time::Duration = std::time::Duration::from_secs(5);

struct Shop {
    db: TestDb,
    app: TestApp,
    sandbox: Sandbox,
    showtime: i64,
}

async fn shop(backend: Backend, hold_ttl: &str) -> Shop {
    shop_with(backend, hold_ttl, &[]).await
}

async fn shop_with(backend: Backend, hold_ttl: &str, extra: &[(&str, &str)]) -> Shop {
    let sandbox = sandbox().await;
    let db = TestDb::new(backend).await;
    let mut vars = vec![
        ("PAYMENT_GATEWAY_URL", sandbox.base.as_str()),
        ("PAYMENT_WEBHOOK_SECRET", SANDBOX_SECRET),
    ];
    vars.extend_from_slice(extra);
    let app = TestApp::spawn_with(&db, hold_ttl, &vars).await;
    let showtime = first_showtime(&app.base).await;
    Shop {
        db,
        app,
        sandbox,
        showtime,
    }
}

impl Shop {
    /// Holds `seats`, checks out with `body` (JSON text), pays, and waits for the confirmation;
    /// the booking id.
    async fn paid_booking(&self, client: &reqwest::Client, seats: &[&str], body: &str) -> String {
        let hold = self.hold(client, seats).await;
        let r = client
            .post(self.app.url(&format!(
                "/holds/{}/checkout",
                hold["holdId"].as_str().unwrap()
            )))
            .header("Idempotency-Key", "mail")
            .header("content-type", "application/json")
            .body(body.to_string())
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::CREATED);
        let checkout: Value = r.json().await.unwrap();
        self.press(&checkout, "pay").await;
        let id = checkout["bookingId"].as_str().unwrap().to_string();
        assert_eq!(self.booking_settled(&id).await, "CONFIRMED");
        id
    }

    /// Holds `seats` for `client`; returns the hold's JSON.
    async fn hold(&self, client: &reqwest::Client, seats: &[&str]) -> Value {
        hold_on(&self.app, client, self.showtime, seats).await
    }

    async fn checkout(
        &self,
        client: &reqwest::Client,
        hold: &str,
        key: Option<&str>,
    ) -> (StatusCode, reqwest::header::HeaderMap, Value) {
        checkout_on(&self.app, client, hold, key).await
    }

    /// The hold's payments as `(status, provider payment id)`, oldest first, and the number of
    /// `PaymentSucceeded` outbox events of its booking.
    async fn payments(&self, hold: &str) -> (Vec<(String, Option<String>)>, i64) {
        let hold = uuid::Uuid::parse_str(hold).unwrap();
        on_db!(self.db, |pool| {
            let payments = sqlx::query_as(
                "select p.status, p.provider_payment_id from payment p
                   join booking b on b.id = p.booking_id where b.hold_id = $1 order by p.created_at",
            )
            .bind(hold)
            .fetch_all(&pool)
            .await
            .unwrap();
            let events = sqlx::query_scalar(
                "select count(*) from outbox o join booking b on b.id = o.aggregate_id
                  where b.hold_id = $1 and o.event_type = 'PaymentSucceeded'",
            )
            .bind(hold)
            .fetch_one(&pool)
            .await
            .unwrap();
            (payments, events)
        })
    }

    /// Waits until the hold's first payment is no longer PENDING.
    async fn settled(&self, hold: &str) -> (Vec<(String, Option<String>)>, i64) {
        eventually(
            WAIT,
            || self.payments(hold),
            |(payments, _)| payments.first().is_some_and(|(s, _)| s != "PENDING"),
        )
        .await
    }

    /// Presses a button on the sandbox's hosted page of a checkout.
    async fn press(&self, checkout: &Value, button: &str) {
        let url = checkout["paymentUrl"].as_str().unwrap();
        let r = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap()
            .post(format!("{url}/{button}"))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::SEE_OTHER);
    }

    /// Makes the hold's seats lapse now (its expiry a second ago), as if its time had run out.
    async fn lapse_hold(&self, hold: &str) {
        let hold = uuid::Uuid::parse_str(hold).unwrap();
        let statement = match self.db.backend {
            Backend::Postgres => {
                "update show_seat set hold_expires_at = now() - interval '1 second' where hold_id = $1"
            }
            // Instants are milliseconds since the epoch in the embedded store.
            Backend::Sqlite => {
                "update show_seat set hold_expires_at = (unixepoch() - 1) * 1000 where hold_id = $1"
            }
        };
        on_db!(self.db, |pool| {
            sqlx::query(statement)
                .bind(hold)
                .execute(&pool)
                .await
                .unwrap();
        })
    }

    /// The code of the booking's ticket, once issued.
    async fn ticket_code(&self, booking: &str) -> Option<String> {
        let id = uuid::Uuid::parse_str(booking).unwrap();
        self.text("select code from ticket where booking_id = $1", id)
            .await
    }

    /// A text column of one row, selected by one bound uuid.
    async fn text(&self, statement: &str, id: uuid::Uuid) -> Option<String> {
        on_db!(self.db, |pool| sqlx::query_scalar(statement)
            .bind(id)
            .fetch_optional(&pool)
            .await
            .unwrap())
    }

    /// Waits until the booking leaves PENDING; its status.
    async fn booking_settled(&self, booking: &str) -> String {
        let id = uuid::Uuid::parse_str(booking).unwrap();
        eventually(
            WAIT,
            || async {
                self.text("select status from booking where id = $1", id)
                    .await
                    .unwrap()
            },
            |status| status != "PENDING",
        )
        .await
    }

    /// Waits until the booking's ticket is issued; the booking as its customer sees it.
    async fn ticket_issued(&self, client: &reqwest::Client, booking: &str) -> Value {
        let url = self.app.url(&format!("/bookings/{booking}"));
        eventually(
            WAIT,
            || get_json_as(client, url.clone()),
            |view| !view["ticketIssuedAt"].is_null(),
        )
        .await
    }

    /// Waits until the operator's sales report has a row of this showtime that `ready` accepts.
    async fn sales_row(&self, ready: impl Fn(&Value) -> bool) -> Value {
        let operator = operator(&self.app).await;
        let report = eventually(
            WAIT,
            || async {
                operator
                    .get(self.app.url("/reports/sales"))
                    .send()
                    .await
                    .unwrap()
                    .json::<Value>()
                    .await
                    .unwrap()
            },
            |report| self.row_of(report).is_some_and(|row| ready(&row)),
        )
        .await;
        match self.row_of(&report) {
            Some(row) if ready(&row) => row,
            _ => panic!("no such sales row: {report}"),
        }
    }

    /// This showtime's row of a sales report.
    fn row_of(&self, report: &Value) -> Option<Value> {
        report
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["showtimeId"] == self.showtime)
            .cloned()
    }

    /// How many outbox events of `kind` the booking has.
    async fn events(&self, booking: &str, kind: &str) -> usize {
        let id = uuid::Uuid::parse_str(booking).unwrap();
        let kinds = self
            .text(
                "select coalesce(string_agg(event_type, ','), '') from outbox where aggregate_id = $1",
                id,
            )
            .await;
        kinds
            .unwrap_or_default()
            .split(',')
            .filter(|k| *k == kind)
            .count()
    }

    /// Waits until the booking's payment is REFUNDED; the sandbox's record of the payment.
    async fn refunded(&self, hold: &str) -> Value {
        let (payments, _) = eventually(
            WAIT,
            || self.payments(hold),
            |(payments, _)| payments[0].0 == "REFUNDED",
        )
        .await;
        let payment = payments[0].1.clone().expect("paid");
        get_json(format!("{}/v1/payments/{payment}", self.sandbox.base)).await
    }

    /// `(bookings, payments)` stored for the hold.
    async fn stored(&self, hold: &str) -> (i64, i64) {
        let hold = uuid::Uuid::parse_str(hold).unwrap();
        on_db!(self.db, |pool| {
            let bookings = sqlx::query_scalar("select count(*) from booking where hold_id = $1")
                .bind(hold)
                .fetch_one(&pool)
                .await
                .unwrap();
            let payments = sqlx::query_scalar(
                "select count(*) from payment p join booking b on b.id = p.booking_id where b.hold_id = $1",
            )
            .bind(hold)
            .fetch_one(&pool)
            .await
            .unwrap();
            (bookings, payments)
        })
    }
}

fn time(v: &Value) -> chrono::DateTime<chrono::Utc> {
    v.as_str().unwrap().parse().unwrap()
}

/// A second server over the same database and sandbox, with another hold length.
async fn shop_with_ttl(shop: &Shop, hold_ttl: &str) -> TestApp {
    TestApp::spawn_with(
        &shop.db,
        hold_ttl,
        &[
            ("PAYMENT_GATEWAY_URL", &shop.sandbox.base),
            ("PAYMENT_WEBHOOK_SECRET", SANDBOX_SECRET),
        ],
    )
    .await
}

async fn shop_payment_id(sandbox: &Sandbox, session_id: &str) -> String {
    sandbox
        .gateway
        .session(session_id)
        .await
        .unwrap()
        .payment_id
        .expect("paid")
}

/// The body of a GET by `client` (its cookies) read as JSON.
async fn get_json_as(client: &reqwest::Client, url: String) -> Value {
    client.get(url).send().await.unwrap().json().await.unwrap()
}

/// An engine over `db` and `sandbox` with no worker running (tests take the worker's steps).
fn bare_engine(db: &TestDb, sandbox: &Sandbox) -> server::engine::Engine {
    engine_with(db, server::clock::Clock::Database, &sandbox.base)
}

/// An engine over `db` on `clock`, whose payment gateway is at `gateway`, with no worker
/// running.
fn engine_with(db: &TestDb, clock: server::clock::Clock, gateway: &str) -> server::engine::Engine {
    server::engine::Engine::new(db.store.clone(), clock, std::time::Duration::from_secs(600))
        .with_seat_rules(crate::support::NO_SEAT_RULES)
        .with_payments(server::engine::Payments {
            gateway: std::sync::Arc::new(server::payments::gateway::HttpGateway::new(gateway)),
            provider: "sandbox".into(),
            callback_url: "http://127.0.0.1:9/payments/callback".into(),
            return_url_base: "http://127.0.0.1:9/my-bookings/".into(),
            webhook_secret: server::config::Secret::new(SANDBOX_SECRET.as_bytes().to_vec()),
        })
}

/// The customer of a booking (read back through the store).
async fn customer_of(
    engine: &server::engine::Engine,
    booking: app::domain::BookingId,
) -> app::domain::CustomerId {
    engine
        .store()
        .bookings(server::store::BookingFilter::One(booking))
        .await
        .unwrap()
        .pop()
        .unwrap()
        .customer
}

/// Pays `checkout` on the sandbox's page without its callback (a test reports the payment
/// itself); the sandbox's payment id.
async fn pay_quietly(sandbox: &Sandbox, checkout: &app::domain::Checkout) -> String {
    let session_id = checkout.payment_url.rsplit('/').next().unwrap().to_string();
    let r = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
        .post(format!("{}/pay", checkout.payment_url))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    shop_payment_id(sandbox, &session_id).await
}

/// A paid report of `checkout`'s session with payment `payment`, as the gateway would make it.
fn paid_report(checkout: &app::domain::Checkout, payment: &str) -> server::store::PaymentReport {
    server::store::PaymentReport {
        session_id: checkout.payment_url.rsplit('/').next().unwrap().to_string(),
        payment_id: Some(payment.to_string()),
        paid: true,
        event_id: format!("evt_{payment}"),
        charged: Some(server::store::Charged {
            amount: checkout.amount,
            currency: checkout.currency.clone(),
            merchant_reference: checkout.booking_id.0.to_string(),
        }),
    }
}

fn customer_id() -> app::domain::CustomerId {
    app::domain::CustomerId(uuid::Uuid::new_v4())
}

mod booking_access;
mod callbacks;
mod cancellation;
mod contacts;
mod customer_cancel;
pub(crate) mod mail;
mod online_prints;
mod sessions;
mod settlement;
mod ticket_types;
mod tickets;
