//! Settling payments: the fenced confirmation, failures and refunds, workers that die or run
//! side by side, second payments, slow refunds, parked events, sales that have closed.

use super::*;

on_both_backends!(
    a_paid_hold_becomes_a_confirmed_booking_with_its_seats_booked,
    a_payment_after_the_hold_expired_fails_the_booking_and_is_refunded_once,
    a_payment_after_someone_else_took_the_seats_is_refunded_and_they_keep_them,
    a_worker_that_dies_between_steps_loses_nothing_and_refunds_once,
    several_workers_at_once_settle_each_payment_once,
    a_second_payment_of_a_booking_is_refunded_and_no_new_session_opens_while_one_is_paid,
    refunds_never_hold_up_confirmations,
    a_payment_event_that_cannot_succeed_or_keeps_failing_is_parked,
    sales_close_at_the_start_for_holds_checkouts_and_confirmations,
);

async fn a_paid_hold_becomes_a_confirmed_booking_with_its_seats_booked(backend: Backend) {
    let shop = shop(backend, "600").await;
    let alice = shop.app.customer();
    let hold = shop.hold(&alice, &["D3", "D4"]).await;
    let hold = hold["holdId"].as_str().unwrap();
    let (_, _, checkout) = shop.checkout(&alice, hold, Some("pay")).await;
    let booking = checkout["bookingId"].as_str().unwrap();
    shop.press(&checkout, "pay").await;
    assert_eq!(shop.booking_settled(booking).await, "CONFIRMED");
    let stored = shop.db.stored(showtime_id(shop.showtime)).await;
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
    let code = shop.ticket_code(booking).await.expect("ticket record");
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
    shop.lapse_hold(hold).await;
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
    let stored = shop.db.stored(showtime_id(shop.showtime)).await;
    assert_ne!(stored["D7"].0, "BOOKED");
    // The sales figures count the refund and no sale; no ticket was issued.
    let sales = shop.sales_row(|row| row["refunds"] == 1).await;
    assert_eq!(sales["refunded"], checkout["amount"]);
    assert_eq!(sales["bookings"], 0);
    let ticket = shop.ticket_code(booking).await;
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
    shop.lapse_hold(hold).await;
    let bobs = shop.hold(&bob, &["D9"]).await;
    shop.press(&checkout, "pay").await;
    assert_eq!(shop.booking_settled(booking).await, "FAILED");
    let record = shop.refunded(hold).await;
    assert_eq!(record["refunds"].as_array().unwrap().len(), 1);
    let stored = shop.db.stored(showtime_id(shop.showtime)).await;
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
    use app::engine::prelude::*;
    let customer = app::domain::CustomerId(uuid::Uuid::new_v4());
    let hold = engine
        .hold_seats(showtime, &sel(&["A1"]), Holder::customer(customer, None))
        .await
        .unwrap();
    let checkout = engine
        .checkout_hold(hold.hold_id, customer, Default::default(), None)
        .await
        .unwrap();
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
    engine.cancel_hold(hold.hold_id, customer).await.unwrap();
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
    assert_eq!(record["refunded"], checkout.amount.get());
}

async fn several_workers_at_once_settle_each_payment_once(backend: Backend) {
    use app::engine::prelude::*;
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
            .hold_seats(
                showtime,
                &sel(&[seat.as_str()]),
                Holder::customer(customer, None),
            )
            .await
            .unwrap();
        let checkout = engine
            .checkout_hold(hold.hold_id, customer, Default::default(), None)
            .await
            .unwrap();
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
            .get_booking(booking, customer_of(&engine, booking).await)
            .await
            .unwrap();
        assert_eq!(view.status, "CONFIRMED");
    }
    let stored = db.stored(showtime).await;
    assert_eq!(stored.values().filter(|(s, _)| s == "BOOKED").count(), 12);
}

/// A payment recorded PAID and a second checkout of the same booking: no second session. And
/// if a second payment is made anyway (a session opened just before the first was recorded), it
/// is refunded once the first has confirmed the booking — the customer never pays twice.
async fn a_second_payment_of_a_booking_is_refunded_and_no_new_session_opens_while_one_is_paid(
    backend: Backend,
) {
    use app::engine::prelude::*;
    use server::payments::gateway::PaymentGateway;
    let sandbox = sandbox().await;
    let db = TestDb::new(backend).await;
    let showtime = db.showtime().await;
    let engine = bare_engine(&db, &sandbox);
    let customer = app::domain::CustomerId(uuid::Uuid::new_v4());
    let hold = engine
        .hold_seats(showtime, &sel(&["A1"]), Holder::customer(customer, None))
        .await
        .unwrap();
    let first = engine
        .checkout_hold(hold.hold_id, customer, Default::default(), None)
        .await
        .unwrap();
    let first_payment = pay_quietly(&sandbox, &first).await;
    engine
        .payment_report(&paid_report(&first, &first_payment))
        .await
        .unwrap();
    // Paid but not yet settled: a new checkout opens no second session.
    assert_eq!(
        engine
            .checkout_hold(hold.hold_id, customer, Default::default(), None)
            .await,
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
    let view = engine
        .get_booking(first.booking_id, customer)
        .await
        .unwrap();
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
    assert_eq!(refunded(second_payment).await, first.amount.get());
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

/// A "paid" report without a payment id can never be confirmed or refunded: it is parked at
/// once. An event that keeps failing is parked after `MAX_ATTEMPTS`. Parked events are not
/// taken again, and `/metrics` counts them.
async fn a_payment_event_that_cannot_succeed_or_keeps_failing_is_parked(backend: Backend) {
    use app::engine::prelude::*;
    use server::engine::settlement::MAX_ATTEMPTS;
    let sandbox = sandbox().await;
    let db = TestDb::new(backend).await;
    let showtime = db.showtime().await;
    let engine = bare_engine(&db, &sandbox);
    let customer = app::domain::CustomerId(uuid::Uuid::new_v4());
    let hold = engine
        .hold_seats(showtime, &sel(&["A1"]), Holder::customer(customer, None))
        .await
        .unwrap();
    let checkout = engine
        .checkout_hold(hold.hold_id, customer, Default::default(), None)
        .await
        .unwrap();
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
    let hold = engine
        .hold_seats(showtime, &sel(&["A2"]), Holder::customer(other, None))
        .await
        .unwrap();
    let checkout = engine
        .checkout_hold(hold.hold_id, other, Default::default(), None)
        .await
        .unwrap();
    let payment = pay_quietly(&sandbox, &checkout).await;
    engine.cancel_hold(hold.hold_id, other).await.unwrap();
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
    on_db!(db, |pool| {
        sqlx::query(
            "update outbox set attempts = $1, next_attempt_at = created_at where event_type = 'RefundDue'",
        )
        .bind(MAX_ATTEMPTS as i32 - 1)
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
    use app::engine::prelude::*;
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
    let alice_hold = engine
        .hold_seats(showtime, &sel(&["A1"]), Holder::customer(alice, None))
        .await
        .unwrap();
    let bob_hold = engine
        .hold_seats(showtime, &sel(&["A2"]), Holder::customer(bob, None))
        .await
        .unwrap();
    // Payment must be done two minutes before the start, as before a hold's end.
    let checkout = engine
        .checkout_hold(alice_hold.hold_id, alice, Default::default(), None)
        .await
        .unwrap();
    assert!(checkout.pay_before <= start - chrono::Duration::minutes(2));
    let payment = pay_quietly(&sandbox, &checkout).await;
    engine
        .payment_report(&paid_report(&checkout, &payment))
        .await
        .unwrap();
    // The show starts before the payment is settled.
    clock.advance(chrono::Duration::minutes(5));
    assert_eq!(
        engine
            .hold_seats(
                showtime,
                &sel(&["A3"]),
                Holder::customer(customer_id(), None)
            )
            .await,
        Err(InventoryError::SalesClosed)
    );
    assert_eq!(
        engine
            .checkout_hold(bob_hold.hold_id, bob, Default::default(), None)
            .await,
        Err(InventoryError::SalesClosed)
    );
    assert_eq!(engine.process_confirmations().await.unwrap(), 1);
    let view = engine
        .get_booking(checkout.booking_id, alice)
        .await
        .unwrap();
    assert_eq!(view.status, "FAILED");
    assert_eq!(
        view.failure_reason.as_deref(),
        Some(server::store::CLOSED_REASON)
    );
    assert_eq!(engine.process_refunds().await.unwrap(), 1);
    let record: Value = get_json(format!("{}/v1/payments/{payment}", sandbox.base)).await;
    assert_eq!(record["refunded"], checkout.amount.get());
    assert_ne!(db.stored(showtime).await["A1"].0, "BOOKED");
    let list = engine.list_showtimes().await.unwrap();
    let listed = list
        .iter()
        .find(|s| s.id == showtime)
        .expect("listed today");
    assert!(!listed.sales_open);
}
