//! The gateway's reports: signed callbacks recorded once, declines, lost callbacks found by
//! reconciliation, charges that do not match the order.

use super::*;

on_both_backends!(
    a_paid_callback_is_recorded_once_even_when_it_comes_twice_at_once,
    a_callback_with_a_bad_or_stale_signature_is_401_and_records_nothing,
    after_a_declined_payment_the_hold_can_be_checked_out_again,
    lost_callbacks_are_found_by_reconciliation,
    a_payment_that_does_not_match_the_order_is_refunded_not_confirmed,
);

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
        amount: app::domain::Won::new(checkout["amount"].as_i64().unwrap()),
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
    let stored = shop.db.stored(showtime_id(shop.showtime)).await;
    assert_eq!(stored["G9"].0, "HELD");
    assert_eq!(stored["G8"].0, "BOOKED");
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
        amount: app::domain::Won::new(1),
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
    let stored = shop.db.stored(showtime_id(shop.showtime)).await;
    assert_ne!(stored["G7"].0, "BOOKED");
    let recorded = on_db!(shop.db, |pool| {
        sqlx::query_scalar::<_, Option<String>>(
            "select mismatch from payment where provider_payment_id = $1",
        )
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
