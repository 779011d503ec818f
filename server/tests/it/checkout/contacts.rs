//! Customers beyond the cookie: the address given at checkout, kept with the booking, and the
//! booking found again with its reference and that address on another device — for the REST
//! API and the server functions, with what bad input and guessing get.

use super::*;

on_both_backends!(
    checkout_keeps_the_address_and_another_device_finds_the_booking_with_it,
    bad_addresses_and_references_are_refused_and_change_nothing,
);

/// Checks out `hold` with `body` (JSON text) under the Idempotency-Key `key`.
async fn checkout_with(
    shop: &Shop,
    client: &reqwest::Client,
    hold: &str,
    key: &str,
    body: &str,
) -> (StatusCode, Value) {
    let r = client
        .post(shop.app.url(&format!("/holds/{hold}/checkout")))
        .header("Idempotency-Key", key)
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    (r.status(), r.json().await.unwrap())
}

/// `POST /bookings/lookup` with `body`, from `address` (a forwarded client address).
async fn lookup(
    app: &TestApp,
    client: &reqwest::Client,
    address: &str,
    body: Value,
) -> (StatusCode, Value, Option<String>) {
    let r = client
        .post(app.url("/bookings/lookup"))
        .header("x-forwarded-for", address)
        .json(&body)
        .send()
        .await
        .unwrap();
    let retry = r
        .headers()
        .get("retry-after")
        .map(|v| v.to_str().unwrap().to_string());
    (r.status(), r.json().await.unwrap(), retry)
}

const TRUST_LOCAL: (&str, &str) = ("TRUSTED_PROXIES", "127.0.0.1/32");

async fn checkout_keeps_the_address_and_another_device_finds_the_booking_with_it(backend: Backend) {
    let shop = shop_with(backend, "600", &[TRUST_LOCAL]).await;
    let (laptop, phone) = (shop.app.customer(), shop.app.customer());
    let hold = shop.hold(&laptop, &["B3", "B4"]).await;
    let hold = hold["holdId"].as_str().unwrap();
    let body = r#"{"email": "  Kim.Min@Example.COM ", "language": "ko"}"#;
    let (status, paid) = checkout_with(&shop, &laptop, hold, "k1", body).await;
    assert_eq!(status, StatusCode::CREATED, "{paid}");
    // The same key with another address is another request.
    let (status, reused) = checkout_with(
        &shop,
        &laptop,
        hold,
        "k1",
        r#"{"email": "lee@example.com"}"#,
    )
    .await;
    assert_eq!(
        (status, reused["code"].as_str()),
        (
            StatusCode::UNPROCESSABLE_ENTITY,
            Some("IDEMPOTENCY_KEY_REUSED")
        )
    );
    shop.press(&paid, "pay").await;
    let id = paid["bookingId"].as_str().unwrap();
    assert_eq!(shop.booking_settled(id).await, "CONFIRMED");
    let uuid = uuid::Uuid::parse_str(id).unwrap();
    assert_eq!(
        shop.text("select email from booking where id = $1", uuid)
            .await
            .as_deref(),
        Some("kim.min@example.com"),
        "stored trimmed and lower-cased"
    );
    assert_eq!(
        shop.text("select language from booking where id = $1", uuid)
            .await
            .as_deref(),
        Some("ko")
    );
    // Never in an event: the outbox carries no address.
    let events: Vec<String> = on_db!(shop.db, |pool| sqlx::query_scalar(
        "select cast(payload as text) from outbox where aggregate_id = $1"
    )
    .bind(uuid)
    .fetch_all(&pool)
    .await
    .unwrap());
    assert!(!events.is_empty());
    assert!(
        events
            .iter()
            .all(|e| !e.to_lowercase().contains("example.com")),
        "{events:?}"
    );

    let view: Value = get_json_as(&laptop, shop.app.url(&format!("/bookings/{id}"))).await;
    let reference = id.replace('-', "")[..8].to_ascii_uppercase();
    assert_eq!(view["reference"], reference.as_str());
    assert_eq!(view["email"], "k***@example.com", "masked");
    // Paid: checking out again changes the address no more.
    let (status, _) = checkout_with(
        &shop,
        &laptop,
        hold,
        "k3",
        r#"{"email": "lee@example.com"}"#,
    )
    .await;
    assert!(status.is_client_error(), "{status}");
    assert_eq!(
        shop.text("select email from booking where id = $1", uuid)
            .await
            .as_deref(),
        Some("kim.min@example.com")
    );
    // Whoever holds a ticket learns the booking's reference (it is printed on it), never its
    // address.
    let code = eventually(WAIT, || shop.ticket_code(id), Option::is_some)
        .await
        .unwrap();
    let scanned: Value = get_json_as(&phone, shop.app.url(&format!("/tickets/{code}"))).await;
    assert_eq!(scanned["bookingId"], id, "{scanned}");
    assert_eq!(scanned["email"], Value::Null, "{scanned}");
    assert_eq!(scanned["reference"], reference.as_str());

    // The phone is another customer: not its booking yet.
    let r = phone
        .get(shop.app.url(&format!("/bookings/{id}")))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    // A wrong address and an unknown reference answer alike.
    let (status, wrong, _) = lookup(
        &shop.app,
        &phone,
        "198.51.100.1",
        json!({"reference": reference, "email": "kim@example.com"}),
    )
    .await;
    let other = if reference == "FFFFFFFF" {
        "00000000"
    } else {
        "FFFFFFFF"
    };
    let (status2, unknown, _) = lookup(
        &shop.app,
        &phone,
        "198.51.100.1",
        json!({"reference": other, "email": "kim.min@example.com"}),
    )
    .await;
    assert_eq!(
        (status, status2),
        (StatusCode::NOT_FOUND, StatusCode::NOT_FOUND)
    );
    assert_eq!(wrong, unknown);
    assert_eq!(wrong["code"], "BOOKING_NOT_FOUND");
    let r = phone
        .get(shop.app.url(&format!("/bookings/{id}")))
        .send()
        .await
        .unwrap();
    assert_eq!(
        r.status(),
        StatusCode::FORBIDDEN,
        "a failed lookup grants nothing"
    );

    // Typed as people type it: lower case, a dash, the address in capitals.
    let typed = format!("{}-{}", &reference[..4], &reference[4..]).to_lowercase();
    let (status, found, _) = lookup(
        &shop.app,
        &phone,
        "198.51.100.1",
        json!({"reference": typed, "email": "KIM.MIN@example.com"}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{found}");
    assert_eq!(found["bookingId"], id);
    assert_eq!(found["status"], "CONFIRMED");
    assert_eq!(found["seats"], json!(["B3", "B4"]));
    // From now on the phone sees it as its own, ticket included; the laptop keeps it.
    let view: Value = get_json_as(&phone, shop.app.url(&format!("/bookings/{id}"))).await;
    assert_eq!(view["bookingId"], id);
    let list: Value = get_json_as(&phone, shop.app.url("/bookings")).await;
    assert_eq!(list.as_array().unwrap().len(), 1);
    assert_eq!(list[0]["bookingId"], id);
    let ticket = phone
        .post(shop.app.url("/api/get_ticket"))
        .json(&json!({ "booking_id": id }))
        .send()
        .await
        .unwrap();
    assert_eq!(ticket.status(), StatusCode::OK);
    let r = laptop
        .get(shop.app.url(&format!("/bookings/{id}")))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);

    // The server function answers the same; the page's checkout needs an address.
    let r = shop
        .app
        .customer()
        .post(shop.app.url("/api/lookup_booking"))
        .json(&json!({ "reference": reference, "email": "kim.min@example.com" }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let second = shop.hold(&laptop, &["B6"]).await;
    let second = second["holdId"].as_str().unwrap();
    for (email, kind) in [("", "Invalid"), ("not an address", "Invalid")] {
        let r = laptop
            .post(shop.app.url("/api/checkout_hold"))
            .json(&json!({ "hold_id": second, "email": email, "language": "en" }))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::BAD_REQUEST);
        let body: Value = r.json().await.unwrap();
        assert_eq!(body["kind"], kind, "{body}");
    }
    assert_eq!(shop.stored(second).await, (0, 0), "nothing kept for them");
    let r = laptop
        .post(shop.app.url("/api/checkout_hold"))
        .json(&json!({ "hold_id": second, "email": "lee@example.com", "language": "en" }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let answer: Value = r.json().await.unwrap();
    let booking = uuid::Uuid::parse_str(answer["bookingId"].as_str().unwrap()).unwrap();
    assert_eq!(
        shop.text("select email from booking where id = $1", booking)
            .await
            .as_deref(),
        Some("lee@example.com")
    );
    assert_eq!(
        shop.text("select language from booking where id = $1", booking)
            .await
            .as_deref(),
        Some("en")
    );
    shop.db.drop_database().await;
}

async fn bad_addresses_and_references_are_refused_and_change_nothing(backend: Backend) {
    let shop = shop_with(
        backend,
        "600",
        &[
            TRUST_LOCAL,
            ("LOOKUP_RATE_PER_REFERENCE", "3"),
            ("LOOKUP_RATE_PER_ADDRESS", "5"),
        ],
    )
    .await;
    let alice = shop.app.customer();
    let hold = shop.hold(&alice, &["C1"]).await;
    let hold = hold["holdId"].as_str().unwrap();
    for (n, body) in [
        r#"{"email": "kim"}"#,
        r#"{"email": "kim@example.com\r\nBcc: all@example.com"}"#,
        r#"{"email": 42}"#,
        r#"{"language": "fr"}"#,
        r#"{"ticketTypes": {"CHILD": 1}}"#,
        r#"{"emial": "kim@example.com"}"#,
        "[]",
        "{",
    ]
    .into_iter()
    .enumerate()
    {
        let (status, answer) = checkout_with(&shop, &alice, hold, &format!("bad-{n}"), body).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}: {answer}");
        assert!(answer["error"].is_string(), "{answer}");
        assert!(
            !answer["error"]
                .as_str()
                .unwrap()
                .contains("all@example.com"),
            "the address is not echoed: {answer}"
        );
    }
    assert_eq!(shop.stored(hold).await, (0, 0), "nothing kept for them");
    // No body at all: as before addresses were taken.
    let (status, _, _) = shop.checkout(&alice, hold, Some("plain")).await;
    assert_eq!(status, StatusCode::CREATED);

    let phone = shop.app.customer();
    for body in [
        json!({}),
        json!({"reference": "21D6B008"}),
        json!({"reference": "21D6B008", "email": "nope"}),
        json!({"reference": "21D6", "email": "kim@example.com"}),
        json!({"reference": "ZZZZZZZZ", "email": "kim@example.com"}),
        json!({"reference": "21D6B008", "email": "kim@example.com", "extra": 1}),
        json!([]),
        json!(["21D6B008", "kim@example.com"]),
    ] {
        let (status, answer, _) = lookup(&shop.app, &phone, "198.51.100.2", body.clone()).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}: {answer}");
        assert!(answer["error"].is_string());
    }
    // Guessing: three tries per reference a minute, from anywhere; five per address.
    let mut statuses = Vec::new();
    for n in 0..4 {
        let from = format!("198.51.100.{}", 10 + n);
        let (status, _, retry) = lookup(
            &shop.app,
            &phone,
            &from,
            json!({"reference": "21D6B008", "email": format!("guess{n}@example.com")}),
        )
        .await;
        statuses.push(status.as_u16());
        if status == StatusCode::TOO_MANY_REQUESTS {
            assert!(retry.is_some_and(|s| s.parse::<u64>().unwrap() >= 1));
        }
    }
    assert_eq!(statuses, [404, 404, 404, 429], "per reference");
    let mut statuses = Vec::new();
    for n in 0..6 {
        let (status, _, _) = lookup(
            &shop.app,
            &phone,
            "203.0.113.9",
            json!({"reference": format!("0000000{n}"), "email": "kim@example.com"}),
        )
        .await;
        statuses.push(status.as_u16());
    }
    assert_eq!(statuses, [404, 404, 404, 404, 404, 429], "per address");
    shop.db.drop_database().await;
}
