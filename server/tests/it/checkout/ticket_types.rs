//! Ticket types (adult, youth, senior, disabled) on both stores: the server prices each seat at
//! its type, the booking, its event, the sales report and the door say which type each seat is;
//! counts that do not add up, types not sold and unknown codes are refused and change nothing; a
//! showtime sells the types its operator chose, at its own prices; a made booking keeps its prices.

use super::*;
use server::staff::StaffRole;

on_both_backends!(
    seats_are_sold_at_their_types_and_the_booking_its_event_the_report_and_the_door_say_so,
    a_showtime_sells_the_types_chosen_for_it_and_a_booking_keeps_its_prices,
    a_clerk_sells_a_senior_ticket_and_gives_back_what_each_seat_was_sold_for,
);

/// `POST /holds/{hold}/checkout` with `body` under a fresh idempotency key.
async fn checkout_with(
    shop: &Shop,
    client: &reqwest::Client,
    hold: &Value,
    body: Value,
) -> (StatusCode, Value) {
    let hold = hold["holdId"].as_str().unwrap();
    let r = client
        .post(shop.app.url(&format!("/holds/{hold}/checkout")))
        .header("Idempotency-Key", uuid::Uuid::new_v4().to_string())
        .json(&body)
        .send()
        .await
        .unwrap();
    (r.status(), r.json().await.unwrap_or(Value::Null))
}

/// The price of `code` at `ticket_type` on the seat map (`None`: the type is not sold there).
fn price_on(map: &Value, code: &str, ticket_type: &str) -> Option<i64> {
    let category = seat(map, code)["category"].clone();
    let category = map["categories"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["code"] == category)
        .unwrap();
    match ticket_type {
        "ADULT" => category["price"].as_i64(),
        other => category["ticketPrices"][other].as_i64(),
    }
}

async fn seats_are_sold_at_their_types_and_the_booking_its_event_the_report_and_the_door_say_so(
    backend: Backend,
) {
    let shop = shop(backend, "600").await;
    let alice = shop.app.customer();
    let map: Value = get_json(shop.app.url(&format!("/showtimes/{}/seats", shop.showtime))).await;
    let adult = price_on(&map, "B5", "ADULT").unwrap();
    let youth = price_on(&map, "B6", "YOUTH").expect("the demo halls sell youth tickets");
    assert!(youth < price_on(&map, "B6", "ADULT").unwrap(), "{map}");
    let hold = shop.hold(&alice, &["B6", "B5"]).await;
    let hold_id = hold["holdId"].as_str().unwrap().to_string();

    // Refused, and nothing is stored: counts that do not add up, an unknown type, a negative
    // count, a type that is not a map.
    for (body, status, key) in [
        (
            json!({ "ticketTypes": { "YOUTH": 3 } }),
            StatusCode::UNPROCESSABLE_ENTITY,
            Some("add up to 3 tickets, but 2 seats are held"),
        ),
        (
            json!({ "ticketTypes": { "ADULT": 1 } }),
            StatusCode::UNPROCESSABLE_ENTITY,
            Some("add up to 1 tickets, but 2 seats are held"),
        ),
        (
            json!({ "ticketTypes": { "CHILD": 2 } }),
            StatusCode::BAD_REQUEST,
            None,
        ),
        (
            json!({ "ticketTypes": { "ADULT": 3, "YOUTH": -1 } }),
            StatusCode::BAD_REQUEST,
            None,
        ),
        (
            json!({ "ticketTypes": ["YOUTH"] }),
            StatusCode::BAD_REQUEST,
            None,
        ),
    ] {
        let (got, refused) = checkout_with(&shop, &alice, &hold, body.clone()).await;
        assert_eq!(got, status, "{body} → {refused}");
        if let Some(said) = key {
            assert_eq!(refused["code"], "TICKET_TYPES", "{refused}");
            assert!(
                refused["error"].as_str().unwrap().contains(said),
                "{refused}"
            );
        } else {
            assert!(
                refused["error"].as_str().unwrap().contains("ticketTypes"),
                "{refused}"
            );
        }
        assert_eq!(shop.stored(&hold_id).await, (0, 0), "{body}");
    }

    // One adult and one youth: adults first, in reading order (B5 adult, B6 youth).
    let types = json!({ "email": "first@example.com", "language": "ko",
                        "ticketTypes": { "ADULT": 1, "YOUTH": 1 } });
    let (status, checkout) = checkout_with(&shop, &alice, &hold, types.clone()).await;
    assert_eq!(status, StatusCode::CREATED, "{checkout}");
    assert_eq!(checkout["amount"], adult + youth, "{checkout}");
    // The types were chosen: other types for the same hold are refused, the same ones find the
    // same payment session.
    let changed = json!({ "email": "other@example.com", "ticketTypes": { "YOUTH": 2 } });
    let (status, refused) = checkout_with(&shop, &alice, &hold, changed).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    assert_eq!(refused["code"], "TICKET_TYPES", "{refused}");
    assert!(
        refused["error"].as_str().unwrap().contains("were chosen"),
        "{refused}"
    );
    let (status, again) = checkout_with(&shop, &alice, &hold, types).await;
    assert_eq!(status, StatusCode::CREATED, "{again}");
    assert_eq!(again["bookingId"], checkout["bookingId"]);
    assert_eq!(again["paymentUrl"], checkout["paymentUrl"]);
    // A repeat that names no types keeps the first checkout's.
    let (status, again) = checkout_with(&shop, &alice, &hold, json!({})).await;
    assert_eq!(status, StatusCode::CREATED, "{again}");
    assert_eq!(again["amount"], adult + youth, "{again}");

    shop.press(&checkout, "pay").await;
    let id = checkout["bookingId"].as_str().unwrap().to_string();
    assert_eq!(shop.booking_settled(&id).await, "CONFIRMED");
    let view = shop.ticket_issued(&alice, &id).await;
    assert_eq!(view["amount"], adult + youth);
    // The refused checkout kept nothing of its own, its address neither.
    assert_eq!(view["email"], "f***@example.com", "{view}");
    assert_eq!(
        view["tickets"],
        json!([
            { "seat": "B5", "type": "ADULT", "price": adult },
            { "seat": "B6", "type": "YOUTH", "price": youth },
        ]),
        "{view}"
    );
    // The event carries each seat's type and price.
    let booking = uuid::Uuid::parse_str(&id).unwrap();
    let payload = shop
        .text(
            "select cast(payload as text) from outbox
              where aggregate_id = $1 and event_type = 'BookingConfirmed'",
            booking,
        )
        .await
        .expect("a BookingConfirmed event");
    let event: Value = serde_json::from_str(&payload).unwrap();
    assert_eq!(event["tickets"], view["tickets"], "{event}");
    // The sales report counts the seats of each type, and so does its CSV.
    let row = shop.sales_row(|r| r["bookings"] == 1).await;
    assert_eq!(
        (
            &row["seats"],
            &row["adultSeats"],
            &row["youthSeats"],
            &row["seniorSeats"]
        ),
        (&json!(2), &json!(1), &json!(1), &json!(0)),
        "{row}"
    );
    let operator = operator(&shop.app).await;
    let csv = operator
        .get(shop.app.url("/reports/sales.csv"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(csv
        .lines()
        .next()
        .unwrap()
        .ends_with("adult_seats,youth_seats,senior_seats,disabled_seats"));
    let line = csv
        .lines()
        .find(|l| l.contains(&format!(",online,{},", shop.showtime)))
        .unwrap_or_else(|| panic!("{csv}"));
    assert!(line.ends_with(",1,1,0,0"), "{line}");

    // At the door, the youth ticket's holder shows proof; the adult's does not.
    let door = crate::box_office::member(&shop.app, "ahn", StaffRole::Door, "3333").await;
    let code = shop.ticket_code(&id).await.unwrap();
    let scan = door
        .post(shop.app.url(&format!("/tickets/{code}/check-in")))
        .json(&json!({ "showtimeId": shop.showtime }))
        .send()
        .await
        .unwrap();
    assert_eq!(scan.status(), StatusCode::OK);
    let scan: Value = scan.json().await.unwrap();
    assert_eq!(scan["result"], "OK", "{scan}");
    assert_eq!(
        scan["checkId"],
        json!([{ "seat": "B6", "type": "YOUTH", "price": youth }]),
        "{scan}"
    );
}

async fn a_showtime_sells_the_types_chosen_for_it_and_a_booking_keeps_its_prices(backend: Backend) {
    let shop = shop(backend, "600").await;
    let operator = operator(&shop.app).await;
    let list: Value = get_json(shop.app.url("/showtimes")).await;
    let hall = list
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == shop.showtime)
        .unwrap()["hallId"]
        .clone();
    let at = (chrono::Utc::now() + chrono::Duration::days(3)).to_rfc3339();
    let schedule = |extra: Value| {
        let mut body = json!({ "hall_id": hall, "title": "Types", "starts_at": at });
        body.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        body
    };
    // Refused: a price for adult (that is the category's), a category the hall does not have, a
    // type the hall has no price for in some category, an unknown type.
    for (extra, key) in [
        (
            json!({ "ticket_prices": { "STANDARD": { "ADULT": 1 } } }),
            None,
        ),
        (
            json!({ "ticket_prices": { "GOLD": { "YOUTH": 1 } } }),
            Some("invalid.no_category_in_hall"),
        ),
        (
            json!({ "ticket_types": ["SENIOR"], "ticket_prices": { "STANDARD": { "SENIOR": -5 } } }),
            Some("invalid.showtime.ticket_price"),
        ),
        (json!({ "ticket_types": ["CHILD"] }), None),
    ] {
        let (status, refused) = operator.schedule_showtime(schedule(extra.clone())).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{extra} → {refused}");
        if let Some(key) = key {
            assert_eq!(refused["detail"][0]["key"], key, "{refused}");
        }
    }
    // Adult tickets only; and one selling seniors only, at its own standard price.
    let (status, adult_only) = operator
        .schedule_showtime(schedule(json!({ "ticket_types": [] })))
        .await;
    assert_eq!(status, StatusCode::OK, "{adult_only}");
    let (status, seniors) = operator
        .schedule_showtime(schedule(json!({
            "ticket_types": ["SENIOR"],
            "ticket_prices": { "STANDARD": { "SENIOR": 4000 } }
        })))
        .await;
    assert_eq!(status, StatusCode::OK, "{seniors}");
    let map_of = |id: &Value| shop.app.url(&format!("/showtimes/{id}/seats"));
    let plain: Value = get_json(map_of(&adult_only)).await;
    assert!(
        plain["categories"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c.get("ticketPrices").is_none()),
        "{plain}"
    );
    let senior_map: Value = get_json(map_of(&seniors)).await;
    for c in senior_map["categories"].as_array().unwrap() {
        let prices = c["ticketPrices"].as_object().unwrap();
        assert_eq!(prices.keys().collect::<Vec<_>>(), ["SENIOR"], "{c}");
        if c["code"] == "STANDARD" {
            assert_eq!(prices["SENIOR"], 4000);
        } else {
            assert_eq!(prices["SENIOR"], 8000, "the hall's default: {c}");
        }
    }

    // A youth ticket where only adults are sold: 422, nothing stored.
    let alice = shop.app.customer();
    let hold = hold_on(
        &shop.app,
        &alice,
        adult_only.as_i64().unwrap(),
        &["C1", "C2"],
    )
    .await;
    let youth = json!({ "ticketTypes": { "ADULT": 1, "YOUTH": 1 } });
    let (status, refused) = checkout_with(&shop, &alice, &hold, youth).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    assert_eq!(
        refused["error"], "YOUTH tickets are not sold for this showtime.",
        "{refused}"
    );
    let hold_id = hold["holdId"].as_str().unwrap();
    assert_eq!(shop.stored(hold_id).await, (0, 0));

    // Two seniors at 4,000 won; a price changed afterwards changes nothing of the booking.
    let bob = shop.app.customer();
    let showtime = seniors.as_i64().unwrap();
    let standard: Vec<&str> = ["A1", "A2", "B1", "B2", "C1", "C2"]
        .into_iter()
        .filter(|code| seat(&senior_map, code)["category"] == "STANDARD")
        .take(2)
        .collect();
    assert_eq!(standard.len(), 2, "{senior_map}");
    let hold = hold_on(&shop.app, &bob, showtime, &standard).await;
    let (status, checkout) = checkout_with(
        &shop,
        &bob,
        &hold,
        json!({ "ticketTypes": { "SENIOR": 2 } }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{checkout}");
    assert_eq!(checkout["amount"], 8000, "{checkout}");
    on_db!(shop.db, |pool| {
        sqlx::query("update showtime_ticket_price set price_krw = 100 where showtime_id = $1")
            .bind(showtime)
            .execute(&pool)
            .await
            .unwrap();
    });
    shop.press(&checkout, "pay").await;
    let id = checkout["bookingId"].as_str().unwrap().to_string();
    assert_eq!(shop.booking_settled(&id).await, "CONFIRMED");
    let view = get_json_as(&bob, shop.app.url(&format!("/bookings/{id}"))).await;
    assert_eq!(view["amount"], 8000, "{view}");
    let prices: Vec<(&str, i64)> = view["tickets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["type"].as_str().unwrap(), t["price"].as_i64().unwrap()))
        .collect();
    assert_eq!(prices, [("SENIOR", 4000), ("SENIOR", 4000)], "{view}");
}

async fn a_clerk_sells_a_senior_ticket_and_gives_back_what_each_seat_was_sold_for(
    backend: Backend,
) {
    let sink = SmtpSink::start().await;
    let url = sink.url();
    let vars = [("SMTP_URL", url.as_str()), ("MAIL_POLL_SECONDS", "0.2")];
    let shop = shop_with(backend, "600", &vars).await;
    let app = &shop.app;
    let kim = crate::box_office::member(app, "kim", StaffRole::Clerk, "1111").await;
    crate::box_office::member(app, "lee", StaffRole::Supervisor, "2222").await;
    let (status, shift) = kim
        .open_shift(json!({ "register": "R1", "float": 0 }))
        .await;
    assert_eq!(status, StatusCode::OK, "{shift}");
    let (status, hold) = kim
        .clerk_hold(json!({ "showtime_id": shop.showtime, "seats": ["E1", "E2"] }))
        .await;
    assert_eq!(status, StatusCode::OK, "{hold}");
    let map: Value = get_json(app.url(&format!("/showtimes/{}/seats", shop.showtime))).await;
    let (adult, senior) = (
        price_on(&map, "E1", "ADULT").unwrap(),
        price_on(&map, "E2", "SENIOR").unwrap(),
    );
    let sale = |types: Value, email: &str| {
        json!({ "sale": { "holdId": hold["holdId"], "tender": "cash", "tendered": 100_000,
                          "ticketTypes": types, "email": email, "language": "en" } })
    };
    // Three tickets for two seats, or an address that cannot be one: refused, nothing sold.
    let (status, refused) = kim.sell_at_counter(sale(json!({ "SENIOR": 3 }), "")).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    assert_eq!(refused["kind"], "TicketTypes", "{refused}");
    let both = json!({ "ADULT": 1, "SENIOR": 1 });
    let (status, refused) = kim.sell_at_counter(sale(both.clone(), "park@")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{refused}");
    let (status, sold) = kim.sell_at_counter(sale(both, " Park@Example.com ")).await;
    assert_eq!(status, StatusCode::OK, "{sold}");
    assert_eq!(sold["amount"], adult + senior, "{sold}");
    assert_eq!(sold["change"], 100_000 - adult - senior, "{sold}");
    assert_eq!(
        sold["tickets"],
        json!([
            { "seat": "E1", "type": "ADULT", "price": adult },
            { "seat": "E2", "type": "SENIOR", "price": senior },
        ])
    );
    // The customer asked for the ticket by e-mail: it arrives, with each seat's type.
    let received = sink.received(1, std::time::Duration::from_secs(30)).await;
    assert_eq!(received.len(), 1, "the counter sale's ticket was e-mailed");
    let mail = mailparse::parse_mail(&received[0]).unwrap();
    use mailparse::MailHeaderMap;
    assert_eq!(
        mail.headers.get_first_value("To").as_deref(),
        Some("park@example.com")
    );
    let text = super::mail::text_of(&mail);
    assert!(
        text.contains("E1 (Adult), E2 (Senior), ID checked at the door"),
        "{text}"
    );

    // The senior's seat exchanged for another of its category, then given back: the senior
    // price comes back, not the adult one; the seat kept is still the adult ticket.
    let booking = sold["bookingId"].clone();
    let approval = json!({ "supervisor": "lee", "pin": "2222" });
    let (status, other) = kim
        .clerk_hold(json!({ "showtime_id": shop.showtime, "seats": ["E5"] }))
        .await;
    assert_eq!(status, StatusCode::OK, "{other}");
    let (status, exchanged) = kim
        .exchange_at_counter(
            json!({ "exchange": { "booking": booking, "seats": ["E2"], "holdId": other["holdId"],
                              "approval": approval } }),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{exchanged}");
    let (status, refunded) = kim
        .refund_at_counter(
            json!({ "refund": { "booking": booking, "seats": ["E5"], "approval": approval } }),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{refunded}");
    assert_eq!(refunded["amount"], senior, "{refunded}");
    let (status, printed) = kim
        .print_ticket(json!({ "booking": booking, "approval": null }))
        .await;
    assert_eq!(status, StatusCode::OK, "{printed}");
    let seats = printed["seats"].as_array().unwrap();
    assert_eq!(seats.len(), 1, "{printed}");
    assert_eq!(
        (
            &seats[0]["code"],
            &seats[0]["ticketType"],
            &seats[0]["price"]
        ),
        (&json!("E1"), &json!("ADULT"), &json!(adult)),
        "{printed}"
    );

    // A complimentary sale: its tickets say their types, at nothing.
    let (status, hold) = kim
        .clerk_hold(json!({ "showtime_id": shop.showtime, "seats": ["E9", "E10"] }))
        .await;
    assert_eq!(status, StatusCode::OK, "{hold}");
    let (status, comp) = kim
        .sell_at_counter(
            json!({ "sale": { "holdId": hold["holdId"], "tender": "comp", "approval": approval,
                          "ticketTypes": { "ADULT": 1, "SENIOR": 1 } } }),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{comp}");
    assert_eq!(comp["amount"], 0);
    assert_eq!(
        comp["tickets"],
        json!([
            { "seat": "E9", "type": "ADULT", "price": 0 },
            { "seat": "E10", "type": "SENIOR", "price": 0 },
        ])
    );
}
