//! Cancelling a showtime: nothing of it is sold any more, live holds are freed, each paid
//! booking is refunded through the gateway once, and its customer is told.

use super::*;
use std::time::Duration;

on_both_backends!(a_cancelled_showtime_sells_nothing_and_refunds_each_paid_booking_once,);

async fn a_cancelled_showtime_sells_nothing_and_refunds_each_paid_booking_once(backend: Backend) {
    let shop = shop(backend, "600").await;
    // Alice has paid for two seats, Bob holds one, Carol has checked out but not paid.
    let alice = shop.app.customer();
    let held = shop.hold(&alice, &["E3", "E4"]).await;
    let alice_hold = held["holdId"].as_str().unwrap().to_string();
    let (_, _, paid) = shop.checkout(&alice, &alice_hold, Some("a")).await;
    let alice_booking = paid["bookingId"].as_str().unwrap().to_string();
    shop.press(&paid, "pay").await;
    assert_eq!(shop.booking_settled(&alice_booking).await, "CONFIRMED");
    shop.ticket_issued(&alice, &alice_booking).await;
    let bob = shop.app.customer();
    shop.hold(&bob, &["E5"]).await;
    let carol = shop.app.customer();
    let held = shop.hold(&carol, &["E6"]).await;
    let carol_hold = held["holdId"].as_str().unwrap().to_string();
    let (_, _, unpaid) = shop.checkout(&carol, &carol_hold, Some("c")).await;
    let carol_booking = unpaid["bookingId"].as_str().unwrap().to_string();

    // Customers may not cancel; an operator may.
    let cancel = |client: Session| {
        let url = shop.app.url("/api/cancel_showtime");
        let body = json!({ "showtime_id": shop.showtime });
        async move {
            let r = client.post(url).json(&body).send().await.unwrap();
            (r.status(), r.json::<Value>().await.unwrap_or(Value::Null))
        }
    };
    assert_eq!(cancel(alice.clone()).await.0, StatusCode::UNAUTHORIZED);
    let mut watching = viewer(&shop.app.base, shop.showtime).await;
    let operator = operator(&shop.app).await;
    let (status, done) = cancel(operator.clone()).await;
    assert_eq!(status, StatusCode::OK, "{done}");
    assert_eq!(
        done,
        json!({ "already": false, "released": 2, "refunds": 1, "owedAtCounter": 0 })
    );
    // Whoever watches the seat map sees the held seats come free and is told of the cancellation.
    let mut told = Vec::new();
    while !told.contains(&"showtimeCancelled".to_string()) {
        use futures_util::StreamExt;
        let message = tokio::time::timeout(Duration::from_secs(5), watching.next())
            .await
            .expect("live messages within 5 s")
            .unwrap()
            .unwrap();
        if let tokio_tungstenite::tungstenite::Message::Text(text) = message {
            let v: Value = serde_json::from_str(&text).unwrap();
            told.push(v["type"].as_str().unwrap().to_string());
        }
    }
    assert!(told.contains(&"seatsReleased".to_string()), "{told:?}");

    // Nothing more is held; the held seats are free, the sold ones stay with their booking.
    let dave = shop.app.customer();
    let r = dave
        .post(shop.app.url(&format!("/showtimes/{}/holds", shop.showtime)))
        .json(&json!({ "seats": ["E7"] }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CONFLICT);
    assert_eq!(
        r.json::<Value>().await.unwrap()["code"],
        "SHOWTIME_CANCELLED"
    );
    let stored = shop.db.stored(showtime_id(shop.showtime)).await;
    assert_eq!(
        ["E3", "E4", "E5", "E6", "E7"].map(|s| stored[s].0.as_str()),
        ["BOOKED", "BOOKED", "AVAILABLE", "AVAILABLE", "AVAILABLE"]
    );
    let map: Value = get_json(shop.app.url(&format!("/showtimes/{}/seats", shop.showtime))).await;
    assert_eq!(
        (map["cancelled"].as_bool(), map["salesOpen"].as_bool()),
        (Some(true), Some(false))
    );

    // Alice's payment is refunded through the gateway, once.
    let record = shop.refunded(&alice_hold).await;
    assert_eq!(record["refunds"].as_array().unwrap().len(), 1);
    assert_eq!(record["refunded"], paid["amount"]);
    // Her ticket no longer lets anyone in.
    let code = shop
        .ticket_code(&alice_booking)
        .await
        .expect("issued before the cancellation");
    let door: serde_json::Value = reqwest::get(shop.app.url(&format!("/tickets/{code}")))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        (door["valid"].as_bool(), door["state"].as_str()),
        (Some(false), Some("CANCELLED")),
        "{door}"
    );
    // Cancelling again changes nothing: no second refund is asked for.
    let (status, again) = cancel(operator.clone()).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        again,
        json!({ "already": true, "released": 0, "refunds": 0, "owedAtCounter": 0 })
    );
    for kind in ["RefundDue", "RefundIssued"] {
        assert_eq!(shop.events(&alice_booking, kind).await, 1, "{kind}");
    }
    let view = get_json_as(&alice, shop.app.url(&format!("/bookings/{alice_booking}"))).await;
    assert_eq!(view["showtimeCancelled"], true, "{view}");
    assert_eq!(view["payments"][0]["status"], "REFUNDED");

    // Carol pays after the cancellation: her booking fails and the money goes back.
    shop.press(&unpaid, "pay").await;
    assert_eq!(shop.booking_settled(&carol_booking).await, "FAILED");
    shop.refunded(&carol_hold).await;

    // The operator's list shows the showtime cancelled and its refunds made.
    let counts: Value = operator
        .post(shop.app.url("/api/showtime_figures"))
        .json(&json!({}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let ours = counts
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == shop.showtime)
        .unwrap();
    assert_eq!(
        (&ours["cancelled"], &ours["refundsDue"], &ours["refunded"]),
        (&json!(true), &json!(0), &json!(2)),
        "{ours}"
    );
}

/// PostgreSQL: a settlement and a cancellation of one showtime take turns on the showtime's row.
/// A settlement that starts while a cancellation holds the row waits, then sees the
/// cancellation and refunds instead of confirming (without the turn it would read the showtime
/// as it was and confirm a booking nobody refunds). Control: a cancellation of another
/// showtime holds nothing up.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_settlement_waits_for_a_cancellation_in_flight_and_then_refunds() {
    use app::engine::prelude::*;
    let sandbox = sandbox().await;
    let db = TestDb::new(Backend::Postgres).await;
    let showtime = db.showtime().await;
    let other = db.showtime().await;
    let engine = std::sync::Arc::new(bare_engine(&db, &sandbox));
    let paid = |seat: &'static str| {
        let (engine, sandbox) = (engine.clone(), &sandbox);
        async move {
            let customer = customer_id();
            let hold = engine
                .hold_seats(showtime, &sel(&[seat]), Holder::customer(customer, None))
                .await
                .unwrap();
            let checkout = engine
                .checkout_hold(hold.hold_id, customer, Default::default(), None)
                .await
                .unwrap();
            let payment = pay_quietly(sandbox, &checkout).await;
            engine
                .payment_report(&paid_report(&checkout, &payment))
                .await
                .unwrap();
            checkout.booking_id
        }
    };
    let status = |booking: app::domain::BookingId| {
        let store = db.store.clone();
        async move {
            let record = store
                .bookings(server::store::BookingFilter::One(booking))
                .await
                .unwrap();
            record[0].status.to_string()
        }
    };
    let cancelling = |id: app::domain::ShowtimeId| {
        let pool = db.pg_pool().clone();
        async move {
            let mut tx = pool.begin().await.unwrap();
            sqlx::query("update showtime set cancelled_at = now() where id = $1")
                .bind(id.get())
                .execute(&mut *tx)
                .await
                .unwrap();
            tx
        }
    };

    // Control: another showtime's cancellation in flight does not hold this settlement up.
    let first = paid("A1").await;
    let elsewhere = cancelling(other).await;
    let settled =
        tokio::time::timeout(Duration::from_secs(5), engine.process_confirmations()).await;
    assert!(matches!(settled, Ok(Ok(1))), "{settled:?}");
    assert_eq!(status(first).await, "CONFIRMED");
    elsewhere.rollback().await.unwrap();

    // This showtime's cancellation in flight: the settlement waits for it, then refunds.
    let second = paid("A2").await;
    let cancellation = cancelling(showtime).await;
    let settling = tokio::spawn({
        let engine = engine.clone();
        async move { engine.process_confirmations().await }
    });
    tokio::time::sleep(Duration::from_millis(700)).await;
    assert!(
        !settling.is_finished(),
        "the settlement waits for the cancellation"
    );
    cancellation.commit().await.unwrap();
    let settled = tokio::time::timeout(Duration::from_secs(10), settling).await;
    assert!(matches!(settled, Ok(Ok(Ok(1)))), "{settled:?}");
    assert_eq!(
        status(second).await,
        "FAILED",
        "not confirmed for a cancelled showtime"
    );
    let due: i64 = sqlx::query_scalar(
        "select count(*) from outbox where aggregate_id = $1 and event_type = 'RefundDue'",
    )
    .bind(second.0)
    .fetch_one(db.pg_pool())
    .await
    .unwrap();
    assert_eq!(due, 1);
    db.drop_database().await;
}

/// A hold whose statement read the showtime just before its cancellation committed commits after
/// it (PostgreSQL: the statement's snapshot saw no cancellation). The control shows that race is
/// real; the cancellation's follow-up sweep then releases the seat, so no HELD seat remains on a
/// cancelled showtime. (The sweeper's own interval is an hour here: only the follow-up can.)
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_hold_committed_during_a_cancellation_does_not_survive_it() {
    let shop = shop_with(
        Backend::Postgres,
        "600",
        &[("SWEEP_INTERVAL_SECONDS", "3600")],
    )
    .await;
    let showtime = showtime_id(shop.showtime);
    let pool = shop.db.pg_pool();
    // Arrange: the cancellation's transaction has marked the showtime, not committed yet.
    let mut cancelling = pool.begin().await.unwrap();
    sqlx::query("update showtime set cancelled_at = now() where id = $1")
        .bind(shop.showtime)
        .execute(&mut *cancelling)
        .await
        .unwrap();
    // Act: a customer's hold runs meanwhile and commits at once.
    let customer = shop.app.customer();
    let held = shop.hold(&customer, &["H7"]).await;
    assert!(held["holdId"].is_string(), "{held}");
    cancelling.commit().await.unwrap();
    // Control: the hold did survive the cancellation's own statements.
    assert_eq!(
        shop.db.stored(showtime).await["H7"].0,
        "HELD",
        "the race is real"
    );
    // Assert: the operator's cancellation (already done: it changes nothing else) wakes the
    // sweeper, which releases the held seat of the cancelled showtime.
    let operator = operator(&shop.app).await;
    let (status, again) = operator
        .cancel_showtime(json!({ "showtime_id": shop.showtime }))
        .await;
    assert_eq!(
        (status, again["already"].as_bool()),
        (StatusCode::OK, Some(true)),
        "{again}"
    );
    let state = eventually(
        Duration::from_secs(10),
        || async { shop.db.stored(showtime).await["H7"].0.clone() },
        |s| s == "AVAILABLE",
    )
    .await;
    assert_eq!(state, "AVAILABLE");
    let held_left = shop
        .db
        .stored(showtime)
        .await
        .values()
        .filter(|(s, _)| s == "HELD")
        .count();
    assert_eq!(held_left, 0);
}

/// A counter refund of an online booking and the showtime's cancellation, at once (PostgreSQL):
/// the refund has taken the payment when the cancellation comes to it. One `RefundDue` only.
/// (Control: a paid booking nothing else touches gets its one `RefundDue` from the cancellation.)
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_counter_refund_racing_a_cancellation_asks_for_one_refund() {
    let shop = shop(Backend::Postgres, "600").await;
    let mut bookings = Vec::new();
    for seats in [["J3", "J4"], ["J7", "J8"]] {
        let customer = shop.app.customer();
        let held = shop.hold(&customer, &seats).await;
        let hold = held["holdId"].as_str().unwrap().to_string();
        let (_, _, paid) = shop.checkout(&customer, &hold, Some("k")).await;
        let booking = paid["bookingId"].as_str().unwrap().to_string();
        shop.press(&paid, "pay").await;
        assert_eq!(shop.booking_settled(&booking).await, "CONFIRMED");
        bookings.push(uuid::Uuid::parse_str(&booking).unwrap());
    }
    let pool = shop.db.pg_pool();
    // Arrange: a counter refund of the first booking has locked its payment (as the box office's
    // refund does) and is about to mark it refunded.
    let mut refunding = pool.begin().await.unwrap();
    sqlx::query("select 1 from payment where booking_id = $1 and status = 'PAID' for update")
        .bind(bookings[0])
        .execute(&mut *refunding)
        .await
        .unwrap();
    // Act: the cancellation runs; it waits for the payment…
    let operator = operator(&shop.app).await;
    let cancel = {
        let (url, body) = (
            shop.app.url("/api/cancel_showtime"),
            json!({ "showtime_id": shop.showtime }),
        );
        tokio::spawn(async move {
            operator
                .post(url)
                .json(&body)
                .send()
                .await
                .unwrap()
                .status()
        })
    };
    shop.db.until_a_statement_waits_for_a_lock().await;
    // …while the counter refund marks it and appends its own RefundDue, then commits.
    sqlx::query(
        "update payment set outcome = 'REFUND' where booking_id = $1 and outcome = 'CONFIRMED'",
    )
    .bind(bookings[0])
    .execute(&mut *refunding)
    .await
    .unwrap();
    refunding.commit().await.unwrap();
    assert_eq!(cancel.await.unwrap(), StatusCode::OK);
    // Assert: the cancellation asked for no second refund of the first payment, and for one of
    // the second (the control).
    let due = |booking: uuid::Uuid| async move {
        sqlx::query_scalar::<_, i64>(
            "select count(*) from outbox where aggregate_id = $1 and event_type = 'RefundDue'",
        )
        .bind(booking)
        .fetch_one(pool)
        .await
        .unwrap()
    };
    assert_eq!(
        due(bookings[0]).await,
        0,
        "the counter refund had it (and writes its own)"
    );
    assert_eq!(
        due(bookings[1]).await,
        1,
        "control: the untouched payment is refunded once"
    );
}
