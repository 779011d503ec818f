//! Checkout: one booking and one payment session per hold, its idempotency key, who may check
//! out and when, and what the customer sees of their bookings.

use super::*;

on_both_backends!(
    checkout_creates_one_payment_session_that_ends_two_minutes_before_the_hold,
    the_same_key_replays_the_answer_another_request_is_422_and_no_key_is_400,
    a_key_still_in_use_is_409,
    two_concurrent_checkouts_of_one_hold_make_one_booking_and_one_payment_session,
    only_the_owner_of_a_live_hold_with_enough_time_left_can_check_out,
    when_the_gateway_is_down_the_answer_is_503_and_the_key_is_not_kept,
    a_customer_sees_their_bookings_and_what_happened_to_the_money,
);

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
    let price = |code: &str| seat(&map, code)["price"].as_i64().unwrap();
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
    assert_eq!(session.amount.get(), checkout["amount"].as_i64().unwrap());
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

    // Keys are per customer: Bob's "pay-1" is his own — and the hold is not his: 403, with
    // nothing kept for it (a stranger cannot fill the key table), so asking again is no replay.
    let bob = shop.app.customer();
    let (status, _, body) = shop.checkout(&bob, second, Some("pay-1")).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    let (status, headers, _) = shop.checkout(&bob, second, Some("pay-1")).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert!(
        !headers.contains_key("idempotent-replayed"),
        "nothing was kept for it"
    );
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
    let unknown = app::domain::HoldId::new(showtime_id(shop.showtime), [7; 16]);
    let (status, _, _) = shop.checkout(&alice, &unknown.to_string(), Some("u")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _, _) = shop.checkout(&alice, "not-a-uuid", Some("g")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    // Without a key, that is what the client is told first, whatever the id.
    for id in ["not-a-uuid", &unknown.to_string()] {
        let (status, _, body) = shop.checkout(&alice, id, None).await;
        assert_eq!(
            (status, body["code"].as_str()),
            (StatusCode::BAD_REQUEST, Some("IDEMPOTENCY_KEY_MISSING")),
            "{id}"
        );
    }
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
