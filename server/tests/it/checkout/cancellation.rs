//! Cancelling a showtime: nothing of it is sold any more, live holds are freed, each paid
//! booking is refunded through the gateway once, and its customer is told.

use super::*;

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
    let cancel = |client: reqwest::Client| {
        let url = shop.app.url("/api/cancel_showtime");
        let body = json!({ "showtime_id": shop.showtime });
        async move {
            let r = client.post(url).json(&body).send().await.unwrap();
            (r.status(), r.json::<Value>().await.unwrap_or(Value::Null))
        }
    };
    assert_eq!(cancel(alice.clone()).await.0, StatusCode::UNAUTHORIZED);
    let operator = operator(&shop.app).await;
    let (status, done) = cancel(operator.clone()).await;
    assert_eq!(status, StatusCode::OK, "{done}");
    assert_eq!(
        done,
        json!({ "already": false, "released": 2, "refunds": 1 })
    );

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
    let door = reqwest::get(shop.app.url(&format!("/tickets/{code}")))
        .await
        .unwrap();
    assert_eq!(door.status(), StatusCode::NOT_FOUND);
    // Cancelling again changes nothing: no second refund is asked for.
    let (status, again) = cancel(operator.clone()).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        again,
        json!({ "already": true, "released": 0, "refunds": 0 })
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
