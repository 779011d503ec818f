//! Checkout with an idempotency key, on both stores, against the payment sandbox as a real
//! process: `POST /holds/{holdId}/checkout`.

#[macro_use]
mod support;

use reqwest::StatusCode;
use serde_json::{json, Value};
use server::payments::gateway::{CallbackEvent, PaymentGateway, SessionStatus};
use server::payments::signature;
use support::*;

on_both_backends!(
    checkout_creates_one_payment_session_that_ends_two_minutes_before_the_hold,
    the_same_key_replays_the_answer_another_request_is_422_and_no_key_is_400,
    a_key_still_in_use_is_409,
    two_concurrent_checkouts_of_one_hold_make_one_booking_and_one_payment_session,
    only_the_owner_of_a_live_hold_with_enough_time_left_can_check_out,
    when_the_gateway_is_down_the_answer_is_503_and_the_key_is_not_kept,
    a_paid_callback_is_recorded_once_even_when_it_comes_twice_at_once,
    a_callback_with_a_bad_or_stale_signature_is_401_and_records_nothing,
    after_a_declined_payment_the_hold_can_be_checked_out_again,
    a_paid_hold_becomes_a_confirmed_booking_with_its_seats_booked,
    a_payment_after_the_hold_expired_fails_the_booking_and_is_refunded_once,
    a_payment_after_someone_else_took_the_seats_is_refunded_and_they_keep_them,
    a_worker_that_dies_between_steps_loses_nothing_and_refunds_once,
    several_workers_at_once_settle_each_payment_once,
    lost_callbacks_are_found_by_reconciliation,
    a_customer_sees_their_bookings_and_what_happened_to_the_money,
    a_second_payment_of_a_booking_is_refunded_and_no_new_session_opens_while_one_is_paid,
    refunds_never_hold_up_confirmations,
    a_payment_that_does_not_match_the_order_is_refunded_not_confirmed,
    a_payment_event_that_cannot_succeed_or_keeps_failing_is_parked,
    sales_close_at_the_start_for_holds_checkouts_and_confirmations,
    tickets_stay_valid_when_ticket_keys_rotate_or_the_session_secret_changes,
);

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

/// Runs `$body` with `$pool` bound to a pool of the test database's backend; `$sql` turns a
/// PostgreSQL statement into that backend's dialect.
macro_rules! on_db {
    ($db:expr, |$pool:ident, $sql:ident| $body:expr) => {
        match $db.backend {
            Backend::Postgres => {
                let $pool = sqlx::PgPool::connect(&$db.url).await.unwrap();
                let $sql = |s: &str| s.to_string();
                $body
            }
            Backend::Sqlite => {
                let $pool = sqlx::SqlitePool::connect(&$db.url).await.unwrap();
                let $sql = |s: &str| {
                    s.replace("$1", "?1")
                        .replace("now() - interval '1 second'", "(unixepoch() - 1) * 1000")
                };
                $body
            }
        }
    };
}

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
        on_db!(self.db, |pool, sql| {
            let payments = sqlx::query_as(&sql(
                "select p.status, p.provider_payment_id from payment p
                   join booking b on b.id = p.booking_id where b.hold_id = $1 order by p.created_at",
            ))
            .bind(hold)
            .fetch_all(&pool)
            .await
            .unwrap();
            let events = sqlx::query_scalar(&sql(
                "select count(*) from outbox o join booking b on b.id = o.aggregate_id
                  where b.hold_id = $1 and o.event_type = 'PaymentSucceeded'",
            ))
            .bind(hold)
            .fetch_one(&pool)
            .await
            .unwrap();
            (payments, events)
        })
    }

    /// Waits until the hold's first payment is no longer PENDING.
    async fn settled(&self, hold: &str) -> (Vec<(String, Option<String>)>, i64) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        loop {
            let now = self.payments(hold).await;
            if now.0.first().is_some_and(|(s, _)| s != "PENDING")
                || std::time::Instant::now() > deadline
            {
                return now;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
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

    /// Runs a statement with one bound uuid on the test database.
    async fn exec(&self, statement: &str, id: uuid::Uuid) {
        on_db!(self.db, |pool, sql| {
            sqlx::query(&sql(statement))
                .bind(id)
                .execute(&pool)
                .await
                .unwrap();
        })
    }

    /// A text column of one row, selected by one bound uuid.
    async fn text(&self, statement: &str, id: uuid::Uuid) -> Option<String> {
        on_db!(self.db, |pool, sql| sqlx::query_scalar(&sql(statement))
            .bind(id)
            .fetch_optional(&pool)
            .await
            .unwrap())
    }

    /// Waits until the booking leaves PENDING; its status.
    async fn booking_settled(&self, booking: &str) -> String {
        let id = uuid::Uuid::parse_str(booking).unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        loop {
            let status = self
                .text("select status from booking where id = $1", id)
                .await
                .unwrap();
            if status != "PENDING" || std::time::Instant::now() > deadline {
                return status;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    }

    /// Waits until the booking's ticket is issued; the booking as its customer sees it.
    async fn ticket_issued(&self, client: &reqwest::Client, booking: &str) -> Value {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        loop {
            let view = get_json_as(client, self.app.url(&format!("/bookings/{booking}"))).await;
            if !view["ticketIssuedAt"].is_null() || std::time::Instant::now() > deadline {
                return view;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    }

    /// Waits until the operator's sales report has a row of this showtime that `ready` accepts.
    async fn sales_row(&self, ready: impl Fn(&Value) -> bool) -> Value {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        loop {
            let report: Value = reqwest::Client::new()
                .get(self.app.url("/reports/sales"))
                .basic_auth("operator", Some(OPERATOR_PASSWORD))
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            let row = report
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r["showtimeId"] == self.showtime)
                .cloned();
            match row {
                Some(row) if ready(&row) => return row,
                _ if std::time::Instant::now() > deadline => {
                    panic!("no such sales row: {report}")
                }
                _ => tokio::time::sleep(std::time::Duration::from_millis(50)).await,
            }
        }
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
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        loop {
            let (payments, _) = self.payments(hold).await;
            if payments[0].0 == "REFUNDED" || std::time::Instant::now() > deadline {
                let payment = payments[0].1.clone().expect("paid");
                return get_json(format!("{}/v1/payments/{payment}", self.sandbox.base)).await;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    }

    /// `(bookings, payments)` stored for the hold.
    async fn stored(&self, hold: &str) -> (i64, i64) {
        let hold = uuid::Uuid::parse_str(hold).unwrap();
        on_db!(self.db, |pool, sql| {
            let bookings =
                sqlx::query_scalar(&sql("select count(*) from booking where hold_id = $1"))
                    .bind(hold)
                    .fetch_one(&pool)
                    .await
                    .unwrap();
            let payments = sqlx::query_scalar(&sql(
                "select count(*) from payment p join booking b on b.id = p.booking_id where b.hold_id = $1",
            ))
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

async fn checkout_creates_one_payment_session_that_ends_two_minutes_before_the_hold(
    backend: Backend,
) {
    let shop = shop(backend, "600").await;
    let alice = shop.app.customer();
    let hold = shop.hold(&alice, &["F5", "F6"]).await;
    let hold_id = hold["holdId"].as_str().unwrap();
    let (status, _, checkout) = shop.checkout(&alice, hold_id, Some("k1")).await;
    assert_eq!(status, StatusCode::CREATED, "{checkout}");
    assert_eq!(checkout["status"], "PENDING");
    assert_eq!(checkout["currency"], "KRW");
    // Hall 1, row F: standard seats (the seat map says what they cost).
    let map: Value = get_json_as(
        &alice,
        shop.app.url(&format!("/showtimes/{}/seats", shop.showtime)),
    )
    .await;
    let price = |code: &str| {
        map["seats"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["code"] == code)
            .unwrap()["price"]
            .as_i64()
            .unwrap()
    };
    assert_eq!(checkout["amount"], price("F5") + price("F6"));
    let pay_before = time(&checkout["payBefore"]);
    let hold_ends = time(&hold["expiresAt"]);
    assert!(pay_before <= hold_ends - chrono::Duration::minutes(2));
    let minutes = (pay_before - chrono::Utc::now()).num_seconds() as f64 / 60.0;
    assert!(
        (7.5..=8.0).contains(&minutes),
        "an 8-minute session: {minutes}"
    );

    let url = checkout["paymentUrl"].as_str().unwrap();
    assert!(url.starts_with(&format!("{}/pay/", shop.sandbox.base)));
    let session_id = url.rsplit('/').next().unwrap();
    let session = shop.sandbox.gateway.session(session_id).await.unwrap();
    assert_eq!(session.status, SessionStatus::Open);
    assert_eq!(session.amount, checkout["amount"].as_i64().unwrap());
    assert_eq!(
        session.merchant_reference,
        checkout["bookingId"].as_str().unwrap()
    );
    assert_eq!(shop.stored(hold_id).await, (1, 1));
}

async fn the_same_key_replays_the_answer_another_request_is_422_and_no_key_is_400(
    backend: Backend,
) {
    let shop = shop(backend, "600").await;
    let alice = shop.app.customer();
    let first = shop.hold(&alice, &["G1"]).await;
    let first = first["holdId"].as_str().unwrap();
    let (status, headers, answer) = shop.checkout(&alice, first, Some("pay-1")).await;
    assert_eq!(status, StatusCode::CREATED);
    assert!(!headers.contains_key("idempotent-replayed"));
    let (again, headers, replay) = shop.checkout(&alice, first, Some("pay-1")).await;
    assert_eq!((again, &replay), (StatusCode::CREATED, &answer));
    assert_eq!(headers["idempotent-replayed"], "true");

    let second = shop.hold(&alice, &["G2"]).await;
    let second = second["holdId"].as_str().unwrap();
    let (status, _, body) = shop.checkout(&alice, second, Some("pay-1")).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(body["code"], "IDEMPOTENCY_KEY_REUSED");
    assert_eq!(shop.stored(second).await, (0, 0), "nothing done for it");

    let (status, _, body) = shop.checkout(&alice, second, None).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["code"], "IDEMPOTENCY_KEY_MISSING");
    assert_eq!(shop.stored(second).await, (0, 0));

    // Keys are per customer: Bob's "pay-1" is his own (and the hold is not his: 403, kept).
    let bob = shop.app.customer();
    let (status, _, body) = shop.checkout(&bob, second, Some("pay-1")).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    let (status, headers, _) = shop.checkout(&bob, second, Some("pay-1")).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(headers["idempotent-replayed"], "true");
}

async fn a_key_still_in_use_is_409(backend: Backend) {
    let shop = shop(backend, "600").await;
    // The gateway takes a second to create a session, so the first request is still running.
    let r = reqwest::Client::new()
        .put(format!("{}/v1/faults", shop.sandbox.base))
        .json(&json!({ "sessionDelayMs": 1000 }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let alice = shop.app.customer();
    let hold = shop.hold(&alice, &["H1"]).await;
    let hold = hold["holdId"].as_str().unwrap();
    let (first, second) = tokio::join!(shop.checkout(&alice, hold, Some("k")), async {
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        shop.checkout(&alice, hold, Some("k")).await
    });
    assert_eq!(first.0, StatusCode::CREATED);
    assert_eq!(second.0, StatusCode::CONFLICT);
    assert_eq!(second.2["code"], "IDEMPOTENCY_KEY_IN_FLIGHT");
    // Once the first has finished, the key replays its answer.
    let third = shop.checkout(&alice, hold, Some("k")).await;
    assert_eq!((third.0, third.2), (StatusCode::CREATED, first.2));
}

async fn two_concurrent_checkouts_of_one_hold_make_one_booking_and_one_payment_session(
    backend: Backend,
) {
    let shop = shop(backend, "600").await;
    let alice = shop.app.customer();
    let hold = shop.hold(&alice, &["I1", "I2"]).await;
    let hold = hold["holdId"].as_str().unwrap();
    let (a, b) = tokio::join!(
        shop.checkout(&alice, hold, Some("tab-1")),
        shop.checkout(&alice, hold, Some("tab-2")),
    );
    assert_eq!((a.0, b.0), (StatusCode::CREATED, StatusCode::CREATED));
    assert_eq!(a.2["bookingId"], b.2["bookingId"]);
    assert_eq!(a.2["paymentUrl"], b.2["paymentUrl"]);
    assert_eq!(shop.stored(hold).await, (1, 1));
}

async fn only_the_owner_of_a_live_hold_with_enough_time_left_can_check_out(backend: Backend) {
    let shop = shop(backend, "600").await;
    let (alice, bob) = (shop.app.customer(), shop.app.customer());
    let hold = shop.hold(&alice, &["J1"]).await;
    let hold = hold["holdId"].as_str().unwrap();
    let (status, _, body) = shop.checkout(&bob, hold, Some("b")).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::FORBIDDEN, Some("NOT_YOUR_HOLD"))
    );
    let unknown = app::domain::HoldId::new(app::domain::ShowtimeId(shop.showtime), [7; 16]);
    let (status, _, _) = shop.checkout(&alice, &unknown.to_string(), Some("u")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _, _) = shop.checkout(&alice, "not-a-uuid", Some("g")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let r = alice
        .post(shop.app.url(&format!("/holds/{hold}/checkout")))
        .header("Idempotency-Key", "body")
        .json(&json!({ "amount": 1 }))
        .send()
        .await
        .unwrap();
    assert_eq!(
        r.status(),
        StatusCode::BAD_REQUEST,
        "checkout takes no fields"
    );
    assert!(r.json::<Value>().await.unwrap()["error"].is_string());
    let r = alice
        .delete(shop.app.url(&format!("/holds/{hold}")))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    let (status, _, body) = shop.checkout(&alice, hold, Some("gone")).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::CONFLICT, Some("HOLD_LAPSED"))
    );
    assert_eq!(shop.stored(hold).await, (0, 0));

    // A hold of 150 s leaves 30 s once the 2-minute margin is kept: too little to pay.
    let short = shop_with_ttl(&shop, "150").await;
    let carol = short.customer();
    let held = hold_on(&short, &carol, shop.showtime, &["J5"]).await;
    let (status, _, body) = checkout_on(
        &short,
        &carol,
        held["holdId"].as_str().unwrap(),
        Some("late"),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(body["code"], "TOO_LITTLE_TIME");
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

async fn when_the_gateway_is_down_the_answer_is_503_and_the_key_is_not_kept(backend: Backend) {
    let db = TestDb::new(backend).await;
    let nowhere = format!("http://127.0.0.1:{}", free_port());
    let app = TestApp::spawn_with(&db, "600", &[("PAYMENT_GATEWAY_URL", &nowhere)]).await;
    let id = first_showtime(&app.base).await;
    let alice = app.customer();
    let hold = hold_on(&app, &alice, id, &["A1"]).await;
    for _ in 0..2 {
        let (status, headers, body) = checkout_on(
            &app,
            &alice,
            hold["holdId"].as_str().unwrap(),
            Some("retry-me"),
        )
        .await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
        assert!(
            !headers.contains_key("idempotent-replayed"),
            "a 503 is not kept: the retry runs again"
        );
        assert_eq!(body["code"], "UNAVAILABLE");
    }
}

async fn a_paid_callback_is_recorded_once_even_when_it_comes_twice_at_once(backend: Backend) {
    let shop = shop(backend, "600").await;
    let r = reqwest::Client::new()
        .put(format!("{}/v1/faults", shop.sandbox.base))
        .json(&json!({ "duplicateCallback": true }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let alice = shop.app.customer();
    let hold = shop.hold(&alice, &["E1", "E2"]).await;
    let hold = hold["holdId"].as_str().unwrap();
    let (_, _, checkout) = shop.checkout(&alice, hold, Some("pay")).await;
    shop.press(&checkout, "pay").await;
    let (payments, events) = shop.settled(hold).await;
    assert_eq!(payments.len(), 1);
    assert_eq!(payments[0].0, "PAID");
    assert!(payments[0]
        .1
        .as_deref()
        .is_some_and(|p| p.starts_with("pay_")));
    assert_eq!(events, 1);
    // Both deliveries have been answered by now (the sandbox sends them at once); still one.
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    assert_eq!(shop.payments(hold).await, (payments, 1));
    let booking = checkout["bookingId"].as_str().unwrap();
    assert_eq!(shop.booking_settled(booking).await, "CONFIRMED");
    assert_eq!(
        shop.events(booking, "BookingConfirmed").await,
        1,
        "one booking"
    );
}

async fn a_callback_with_a_bad_or_stale_signature_is_401_and_records_nothing(backend: Backend) {
    use server::payments::gateway::CallbackEvent;
    use server::payments::signature;
    let shop = shop(backend, "600").await;
    let alice = shop.app.customer();
    let hold = shop.hold(&alice, &["C7"]).await;
    let hold = hold["holdId"].as_str().unwrap();
    let (_, _, checkout) = shop.checkout(&alice, hold, Some("pay")).await;
    let session_id = checkout["paymentUrl"]
        .as_str()
        .unwrap()
        .rsplit('/')
        .next()
        .unwrap();
    let event = CallbackEvent {
        event_id: "evt_forged".into(),
        kind: "payment.succeeded".into(),
        session_id: session_id.into(),
        payment_id: Some("pay_forged".into()),
        merchant_reference: checkout["bookingId"].as_str().unwrap().into(),
        amount: checkout["amount"].as_i64().unwrap(),
        currency: "KRW".into(),
        status: SessionStatus::Paid,
        occurred_at: chrono::Utc::now(),
    };
    let body = serde_json::to_vec(&event).unwrap();
    let now = chrono::Utc::now().timestamp();
    let send = |header: Option<String>| {
        let mut request = reqwest::Client::new()
            .post(shop.app.url("/payments/callback"))
            .header("content-type", "application/json")
            .body(body.clone());
        if let Some(header) = header {
            request = request.header(signature::HEADER, header);
        }
        async move { request.send().await.unwrap() }
    };
    for (header, why) in [
        (None, "unsigned"),
        (
            Some(signature::sign(b"not the shared secret", now, &body)),
            "wrong secret",
        ),
        (
            Some(signature::sign(SANDBOX_SECRET.as_bytes(), now - 400, &body)),
            "stale",
        ),
        (Some("t=1,v1=00".to_string()), "garbage"),
    ] {
        let r = send(header).await;
        assert_eq!(r.status(), StatusCode::UNAUTHORIZED, "{why}");
        assert_eq!(r.json::<Value>().await.unwrap()["code"], "BAD_SIGNATURE");
    }
    assert_eq!(
        shop.payments(hold).await,
        (vec![("PENDING".to_string(), None)], 0),
        "nothing recorded"
    );
    // Signed with the shared secret it is recorded, once.
    let good = || Some(signature::sign(SANDBOX_SECRET.as_bytes(), now, &body));
    let r = send(good()).await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.json::<Value>().await.unwrap()["status"], "recorded");
    let r = send(good()).await;
    assert_eq!(r.json::<Value>().await.unwrap()["status"], "duplicate");
    assert_eq!(
        shop.payments(hold).await,
        (
            vec![("PAID".to_string(), Some("pay_forged".to_string()))],
            1
        )
    );
}

async fn after_a_declined_payment_the_hold_can_be_checked_out_again(backend: Backend) {
    let shop = shop(backend, "600").await;
    let alice = shop.app.customer();
    let hold = shop.hold(&alice, &["B9"]).await;
    let hold = hold["holdId"].as_str().unwrap();
    let (_, _, first) = shop.checkout(&alice, hold, Some("first")).await;
    shop.press(&first, "decline").await;
    let (payments, events) = shop.settled(hold).await;
    assert_eq!(payments, vec![("DECLINED".to_string(), None)]);
    assert_eq!(events, 0, "nothing to confirm");
    let (status, _, second) = shop.checkout(&alice, hold, Some("second")).await;
    assert_eq!(status, StatusCode::CREATED);
    assert_eq!(second["bookingId"], first["bookingId"], "the same booking");
    assert_ne!(
        second["paymentUrl"], first["paymentUrl"],
        "a new payment session"
    );
    assert_eq!(shop.stored(hold).await, (1, 2));
}

async fn a_paid_hold_becomes_a_confirmed_booking_with_its_seats_booked(backend: Backend) {
    let shop = shop(backend, "600").await;
    let alice = shop.app.customer();
    let hold = shop.hold(&alice, &["D3", "D4"]).await;
    let hold = hold["holdId"].as_str().unwrap();
    let (_, _, checkout) = shop.checkout(&alice, hold, Some("pay")).await;
    let booking = checkout["bookingId"].as_str().unwrap();
    shop.press(&checkout, "pay").await;
    assert_eq!(shop.booking_settled(booking).await, "CONFIRMED");
    let stored = shop.db.stored(app::domain::ShowtimeId(shop.showtime)).await;
    for seat in ["D3", "D4"] {
        assert_eq!(stored[seat].0, "BOOKED", "{seat}");
    }
    assert_eq!(shop.events(booking, "BookingConfirmed").await, 1);
    assert_eq!(shop.events(booking, "RefundDue").await, 0);
    let map: Value = get_json(shop.app.url(&format!("/showtimes/{}/seats", shop.showtime))).await;
    let d3 = map["seats"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["code"] == "D3")
        .unwrap();
    assert_eq!(d3["status"], "BOOKED");

    // After the confirmation, the consumers: the ticket is issued and the sale counted.
    let view = shop.ticket_issued(&alice, booking).await;
    assert!(view["ticketIssuedAt"].is_string(), "{view}");
    let code = shop
        .text(
            "select code from ticket where booking_id = $1",
            uuid::Uuid::parse_str(booking).unwrap(),
        )
        .await
        .expect("ticket record");
    let door: Value = get_json(shop.app.url(&format!("/tickets/{code}"))).await;
    assert_eq!(door["valid"], true);
    let sales = shop.sales_row(|row| row["bookings"] == 1).await;
    assert_eq!(sales["seats"], 2);
    assert_eq!(sales["revenue"], checkout["amount"]);
    assert_eq!(sales["refunds"], 0);
}

async fn a_payment_after_the_hold_expired_fails_the_booking_and_is_refunded_once(backend: Backend) {
    let shop = shop(backend, "600").await;
    let alice = shop.app.customer();
    let held = shop.hold(&alice, &["D7"]).await;
    let hold = held["holdId"].as_str().unwrap();
    let (_, _, checkout) = shop.checkout(&alice, hold, Some("pay")).await;
    let booking = checkout["bookingId"].as_str().unwrap();
    // Time passes: the hold's seats lapse before the money arrives.
    shop.exec(
        "update show_seat set hold_expires_at = now() - interval '1 second' where hold_id = $1",
        uuid::Uuid::parse_str(hold).unwrap(),
    )
    .await;
    shop.press(&checkout, "pay").await;
    assert_eq!(shop.booking_settled(booking).await, "FAILED");
    let record = shop.refunded(hold).await;
    assert_eq!(record["refunds"].as_array().unwrap().len(), 1);
    assert_eq!(record["refunded"], checkout["amount"]);
    assert_eq!(shop.payments(hold).await.0[0].0, "REFUNDED");
    for kind in ["BookingFailed", "RefundDue", "RefundIssued"] {
        assert_eq!(shop.events(booking, kind).await, 1, "{kind}");
    }
    assert_eq!(shop.events(booking, "BookingConfirmed").await, 0);
    let stored = shop.db.stored(app::domain::ShowtimeId(shop.showtime)).await;
    assert_ne!(stored["D7"].0, "BOOKED");
    // The sales figures count the refund and no sale; no ticket was issued.
    let sales = shop.sales_row(|row| row["refunds"] == 1).await;
    assert_eq!(sales["refunded"], checkout["amount"]);
    assert_eq!(sales["bookings"], 0);
    let ticket = shop
        .text(
            "select code from ticket where booking_id = $1",
            uuid::Uuid::parse_str(booking).unwrap(),
        )
        .await;
    assert_eq!(ticket, None);
    // A correctly signed code for a booking whose ticket was never issued is not a ticket.
    let id = app::domain::BookingId(uuid::Uuid::parse_str(booking).unwrap());
    let door = reqwest::get(
        shop.app
            .url(&format!("/tickets/{}", shop.app.engine.ticket_code(id))),
    )
    .await
    .unwrap();
    assert_eq!(door.status(), StatusCode::NOT_FOUND);
}

async fn a_payment_after_someone_else_took_the_seats_is_refunded_and_they_keep_them(
    backend: Backend,
) {
    let shop = shop(backend, "600").await;
    let (alice, bob) = (shop.app.customer(), shop.app.customer());
    let held = shop.hold(&alice, &["D9"]).await;
    let hold = held["holdId"].as_str().unwrap();
    let (_, _, checkout) = shop.checkout(&alice, hold, Some("pay")).await;
    let booking = checkout["bookingId"].as_str().unwrap();
    // Alice's hold lapses and Bob holds the seat before her payment arrives.
    shop.exec(
        "update show_seat set hold_expires_at = now() - interval '1 second' where hold_id = $1",
        uuid::Uuid::parse_str(hold).unwrap(),
    )
    .await;
    let bobs = shop.hold(&bob, &["D9"]).await;
    shop.press(&checkout, "pay").await;
    assert_eq!(shop.booking_settled(booking).await, "FAILED");
    let record = shop.refunded(hold).await;
    assert_eq!(record["refunds"].as_array().unwrap().len(), 1);
    let stored = shop.db.stored(app::domain::ShowtimeId(shop.showtime)).await;
    assert_eq!(stored["D9"].0, "HELD");
    assert_eq!(
        stored["D9"].1.map(|h| h.to_string()).as_deref(),
        bobs["holdId"].as_str(),
        "Bob keeps the seat"
    );
}

async fn a_worker_that_dies_between_steps_loses_nothing_and_refunds_once(backend: Backend) {
    use server::store::PaymentReport;
    // An engine with no worker running: the test takes the worker's steps itself.
    let sandbox = sandbox().await;
    let db = TestDb::new(backend).await;
    let showtime = db.showtime().await;
    let engine = bare_engine(&db, &sandbox);
    use app::engine::Inventory;
    let customer = app::domain::CustomerId(uuid::Uuid::new_v4());
    let hold = engine
        .hold(showtime, &sel(&["A1"]), customer)
        .await
        .unwrap();
    let checkout = engine.checkout(hold.hold_id, customer).await.unwrap();
    let session_id = checkout.payment_url.rsplit('/').next().unwrap().to_string();
    let url = checkout.payment_url.clone();
    let r = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
        .post(format!("{url}/pay"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    let payment = shop_payment_id(&sandbox, &session_id).await;
    // The lapsed hold: the payment must be refunded.
    engine.cancel(hold.hold_id, customer).await.unwrap();
    engine
        .payment_report(&PaymentReport {
            session_id,
            payment_id: Some(payment.clone()),
            paid: true,
            event_id: "evt_1".into(),
            charged: None,
        })
        .await
        .unwrap();

    // A worker takes the payment event and dies before settling it: after the lease another
    // takes it again, so nothing is lost.
    let taken = db
        .store
        .claim_outbox(
            &["PaymentSucceeded"],
            16,
            std::time::Duration::from_millis(200),
        )
        .await
        .unwrap();
    assert_eq!(taken.len(), 1);
    assert_eq!(
        engine.process_payment_events().await.unwrap(),
        0,
        "leased to the dead worker"
    );
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(engine.process_confirmations().await.unwrap(), 1);

    // The refund: a worker asks the gateway, then dies before recording it. The next worker
    // asks again under the same refund key, and the gateway refunds once.
    let due = db
        .store
        .claim_outbox(&["RefundDue"], 16, std::time::Duration::from_millis(200))
        .await
        .unwrap();
    assert_eq!(due.len(), 1);
    use server::payments::gateway::PaymentGateway;
    sandbox
        .gateway
        .refund(&payment, checkout.amount, &format!("refund-{payment}"))
        .await
        .unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(engine.process_refunds().await.unwrap(), 1);
    assert_eq!(
        engine.process_payment_events().await.unwrap(),
        0,
        "all done"
    );
    let record: Value = get_json(format!("{}/v1/payments/{payment}", sandbox.base)).await;
    assert_eq!(
        record["refunds"].as_array().unwrap().len(),
        1,
        "refunded once"
    );
    assert_eq!(record["refunded"], checkout.amount);
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

async fn lost_callbacks_are_found_by_reconciliation(backend: Backend) {
    let shop = shop_with(
        backend,
        "600",
        &[
            ("RECONCILE_AFTER_SECONDS", "0.1"),
            ("RECONCILE_INTERVAL_SECONDS", "0.2"),
        ],
    )
    .await;
    let r = reqwest::Client::new()
        .put(format!("{}/v1/faults", shop.sandbox.base))
        .json(&json!({ "dropCallback": true }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let (alice, bob) = (shop.app.customer(), shop.app.customer());
    let paid = shop.hold(&alice, &["G8"]).await;
    let paid = paid["holdId"].as_str().unwrap();
    let (_, _, checkout) = shop.checkout(&alice, paid, Some("pay")).await;
    shop.press(&checkout, "pay").await;
    let declined = shop.hold(&bob, &["G9"]).await;
    let declined = declined["holdId"].as_str().unwrap();
    let (_, _, other) = shop.checkout(&bob, declined, Some("pay")).await;
    shop.press(&other, "decline").await;

    let booking = checkout["bookingId"].as_str().unwrap();
    assert_eq!(shop.booking_settled(booking).await, "CONFIRMED");
    assert_eq!(shop.events(booking, "BookingConfirmed").await, 1);
    assert_eq!(shop.settled(declined).await.0[0].0, "DECLINED");
    // The declined payment released nothing: Bob's hold still holds its seat.
    let stored = shop.db.stored(app::domain::ShowtimeId(shop.showtime)).await;
    assert_eq!(stored["G9"].0, "HELD");
    assert_eq!(stored["G8"].0, "BOOKED");
}

async fn a_customer_sees_their_bookings_and_what_happened_to_the_money(backend: Backend) {
    let shop = shop(backend, "600").await;
    let (alice, bob) = (shop.app.customer(), shop.app.customer());
    let first = shop.hold(&alice, &["A5", "A6"]).await;
    let first = first["holdId"].as_str().unwrap();
    let (_, _, paid) = shop.checkout(&alice, first, Some("one")).await;
    shop.press(&paid, "pay").await;
    let paid_id = paid["bookingId"].as_str().unwrap();
    assert_eq!(shop.booking_settled(paid_id).await, "CONFIRMED");
    let second = shop.hold(&alice, &["A8"]).await;
    let second = second["holdId"].as_str().unwrap();
    let (_, _, open) = shop.checkout(&alice, second, Some("two")).await;

    let view: Value = get_json_as(&alice, shop.app.url(&format!("/bookings/{paid_id}"))).await;
    assert_eq!(view["status"], "CONFIRMED");
    assert_eq!(view["seats"], json!(["A5", "A6"]));
    assert_eq!(view["amount"], paid["amount"]);
    assert_eq!(view["showtimeId"], shop.showtime);
    assert!(view["movieTitle"].as_str().is_some_and(|t| !t.is_empty()));
    assert_eq!(view["payments"][0]["status"], "PAID");
    assert_eq!(
        view["payments"][0]["paymentUrl"],
        Value::Null,
        "paid: nothing to pay"
    );

    let list: Value = get_json_as(&alice, shop.app.url("/bookings")).await;
    let list = list.as_array().unwrap();
    assert_eq!(list.len(), 2);
    assert_eq!(list[0]["bookingId"], open["bookingId"], "newest first");
    assert_eq!(list[0]["status"], "PENDING");
    assert_eq!(list[0]["payments"][0]["paymentUrl"], open["paymentUrl"]);

    let r = bob
        .get(shop.app.url(&format!("/bookings/{paid_id}")))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    let bobs: Value = get_json_as(&bob, shop.app.url("/bookings")).await;
    assert_eq!(bobs, json!([]));
    let r = alice
        .get(shop.app.url(&format!("/bookings/{}", uuid::Uuid::new_v4())))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    let r = alice
        .get(shop.app.url("/bookings/nope"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    assert!(r.json::<Value>().await.unwrap()["error"].is_string());
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
        .with_payments(server::engine::Payments {
            gateway: std::sync::Arc::new(server::payments::gateway::HttpGateway::new(gateway)),
            provider: "sandbox".into(),
            callback_url: "http://127.0.0.1:9/payments/callback".into(),
            return_url_base: "http://127.0.0.1:9/my-bookings/".into(),
            webhook_secret: server::config::Secret::new(SANDBOX_SECRET.as_bytes().to_vec()),
        })
}

async fn several_workers_at_once_settle_each_payment_once(backend: Backend) {
    use app::engine::Inventory;
    use server::store::PaymentReport;
    let sandbox = sandbox().await;
    let db = TestDb::new(backend).await;
    let showtime = db.showtime().await;
    let engine = bare_engine(&db, &sandbox);
    // Twelve paid bookings waiting in the outbox.
    let mut bookings = Vec::new();
    for n in 1..=12 {
        let customer = app::domain::CustomerId(uuid::Uuid::new_v4());
        let seat = format!("B{n}");
        let hold = engine
            .hold(showtime, &sel(&[seat.as_str()]), customer)
            .await
            .unwrap();
        let checkout = engine.checkout(hold.hold_id, customer).await.unwrap();
        let session_id = checkout.payment_url.rsplit('/').next().unwrap().to_string();
        engine
            .payment_report(&PaymentReport {
                session_id,
                payment_id: Some(format!("pay_{n}")),
                paid: true,
                event_id: format!("evt_{n}"),
                charged: None,
            })
            .await
            .unwrap();
        bookings.push(checkout.booking_id);
    }
    // Four workers (engines over the same database) at once, until nothing is left.
    let workers: Vec<_> = (0..4)
        .map(|_| std::sync::Arc::new(bare_engine(&db, &sandbox)))
        .collect();
    let handled = futures_util::future::join_all(workers.iter().map(|w| {
        let w = w.clone();
        async move {
            let mut handled = 0;
            loop {
                let n = w.process_payment_events().await.unwrap();
                if n == 0 {
                    return handled;
                }
                handled += n;
            }
        }
    }))
    .await;
    assert_eq!(
        handled.iter().sum::<usize>(),
        12,
        "each event taken once: {handled:?}"
    );
    for booking in bookings {
        let view = engine
            .booking(booking, customer_of(&engine, booking).await)
            .await
            .unwrap();
        assert_eq!(view.status, "CONFIRMED");
    }
    let stored = db.stored(showtime).await;
    assert_eq!(stored.values().filter(|(s, _)| s == "BOOKED").count(), 12);
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

/// A payment recorded PAID and a second checkout of the same booking: no second session. And
/// if a second payment is made anyway (a session opened just before the first was recorded), it
/// is refunded once the first has confirmed the booking — the customer never pays twice.
async fn a_second_payment_of_a_booking_is_refunded_and_no_new_session_opens_while_one_is_paid(
    backend: Backend,
) {
    use app::engine::Inventory;
    use server::payments::gateway::PaymentGateway;
    let sandbox = sandbox().await;
    let db = TestDb::new(backend).await;
    let showtime = db.showtime().await;
    let engine = bare_engine(&db, &sandbox);
    let customer = app::domain::CustomerId(uuid::Uuid::new_v4());
    let hold = engine
        .hold(showtime, &sel(&["A1"]), customer)
        .await
        .unwrap();
    let first = engine.checkout(hold.hold_id, customer).await.unwrap();
    let first_payment = pay_quietly(&sandbox, &first).await;
    engine
        .payment_report(&paid_report(&first, &first_payment))
        .await
        .unwrap();
    // Paid but not yet settled: a new checkout opens no second session.
    assert_eq!(
        engine.checkout(hold.hold_id, customer).await,
        Err(app::error::InventoryError::PaymentReceived)
    );
    // The race the refusal narrows: a second session, opened before the first payment was
    // recorded, and paid.
    let request = server::payments::gateway::NewSession {
        amount: first.amount,
        currency: "KRW".into(),
        expires_at: first.pay_before,
        return_url: "http://127.0.0.1:9/my-bookings/x".into(),
        callback_url: "http://127.0.0.1:9/payments/callback".into(),
        merchant_reference: first.booking_id.0.to_string(),
        faults: None,
    };
    let key = format!("{}:1", first.booking_id.0);
    let session = sandbox
        .gateway
        .create_session(&request, &key)
        .await
        .unwrap();
    db.store
        .record_payment_session(&server::store::PaymentSessionRow {
            booking: first.booking_id,
            provider: "sandbox".into(),
            session_id: session.session_id.clone(),
            payment_url: session.payment_url.clone(),
            amount: session.amount,
            expires_at: session.expires_at,
        })
        .await
        .unwrap();
    let second = app::domain::Checkout {
        payment_url: session.payment_url,
        ..first.clone()
    };
    let second_payment = pay_quietly(&sandbox, &second).await;
    engine
        .payment_report(&paid_report(&second, &second_payment))
        .await
        .unwrap();
    // Settle both, then refund.
    assert_eq!(engine.process_confirmations().await.unwrap(), 2);
    assert_eq!(engine.process_refunds().await.unwrap(), 1);
    let view = engine.booking(first.booking_id, customer).await.unwrap();
    assert_eq!(view.status, "CONFIRMED");
    let statuses: Vec<&str> = view.payments.iter().map(|p| p.status.as_str()).collect();
    assert_eq!(
        statuses,
        ["PAID", "REFUNDED"],
        "the first confirmed, the second went back"
    );
    let refunded = |payment: String| {
        let base = sandbox.base.clone();
        async move {
            let record: Value = get_json(format!("{base}/v1/payments/{payment}")).await;
            record["refunded"].as_i64().unwrap()
        }
    };
    assert_eq!(refunded(first_payment).await, 0);
    assert_eq!(refunded(second_payment).await, first.amount);
    // Nothing more to do, and a repeated event changes nothing.
    assert_eq!(engine.process_payment_events().await.unwrap(), 0);
}

/// A refund the gateway is slow to make does not delay another customer's confirmation: the
/// refund worker waits on the gateway, the confirmation worker does not wait for it.
async fn refunds_never_hold_up_confirmations(backend: Backend) {
    let shop = shop(backend, "600").await;
    // Every refund takes the gateway four seconds.
    let r = reqwest::Client::new()
        .put(format!("{}/v1/faults", shop.sandbox.base))
        .json(&json!({ "refundDelayMs": 4000 }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    // Alice pays for a hold she has cancelled: her money goes back, slowly.
    let alice = shop.app.customer();
    let held = shop.hold(&alice, &["E1"]).await;
    let alice_hold = held["holdId"].as_str().unwrap();
    let (_, _, alice_checkout) = shop.checkout(&alice, alice_hold, Some("a")).await;
    let r = alice
        .delete(shop.app.url(&format!("/holds/{alice_hold}")))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    shop.press(&alice_checkout, "pay").await;
    let alice_booking = alice_checkout["bookingId"].as_str().unwrap();
    assert_eq!(shop.booking_settled(alice_booking).await, "FAILED");
    // Her refund is now being asked for.
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    // Bob pays meanwhile: he is confirmed while Alice's refund is still on its way.
    let bob = shop.app.customer();
    let held = shop.hold(&bob, &["E2"]).await;
    let bob_hold = held["holdId"].as_str().unwrap();
    let (_, _, bob_checkout) = shop.checkout(&bob, bob_hold, Some("b")).await;
    shop.press(&bob_checkout, "pay").await;
    let bob_booking = bob_checkout["bookingId"].as_str().unwrap();
    assert_eq!(shop.booking_settled(bob_booking).await, "CONFIRMED");
    assert_eq!(
        shop.payments(alice_hold).await.0[0].0,
        "PAID",
        "Bob was confirmed before Alice's refund finished"
    );
    let record = shop.refunded(alice_hold).await;
    assert_eq!(record["refunded"], alice_checkout["amount"]);
}

/// A validly signed callback that reports another amount, currency or reference than the
/// session asked for confirms nothing: the booking fails, the money taken goes back, the
/// mismatch is recorded and counted, and the sales report counts no sale.
async fn a_payment_that_does_not_match_the_order_is_refunded_not_confirmed(backend: Backend) {
    let shop = shop(backend, "600").await;
    // The sandbox's own callback is dropped: the test sends the gateway's report itself.
    let r = reqwest::Client::new()
        .put(format!("{}/v1/faults", shop.sandbox.base))
        .json(&json!({ "dropCallback": true }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let alice = shop.app.customer();
    let held = shop.hold(&alice, &["G7"]).await;
    let hold = held["holdId"].as_str().unwrap();
    let (_, _, checkout) = shop.checkout(&alice, hold, Some("k")).await;
    shop.press(&checkout, "pay").await;
    let session_id = checkout["paymentUrl"]
        .as_str()
        .unwrap()
        .rsplit('/')
        .next()
        .unwrap();
    let payment = shop_payment_id(&shop.sandbox, session_id).await;
    let booking = checkout["bookingId"].as_str().unwrap();
    let event = CallbackEvent {
        event_id: "evt_cheap".into(),
        kind: "payment.succeeded".into(),
        session_id: session_id.into(),
        payment_id: Some(payment.clone()),
        merchant_reference: booking.into(),
        amount: 1,
        currency: "KRW".into(),
        status: SessionStatus::Paid,
        occurred_at: chrono::Utc::now(),
    };
    let body = serde_json::to_vec(&event).unwrap();
    let r = reqwest::Client::new()
        .post(shop.app.url("/payments/callback"))
        .header("content-type", "application/json")
        .header(
            signature::HEADER,
            signature::sign(
                SANDBOX_SECRET.as_bytes(),
                chrono::Utc::now().timestamp(),
                &body,
            ),
        )
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(shop.booking_settled(booking).await, "FAILED");
    let view = get_json_as(&alice, shop.app.url(&format!("/bookings/{booking}"))).await;
    assert_eq!(view["failureReason"], server::store::MISMATCH_REASON);
    // What was taken (1 won) goes back; nothing was booked.
    let record = shop.refunded(hold).await;
    assert_eq!(record["refunded"], 1);
    let stored = shop.db.stored(app::domain::ShowtimeId(shop.showtime)).await;
    assert_ne!(stored["G7"].0, "BOOKED");
    let recorded = on_db!(shop.db, |pool, sql| {
        sqlx::query_scalar::<_, Option<String>>(&sql(
            "select mismatch from payment where provider_payment_id = $1",
        ))
        .bind(&payment)
        .fetch_one(&pool)
        .await
        .unwrap()
    });
    assert!(
        recorded
            .as_deref()
            .is_some_and(|m| m.contains("amount 1 instead of")),
        "{recorded:?}"
    );
    let metrics = get_text(shop.app.url("/metrics")).await;
    assert!(
        metrics.contains("seats_payment_mismatches_total 1"),
        "{metrics}"
    );
    let sales = shop.sales_row(|row| row["refunds"] == 1).await;
    assert_eq!(sales["revenue"], 0);
    assert_eq!(sales["bookings"], 0);
}

/// A "paid" report without a payment id can never be confirmed or refunded: it is parked at
/// once. An event that keeps failing is parked after `MAX_ATTEMPTS`. Parked events are not
/// taken again, and `/metrics` counts them.
async fn a_payment_event_that_cannot_succeed_or_keeps_failing_is_parked(backend: Backend) {
    use app::engine::Inventory;
    use server::engine::settlement::MAX_ATTEMPTS;
    let sandbox = sandbox().await;
    let db = TestDb::new(backend).await;
    let showtime = db.showtime().await;
    let engine = bare_engine(&db, &sandbox);
    let customer = app::domain::CustomerId(uuid::Uuid::new_v4());
    let hold = engine
        .hold(showtime, &sel(&["A1"]), customer)
        .await
        .unwrap();
    let checkout = engine.checkout(hold.hold_id, customer).await.unwrap();
    let mut report = paid_report(&checkout, "unused");
    report.payment_id = None;
    engine.payment_report(&report).await.unwrap();
    assert_eq!(engine.process_confirmations().await.unwrap(), 1);
    assert_eq!(db.store.parked_count().await.unwrap(), 1);
    assert_eq!(
        engine
            .metrics()
            .events_parked
            .load(std::sync::atomic::Ordering::Relaxed),
        1
    );
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    assert_eq!(
        engine.process_confirmations().await.unwrap(),
        0,
        "not taken again"
    );

    // A refund whose gateway never answers: retried, then parked at the cap.
    let other = app::domain::CustomerId(uuid::Uuid::new_v4());
    let hold = engine.hold(showtime, &sel(&["A2"]), other).await.unwrap();
    let checkout = engine.checkout(hold.hold_id, other).await.unwrap();
    let payment = pay_quietly(&sandbox, &checkout).await;
    engine.cancel(hold.hold_id, other).await.unwrap();
    engine
        .payment_report(&paid_report(&checkout, &payment))
        .await
        .unwrap();
    assert_eq!(engine.process_confirmations().await.unwrap(), 1);
    let unreachable = engine_with(&db, server::clock::Clock::Database, "http://127.0.0.1:9");
    // The first failures are retried.
    assert_eq!(unreachable.process_refunds().await.unwrap(), 1);
    assert_eq!(
        db.store.parked_count().await.unwrap(),
        1,
        "only the first event"
    );
    // It has failed MAX_ATTEMPTS - 1 times: one more failure parks it.
    on_db!(db, |pool, sql| {
        sqlx::query(&sql(&format!(
            "update outbox set attempts = {}, next_attempt_at = created_at where event_type = 'RefundDue'",
            MAX_ATTEMPTS - 1
        )))
        .execute(&pool)
        .await
        .unwrap();
    });
    assert_eq!(unreachable.process_refunds().await.unwrap(), 1);
    assert_eq!(db.store.parked_count().await.unwrap(), 2);
    assert_eq!(unreachable.process_refunds().await.unwrap(), 0);
    assert_eq!(
        engine.process_refunds().await.unwrap(),
        0,
        "parked for an operator"
    );
}

/// Sales close when the showtime starts: no hold, no checkout, no confirmation after it. A
/// payment that arrives after the start is refunded, and the list shows the showtime closed.
async fn sales_close_at_the_start_for_holds_checkouts_and_confirmations(backend: Backend) {
    use app::engine::Inventory;
    use app::error::InventoryError;
    let sandbox = sandbox().await;
    let db = TestDb::new(backend).await;
    let start = chrono::Utc::now() + chrono::Duration::minutes(4);
    let showtime = db.showtime_at(start).await;
    let clock = server::clock::Clock::manual(chrono::Utc::now());
    let engine = engine_with(&db, clock.clone(), &sandbox.base);
    let (alice, bob) = (
        app::domain::CustomerId(uuid::Uuid::new_v4()),
        app::domain::CustomerId(uuid::Uuid::new_v4()),
    );
    let alice_hold = engine.hold(showtime, &sel(&["A1"]), alice).await.unwrap();
    let bob_hold = engine.hold(showtime, &sel(&["A2"]), bob).await.unwrap();
    // Payment must be done two minutes before the start, as before a hold's end.
    let checkout = engine.checkout(alice_hold.hold_id, alice).await.unwrap();
    assert!(checkout.pay_before <= start - chrono::Duration::minutes(2));
    let payment = pay_quietly(&sandbox, &checkout).await;
    engine
        .payment_report(&paid_report(&checkout, &payment))
        .await
        .unwrap();
    // The show starts before the payment is settled.
    clock.advance(chrono::Duration::minutes(5));
    assert_eq!(
        engine.hold(showtime, &sel(&["A3"]), customer_id()).await,
        Err(InventoryError::SalesClosed)
    );
    assert_eq!(
        engine.checkout(bob_hold.hold_id, bob).await,
        Err(InventoryError::SalesClosed)
    );
    assert_eq!(engine.process_confirmations().await.unwrap(), 1);
    let view = engine.booking(checkout.booking_id, alice).await.unwrap();
    assert_eq!(view.status, "FAILED");
    assert_eq!(
        view.failure_reason.as_deref(),
        Some(server::store::CLOSED_REASON)
    );
    assert_eq!(engine.process_refunds().await.unwrap(), 1);
    let record: Value = get_json(format!("{}/v1/payments/{payment}", sandbox.base)).await;
    assert_eq!(record["refunded"], checkout.amount);
    assert_ne!(db.stored(showtime).await["A1"].0, "BOOKED");
    let list = engine.list_showtimes().await.unwrap();
    let listed = list
        .iter()
        .find(|s| s.id == showtime)
        .expect("listed today");
    assert!(!listed.sales_open);
}

fn customer_id() -> app::domain::CustomerId {
    app::domain::CustomerId(uuid::Uuid::new_v4())
}

/// A ticket names its signing key: rotated keys (the new one first, the old one kept) still
/// verify it, a different SESSION_SECRET changes nothing, and only retiring its key voids it.
async fn tickets_stay_valid_when_ticket_keys_rotate_or_the_session_secret_changes(
    backend: Backend,
) {
    let shop = shop(backend, "600").await;
    let alice = shop.app.customer();
    let held = shop.hold(&alice, &["B9"]).await;
    let hold = held["holdId"].as_str().unwrap();
    let (_, _, checkout) = shop.checkout(&alice, hold, Some("k")).await;
    shop.press(&checkout, "pay").await;
    let booking = checkout["bookingId"].as_str().unwrap();
    let view = shop.ticket_issued(&alice, booking).await;
    assert!(!view["ticketIssuedAt"].is_null());
    let code = shop
        .text(
            "select code from ticket where booking_id = $1",
            uuid::Uuid::parse_str(booking).unwrap(),
        )
        .await
        .unwrap();
    assert!(code.starts_with("SEATS2-t1-"), "{code}");
    let door = |app: &TestApp| {
        let url = app.url(&format!("/tickets/{code}"));
        async move { reqwest::get(url).await.unwrap().status() }
    };
    assert_eq!(door(&shop.app).await, StatusCode::OK);
    let (_, old) = TICKET_KEYS.split_once(':').unwrap();
    let rotated = format!("t2:a newer ticket signing key of 32+ characters,t1:{old}");
    let other_session = "another session secret, also 32+ characters long";
    let next = TestApp::spawn_with(
        &shop.db,
        "600",
        &[
            ("TICKET_KEYS", &rotated),
            ("SESSION_SECRET", other_session),
            ("PAYMENT_GATEWAY_URL", &shop.sandbox.base),
        ],
    )
    .await;
    assert_eq!(door(&next).await, StatusCode::OK, "rotated: still valid");
    let retired = TestApp::spawn_with(
        &shop.db,
        "600",
        &[
            (
                "TICKET_KEYS",
                "t2:a newer ticket signing key of 32+ characters",
            ),
            ("PAYMENT_GATEWAY_URL", &shop.sandbox.base),
        ],
    )
    .await;
    assert_eq!(
        door(&retired).await,
        StatusCode::NOT_FOUND,
        "its key retired"
    );
}
