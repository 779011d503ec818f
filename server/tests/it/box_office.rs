//! The box office and the door over HTTP, on both stores: a clerk's shift, their pick as a hold
//! the web sees, the sale's tenders, approvals a clerk cannot give, refunds putting seats back,
//! prints and reprints, closing the shift, and check-in exactly once under concurrent scans.

use crate::support::*;
use reqwest::StatusCode;
use serde_json::{json, Value};
use server::staff::{hash_secret, StaffName, StaffRole};
use server::store::NewStaff;
use std::time::Duration;

on_both_backends!(
    the_kiosk_offers_approvers_and_needs_one_open_shift,
    a_clerk_sells_refunds_prints_and_closes_a_shift,
    the_console_finds_a_sale_by_its_number_a_seat_or_an_address,
    twenty_scans_of_one_ticket_at_once_check_it_in_once,
    some_seats_are_refunded_and_others_exchanged_keeping_the_ticket,
    a_refund_and_a_scan_of_one_ticket_at_once_never_both_succeed,
    a_cancelled_showtime_owes_its_counter_sales_back_at_the_counter,
);

const PASSWORD: &str = "a staff password of some length";

/// Adds a staff member with a PIN and signs them in.
pub(crate) async fn member(app: &TestApp, name: &str, role: StaffRole, pin: &str) -> Session {
    app.engine
        .store()
        .add_staff(&NewStaff {
            name: StaffName::parse(name).unwrap(),
            role,
            password_hash: hash_secret(PASSWORD),
        })
        .await
        .unwrap()
        .expect("a new name");
    let client = signed_in(app, name, PASSWORD).await;
    let (status, body) = client
        .staff_set_pin(json!({ "password": PASSWORD, "pin": pin }))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    client
}

/// The statuses of `codes` on the public seat map.
async fn statuses(app: &TestApp, showtime: i64, codes: &[String]) -> Vec<String> {
    let map: Value = get_json(app.url(&format!("/showtimes/{showtime}/seats"))).await;
    codes
        .iter()
        .map(|c| seat(&map, c)["status"].as_str().unwrap().to_string())
        .collect()
}

fn seats_of(hold: &Value) -> Vec<String> {
    hold["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

/// The clerk holds the best `count` seats and sells them for cash (exact amount): the sale.
async fn cash_sale(clerk: &Session, showtime: i64, count: u32) -> Value {
    let (status, hold) = clerk
        .clerk_hold(json!({ "showtime_id": showtime, "best": { "count": count } }))
        .await;
    assert_eq!(status, StatusCode::OK, "{hold}");
    let (status, sale) = clerk.sell_at_counter(json!({ "sale": { "holdId": hold["holdId"], "tender": "cash", "tendered": 1_000_000 } }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{sale}");
    sale
}

async fn check_in(
    client: &reqwest::Client,
    app: &TestApp,
    code: &str,
    body: Value,
) -> (StatusCode, Value) {
    let r = client
        .post(app.url(&format!("/tickets/{code}/check-in")))
        .json(&body)
        .send()
        .await
        .unwrap();
    (r.status(), r.json().await.unwrap_or(Value::Null))
}

async fn a_clerk_sells_refunds_prints_and_closes_a_shift(backend: Backend) {
    let db = TestDb::new(backend).await;
    let app = TestApp::spawn(&db, "600").await;
    let showtime = first_showtime(&app.base).await;
    let kim = member(&app, "kim", StaffRole::Clerk, "1111").await;
    member(&app, "lee", StaffRole::Supervisor, "2222").await;
    let door = member(&app, "ahn", StaffRole::Door, "3333").await;
    let web = app.customer();

    let best = json!({ "showtime_id": showtime, "best": { "count": 3 } });
    let open = json!({ "register": "R1", "float": 50_000 });
    let (status, shift) = kim.open_shift(open).await;
    assert_eq!(status, StatusCode::OK, "{shift}");

    // The clerk's pick is a hold the web sees and cannot take.
    let (status, hold) = kim.clerk_hold(best).await;
    assert_eq!(status, StatusCode::OK, "{hold}");
    let picked = seats_of(&hold);
    assert_eq!(picked.len(), 3);
    assert_eq!(
        statuses(&app, showtime, &picked).await,
        ["HELD", "HELD", "HELD"]
    );
    let r = web
        .post(app.url(&format!("/showtimes/{showtime}/holds")))
        .json(&json!({ "seats": [picked[0]] }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CONFLICT);
    // The clerk's hold outlasts a customer's 10 minutes.
    let expires: chrono::DateTime<chrono::Utc> =
        hold["expiresAt"].as_str().unwrap().parse().unwrap();
    assert!(
        expires > chrono::Utc::now() + chrono::Duration::minutes(20),
        "{hold}"
    );

    // Cash: less than the total is refused and changes nothing; the change is given.
    let sale = |tender: Value| json!({ "sale": tender });
    let hold_id = hold["holdId"].clone();
    let (status, body) = kim
        .sell_at_counter(sale(
            json!({ "holdId": hold_id, "tender": "cash", "tendered": 100 }),
        ))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(
        statuses(&app, showtime, &picked).await,
        ["HELD", "HELD", "HELD"]
    );
    let (status, sold) = kim
        .sell_at_counter(sale(
            json!({ "holdId": hold_id, "tender": "cash", "tendered": 100_000 }),
        ))
        .await;
    assert_eq!(status, StatusCode::OK, "{sold}");
    let total = sold["amount"].as_i64().unwrap();
    assert!(total > 0);
    assert_eq!(sold["change"].as_i64(), Some(100_000 - total));
    // The receipt's when, who and where: the database's clock, the shift's clerk and register.
    assert_eq!(
        (sold["clerk"].as_str(), sold["register"].as_str()),
        (Some("kim"), Some("R1")),
        "{sold}"
    );
    let sold_at: chrono::DateTime<chrono::Utc> = sold["soldAt"].as_str().unwrap().parse().unwrap();
    assert!(
        (chrono::Utc::now() - sold_at).num_seconds().abs() < 60,
        "{sold}"
    );

    assert_eq!(
        statuses(&app, showtime, &picked).await,
        ["BOOKED", "BOOKED", "BOOKED"]
    );
    let (status, body) = kim
        .sell_at_counter(sale(
            json!({ "holdId": hold_id, "tender": "cash", "tendered": 100_000 }),
        ))
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "sold once: {body}");

    // A card sale needs the terminal's reference.
    let (_, card_hold) = kim
        .clerk_hold(json!({ "showtime_id": showtime, "best": { "count": 2 } }))
        .await;
    let (status, body) = kim
        .sell_at_counter(sale(
            json!({ "holdId": card_hold["holdId"], "tender": "card" }),
        ))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let (status, card) = kim
        .sell_at_counter(sale(
            json!({ "holdId": card_hold["holdId"], "tender": "card", "cardReference": "T-0042" }),
        ))
        .await;
    assert_eq!(status, StatusCode::OK, "{card}");

    // A clerk cannot approve a comp, not even with their own PIN; a supervisor's PIN can.
    let (_, comp_hold) = kim
        .clerk_hold(json!({ "showtime_id": showtime, "best": { "count": 2 } }))
        .await;
    let comp = |approval: Value| {
        sale(json!({ "holdId": comp_hold["holdId"], "tender": "comp", "approval": approval }))
    };
    let (status, body) = kim
        .sell_at_counter(sale(
            json!({ "holdId": comp_hold["holdId"], "tender": "comp" }),
        ))
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    let (status, body) = kim
        .sell_at_counter(comp(json!({ "supervisor": "kim", "pin": "1111" })))
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    let (status, body) = kim
        .sell_at_counter(comp(json!({ "supervisor": "lee", "pin": "9999" })))
        .await;
    assert_eq!(
        (status, body["kind"].as_str()),
        (StatusCode::FORBIDDEN, Some("ApprovalRefused")),
        "{body}"
    );
    let (status, comped) = kim
        .sell_at_counter(comp(json!({ "supervisor": "lee", "pin": "2222" })))
        .await;
    assert_eq!(status, StatusCode::OK, "{comped}");
    assert_eq!(comped["amount"], 0);

    // Print, then a reprint only with a supervisor's approval, marked.
    let booking = sold["bookingId"].as_str().unwrap().to_string();
    let print = |approval: Value| json!({ "booking": booking, "approval": approval });
    // Two prints at the same moment: one is the first, the other a reprint (refused unapproved).
    let (a, b) = tokio::join!(
        kim.print_ticket(print(Value::Null)),
        kim.print_ticket(print(Value::Null))
    );
    let mut statuses_seen = [a.0, b.0];
    statuses_seen.sort();
    assert_eq!(
        statuses_seen,
        [StatusCode::OK, StatusCode::FORBIDDEN],
        "{} {}",
        a.1,
        b.1
    );
    let ticket = if a.0 == StatusCode::OK { a.1 } else { b.1 };
    assert_eq!(ticket["reprint"], 0);
    assert_eq!(ticket["seats"].as_array().unwrap().len(), 3);
    assert!(ticket["qrSvg"].as_str().unwrap().starts_with("<?xml"));
    let (status, _) = kim.print_ticket(print(Value::Null)).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, again) = kim
        .print_ticket(print(json!({ "supervisor": "lee", "pin": "2222" })))
        .await;
    assert_eq!(
        (status, again["reprint"].as_i64()),
        (StatusCode::OK, Some(1)),
        "{again}"
    );
    let code = ticket["code"].as_str().unwrap().to_string();

    // Refund: a clerk cannot approve it; with the supervisor's PIN the seats are back on sale.
    let refund = |approval: Value| json!({ "refund": { "booking": code, "approval": approval } });
    let (status, body) = kim.refund_at_counter(refund(Value::Null)).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(
        statuses(&app, showtime, &picked).await,
        ["BOOKED", "BOOKED", "BOOKED"]
    );
    let (status, refunded) = kim
        .refund_at_counter(refund(json!({ "supervisor": "lee", "pin": "2222" })))
        .await;
    assert_eq!(status, StatusCode::OK, "{refunded}");
    assert_eq!(
        (refunded["method"].as_str(), refunded["amount"].as_i64()),
        (Some("cash"), Some(total))
    );
    assert_eq!(
        statuses(&app, showtime, &picked).await,
        ["AVAILABLE", "AVAILABLE", "AVAILABLE"]
    );
    let (status, body) = kim
        .refund_at_counter(refund(json!({ "supervisor": "lee", "pin": "2222" })))
        .await;
    assert_eq!(
        (status, body["kind"].as_str()),
        (StatusCode::CONFLICT, Some("NotRefundable")),
        "once: {body}"
    );

    // The door: a refunded ticket scans REFUNDED; a sold one OK once, then ALREADY_CHECKED_IN
    // with the first scan's gate; another showtime's door says WRONG_SHOWTIME; garbage NOT_FOUND.
    let (status, scan) = check_in(
        &door,
        &app,
        &code,
        json!({ "gate": "A", "showtimeId": showtime }),
    )
    .await;
    assert_eq!(
        (status, scan["result"].as_str()),
        (StatusCode::CONFLICT, Some("REFUNDED")),
        "{scan}"
    );
    let (_, card_ticket) = kim
        .print_ticket(json!({ "booking": card["bookingId"] }))
        .await;
    let card_code = card_ticket["code"].as_str().unwrap().to_string();
    let (status, scan) = check_in(
        &door,
        &app,
        &card_code,
        json!({ "gate": "A", "showtimeId": showtime + 1 }),
    )
    .await;
    assert_eq!(
        (status, scan["result"].as_str()),
        (StatusCode::CONFLICT, Some("WRONG_SHOWTIME")),
        "{scan}"
    );
    let (status, scan) = check_in(
        &door,
        &app,
        &card_code,
        json!({ "gate": "A", "showtimeId": showtime }),
    )
    .await;
    assert_eq!(
        (status, scan["result"].as_str()),
        (StatusCode::OK, Some("OK")),
        "{scan}"
    );
    assert_eq!(scan["seats"].as_array().unwrap().len(), 2);
    let (status, scan) = check_in(
        &door,
        &app,
        &card_code,
        json!({ "gate": "B", "showtimeId": showtime }),
    )
    .await;
    assert_eq!(
        (
            status,
            scan["result"].as_str(),
            scan["firstScanGate"].as_str()
        ),
        (StatusCode::CONFLICT, Some("ALREADY_CHECKED_IN"), Some("A")),
        "{scan}"
    );
    let (status, scan) = check_in(&door, &app, "SEATS2-t1-nothing-here", json!({})).await;
    assert_eq!(
        (status, scan["result"].as_str()),
        (StatusCode::NOT_FOUND, Some("NOT_FOUND")),
        "{scan}"
    );
    let (status, _) = check_in(&web, &app, &card_code, json!({})).await;
    assert_eq!(
        status,
        StatusCode::UNAUTHORIZED,
        "customers do not check tickets in"
    );
    // A checked-in ticket is not refunded.
    let (status, body) = kim.refund_at_counter(json!({ "refund": { "booking": card_code, "approval": { "supervisor": "lee", "pin": "2222" } } })).await;
    assert_eq!(
        (status, body["kind"].as_str()),
        (StatusCode::CONFLICT, Some("NotRefundable")),
        "{body}"
    );

    // Closing: expected cash = float + cash sales − cash refunds; the variance.
    let (status, closed) = kim
        .close_shift(json!({ "shift_id": null, "counted": 49_000 }))
        .await;
    assert_eq!(status, StatusCode::OK, "{closed}");
    let figures = &closed["figures"];
    assert_eq!(figures["cashSales"], 1);
    assert_eq!(figures["cashAmount"].as_i64(), Some(total));
    assert_eq!(figures["cashRefunded"].as_i64(), Some(total));
    assert_eq!(
        (
            figures["cardSales"].as_i64(),
            figures["compSales"].as_i64(),
            figures["compSeats"].as_i64()
        ),
        (Some(1), Some(1), Some(2))
    );
    assert!(closed["closedAt"].is_string(), "{closed}");
    assert_eq!(closed["counted"], 49_000);

    // Every money action's audit line (written with it) names its approver; prints too.
    let lines = db.store.staff_audit(200).await.unwrap();
    let details = |action: &str| -> Vec<String> {
        lines
            .iter()
            .filter(|l| l.action == action)
            .map(|l| l.detail.clone())
            .collect()
    };
    assert!(
        details("counter_sale")
            .iter()
            .any(|d| d.contains(" comp 0, approved by lee")),
        "{lines:?}"
    );
    assert!(!details("counter_refund").is_empty());
    assert!(
        details("counter_refund")
            .iter()
            .all(|d| d.contains("approved by lee: cash ")),
        "the method and amount decided: {lines:?}"
    );
    assert!(details("ticket_reprinted")
        .iter()
        .any(|d| d.ends_with("approved by lee")));
    assert_eq!(
        details("ticket_printed").len(),
        2,
        "the first prints of two bookings"
    );

    // A closed shift sells nothing more.
    let (status, body) = kim
        .clerk_hold(json!({ "showtime_id": showtime, "best": { "count": 1 } }))
        .await;
    assert_eq!(
        (status, body["kind"].as_str()),
        (StatusCode::CONFLICT, Some("NoOpenShift")),
        "{body}"
    );
    let (status, body) = kim
        .close_shift(json!({ "shift_id": closed["id"], "counted": 1 }))
        .await;
    assert_eq!(
        (status, body["kind"].as_str()),
        (StatusCode::CONFLICT, Some("ShiftClosed")),
        "{body}"
    );
}

/// The kiosk offers the members who may approve, says who is signed in, and sells nothing
/// without an open shift; a clerk has one open shift at a time.
async fn the_kiosk_offers_approvers_and_needs_one_open_shift(backend: Backend) {
    let db = TestDb::new(backend).await;
    let app = TestApp::spawn(&db, "600").await;
    let showtime = first_showtime(&app.base).await;
    let kim = member(&app, "kim", StaffRole::Clerk, "1111").await;
    member(&app, "lee", StaffRole::Supervisor, "2222").await;
    let door = member(&app, "ahn", StaffRole::Door, "3333").await;
    let web = app.customer();

    // The kiosk offers the members who may approve, by name: supervisors (and operators) with
    // a PIN — not the clerk, not the door; and to the box office only.
    let (status, names) = kim.approvers(json!({})).await;
    assert_eq!(status, StatusCode::OK, "{names}");
    let names: Vec<&str> = names
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(names.contains(&"lee"), "{names:?}");
    assert!(
        !names.contains(&"kim") && !names.contains(&"ahn"),
        "{names:?}"
    );
    let (status, _) = door.approvers(json!({})).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    // The staff pages' header: who is signed in, and `null` for nobody (not an error).
    let (status, me) = kim.staff_whoami(json!({})).await;
    assert_eq!(
        (status, me["name"].as_str()),
        (StatusCode::OK, Some("kim")),
        "{me}"
    );
    let (status, nobody) = web.staff_whoami(json!({})).await;
    assert_eq!((status, nobody), (StatusCode::OK, Value::Null));

    // No sale and no print without a shift; one open shift per clerk.
    let (status, body) = kim
        .print_ticket(json!({ "booking": uuid::Uuid::new_v4().to_string() }))
        .await;
    assert_eq!(
        (status, body["kind"].as_str()),
        (StatusCode::CONFLICT, Some("NoOpenShift")),
        "{body}"
    );
    let best = json!({ "showtime_id": showtime, "best": { "count": 3 } });
    let (status, body) = kim.clerk_hold(best.clone()).await;
    assert_eq!(
        (status, body["kind"].as_str()),
        (StatusCode::CONFLICT, Some("NoOpenShift")),
        "{body}"
    );
    let (status, body) = door
        .open_shift(json!({ "register": "R1", "float": 0 }))
        .await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "door staff sell nothing: {body}"
    );
    let open = json!({ "register": "R1", "float": 50_000 });
    let (status, shift) = kim.open_shift(open.clone()).await;
    assert_eq!(status, StatusCode::OK, "{shift}");
    let (status, body) = kim.open_shift(open).await;
    assert_eq!(
        (status, body["kind"].as_str()),
        (StatusCode::CONFLICT, Some("ShiftAlreadyOpen")),
        "{body}"
    );
}

/// The console's search of a counter sale: by its number, by one of its seats and by the
/// customer's e-mail address, with its events and when the relay passed them on; supervisors
/// only.
async fn the_console_finds_a_sale_by_its_number_a_seat_or_an_address(backend: Backend) {
    let db = TestDb::new(backend).await;
    let app = TestApp::spawn(&db, "600").await;
    let showtime = first_showtime(&app.base).await;
    let kim = member(&app, "kim", StaffRole::Clerk, "1111").await;
    let lee = member(&app, "lee", StaffRole::Supervisor, "2222").await;
    let open = json!({ "register": "R1", "float": 0 });
    let (status, shift) = kim.open_shift(open).await;
    assert_eq!(status, StatusCode::OK, "{shift}");
    let sold = cash_sale(&kim, showtime, 3).await;
    let picked = seats_of(&sold);

    // The console's search finds the sale by its number and by one of its seats, with its
    // events; a clerk may not search; what names nothing is a 404, what is no search a 400.
    let booking_id = sold["bookingId"].as_str().unwrap().to_string();
    let number = booking_id.replace('-', "")[..8].to_uppercase();
    for query in [number.clone(), format!("{showtime} {}", picked[1])] {
        let (status, found) = lee.find_booking(json!({ "query": query })).await;
        assert_eq!(status, StatusCode::OK, "{query}: {found}");
        assert_eq!(found["booking"]["bookingId"], json!(booking_id), "{query}");
        assert_eq!(found["number"], json!(number));
        assert_eq!(found["booking"]["seats"].as_array().unwrap().len(), 3);
        let events: Vec<&str> = found["events"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|e| e["eventType"].as_str())
            .collect();
        assert_eq!(events, ["BookingConfirmed"], "{found}");
    }
    // Once the relay has passed it on, the event says when.
    let published = eventually(
        Duration::from_secs(10),
        || lee.find_booking(json!({ "query": number })),
        |(_, found)| !found["events"][0]["publishedAt"].is_null(),
    )
    .await;
    assert!(
        !published.1["events"][0]["publishedAt"].is_null(),
        "{}",
        published.1
    );
    // By the customer's e-mail address, written as she might: her newest booking, and the
    // numbers of her others.
    let mut emailed = Vec::new();
    for _ in 0..2 {
        let (status, hold) = kim
            .clerk_hold(json!({ "showtime_id": showtime, "best": { "count": 1 } }))
            .await;
        assert_eq!(status, StatusCode::OK, "{hold}");
        let sale = json!({ "sale": { "holdId": hold["holdId"], "tender": "cash", "tendered": 1_000_000, "email": "Min.Ji@Example.com" } });
        let (status, sale) = kim.sell_at_counter(sale).await;
        assert_eq!(status, StatusCode::OK, "{sale}");
        emailed.push(sale["bookingId"].as_str().unwrap().to_string());
    }
    let (status, found) = lee
        .find_booking(json!({ "query": "  min.ji@EXAMPLE.com " }))
        .await;
    assert_eq!(status, StatusCode::OK, "{found}");
    assert_eq!(found["booking"]["bookingId"], json!(emailed[1]), "{found}");
    let older = emailed[0].replace('-', "")[..8].to_uppercase();
    assert_eq!(found["others"], json!([older]), "{found}");
    let (status, found) = lee.find_booking(json!({ "query": number })).await;
    assert_eq!(found["others"], json!([]), "{status} {found}");
    let (status, _) = kim.find_booking(json!({ "query": number })).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, none) = lee.find_booking(json!({ "query": "" })).await;
    assert_eq!((status, none), (StatusCode::OK, Value::Null));
    for (query, want) in [
        ("00000000".to_string(), StatusCode::NOT_FOUND),
        (format!("{showtime} Z99"), StatusCode::NOT_FOUND),
        (format!("{showtime} 7G"), StatusCode::BAD_REQUEST),
        ("not a booking".to_string(), StatusCode::NOT_FOUND),
        ("nobody@example.com".to_string(), StatusCode::NOT_FOUND),
        ("min.ji@".to_string(), StatusCode::BAD_REQUEST),
    ] {
        let (status, body) = lee.find_booking(json!({ "query": query })).await;
        assert_eq!(status, want, "{query}: {body}");
        assert!(body["kind"].is_string(), "{query}: {body}");
    }
    // Each look-up by address is in the audit log, found or not, without the address.
    let (_, audit) = operator(&app).await.audit_log(json!({})).await;
    let looked_up: Vec<&Value> = audit
        .as_array()
        .unwrap()
        .iter()
        .filter(|line| line["action"] == "address_searched")
        .collect();
    assert_eq!(looked_up.len(), 2, "{audit}");
    assert!(
        looked_up.iter().all(|line| line["staffName"] == "lee"),
        "{audit}"
    );
    assert!(
        looked_up
            .iter()
            .all(|line| !line.to_string().to_lowercase().contains("min.ji")),
        "{audit}"
    );
    assert!(
        looked_up
            .iter()
            .any(|line| line["facts"].to_string().contains(&emailed[1])),
        "{audit}"
    );
}

/// A supervisor closing a clerk's shift mid-sale: the clerk's pick goes back on sale and the sale
/// is refused with 409.
async fn a_sale_after_its_shift_was_closed_is_refused(app: &TestApp, showtime: i64) {
    let yoon = member(app, "yoon", StaffRole::Clerk, "4444").await;
    let park = member(app, "park", StaffRole::Supervisor, "5555").await;
    let (status, shift) = yoon
        .open_shift(json!({ "register": "R9", "float": 10_000 }))
        .await;
    assert_eq!(status, StatusCode::OK, "{shift}");
    let (status, hold) = yoon
        .clerk_hold(json!({ "showtime_id": showtime, "best": { "count": 2 } }))
        .await;
    assert_eq!(status, StatusCode::OK, "{hold}");
    let (status, body) = yoon
        .close_shift(json!({ "shift_id": 999_999, "counted": 0 }))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let (status, closed) = park
        .close_shift(json!({ "shift_id": shift["id"], "counted": 10_000 }))
        .await;
    assert_eq!(
        (status, closed["closedBy"].as_str()),
        (StatusCode::OK, Some("park")),
        "{closed}"
    );
    assert_eq!(
        statuses(app, showtime, &seats_of(&hold)).await,
        ["AVAILABLE", "AVAILABLE"]
    );
    let (status, body) = yoon.sell_at_counter(json!({ "sale": { "holdId": hold["holdId"], "tender": "cash", "tendered": 1_000_000 } }),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
}

async fn twenty_scans_of_one_ticket_at_once_check_it_in_once(backend: Backend) {
    let db = TestDb::new(backend).await;
    let app = TestApp::spawn(&db, "600").await;
    let showtime = first_showtime(&app.base).await;
    let clerk = member(&app, "kim", StaffRole::Clerk, "1111").await;
    let (status, _) = clerk
        .open_shift(json!({ "register": "R1", "float": 0 }))
        .await;
    assert_eq!(status, StatusCode::OK);
    let mut codes = Vec::new();
    for _ in 0..21 {
        let sale = cash_sale(&clerk, showtime, 1).await;
        let (_, ticket) = clerk
            .print_ticket(json!({ "booking": sale["bookingId"] }))
            .await;
        codes.push(ticket["code"].as_str().unwrap().to_string());
    }
    // Twenty doors (each its own session) scan one ticket at the same moment.
    let mut doors = Vec::new();
    for i in 0..20 {
        doors.push(member(&app, &format!("door{i}"), StaffRole::Door, "3333").await);
    }
    let scan_all = |codes: Vec<String>| {
        let doors = doors.clone();
        let app = &app;
        async move {
            let barrier = std::sync::Arc::new(tokio::sync::Barrier::new(doors.len()));
            let scans = doors
                .into_iter()
                .zip(codes)
                .enumerate()
                .map(|(i, (door, code))| {
                    let barrier = barrier.clone();
                    let url = app.url(&format!("/tickets/{code}/check-in"));
                    tokio::spawn(async move {
                        barrier.wait().await;
                        let r = door
                            .post(url)
                            .json(&json!({ "gate": format!("G{i}"), "showtimeId": showtime }))
                            .send()
                            .await
                            .unwrap();
                        r.json::<Value>().await.unwrap()["result"]
                            .as_str()
                            .unwrap()
                            .to_string()
                    })
                });
            let mut results = Vec::new();
            for scan in scans.collect::<Vec<_>>() {
                results.push(scan.await.unwrap());
            }
            results
        }
    };
    let one = codes[0].clone();
    let results = scan_all(vec![one; 20]).await;
    let ok = results.iter().filter(|r| *r == "OK").count();
    let already = results
        .iter()
        .filter(|r| *r == "ALREADY_CHECKED_IN")
        .count();
    assert_eq!((ok, already), (1, 19), "{results:?}");
    // Control: twenty different tickets scanned the same way are all let in — the scans do run
    // side by side, and a check-in that let a ticket in twice would show as a second OK above.
    let results = scan_all(codes[1..].to_vec()).await;
    assert_eq!(
        results.iter().filter(|r| *r == "OK").count(),
        20,
        "{results:?}"
    );
    a_sale_after_its_shift_was_closed_is_refused(&app, showtime).await;
}

/// The seat map's seats as `(code, category, status)`.
async fn seat_rows(app: &TestApp, showtime: i64) -> Vec<(String, String, String)> {
    let map: Value = get_json(app.url(&format!("/showtimes/{showtime}/seats"))).await;
    map["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let text = |k: &str| s[k].as_str().unwrap().to_string();
            (text("code"), text("category"), text("status"))
        })
        .collect()
}

async fn some_seats_are_refunded_and_others_exchanged_keeping_the_ticket(backend: Backend) {
    let db = TestDb::new(backend).await;
    let app = TestApp::spawn(&db, "600").await;
    let showtime = first_showtime(&app.base).await;
    let kim = member(&app, "kim", StaffRole::Clerk, "1111").await;
    let _lee = member(&app, "lee", StaffRole::Supervisor, "2222").await;
    let lee_ok = json!({ "supervisor": "lee", "pin": "2222" });
    let (status, _) = kim
        .open_shift(json!({ "register": "R1", "float": 0 }))
        .await;
    assert_eq!(status, StatusCode::OK);
    let sale = cash_sale(&kim, showtime, 4).await;
    let booking = sale["bookingId"].as_str().unwrap().to_string();
    let sold: Vec<String> = seats_of(&sale);
    // Each seat's own ticket, printed with the sale.
    let (status, printed) = kim.print_ticket(json!({ "booking": booking })).await;
    assert_eq!(status, StatusCode::OK, "{printed}");
    let ticket_of = |seat: &str| {
        printed["seats"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["code"] == seat)
            .map(|s| s["ticketCode"].as_str().unwrap().to_string())
            .unwrap()
    };
    let rows = seat_rows(&app, showtime).await;
    let category = |code: &str| rows.iter().find(|r| r.0 == code).unwrap().1.clone();
    let total = sale["amount"].as_i64().unwrap();

    // One seat back: its price, on sale again; the booking keeps the other three.
    let refund = |seats: Value| json!({ "refund": { "booking": booking, "seats": seats, "approval": lee_ok } });
    let (status, body) = kim.refund_at_counter(refund(json!(["Z99"]))).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let (status, one) = kim.refund_at_counter(refund(json!([sold[0]]))).await;
    assert_eq!(status, StatusCode::OK, "{one}");
    let price = one["amount"].as_i64().unwrap();
    assert!(price > 0 && price < total, "{one}");
    assert_eq!(
        statuses(&app, showtime, &sold).await,
        ["AVAILABLE", "BOOKED", "BOOKED", "BOOKED"]
    );
    let (status, body) = kim.refund_at_counter(refund(json!([sold[0]]))).await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "not the booking's any more: {body}"
    );

    // An exchange: a seat of the same category for one of the booking's; the ticket stays valid.
    let wanted = category(&sold[1]);
    let other = rows
        .iter()
        .find(|r| r.1 == wanted && r.2 == "AVAILABLE" && !sold.contains(&r.0))
        .unwrap()
        .0
        .clone();
    let (status, hold) = kim
        .clerk_hold(json!({ "showtime_id": showtime, "seats": [other] }))
        .await;
    assert_eq!(status, StatusCode::OK, "{hold}");
    let exchange = |seats: Value| json!({ "exchange": { "booking": booking, "seats": seats, "holdId": hold["holdId"], "approval": lee_ok } });
    // A clerk alone moves no customer's seats: as for a refund, a supervisor approves.
    let (status, body) = kim.exchange_at_counter(json!({ "exchange": { "booking": booking, "seats": [sold[1]], "holdId": hold["holdId"] } }),
    )
    .await;
    assert_eq!(
        (status, body["kind"].as_str()),
        (StatusCode::FORBIDDEN, Some("ApprovalRequired")),
        "{body}"
    );
    let (status, body) = kim
        .exchange_at_counter(exchange(json!([sold[1], sold[2]])))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "two for one: {body}");
    let (status, done) = kim.exchange_at_counter(exchange(json!([sold[1]]))).await;
    assert_eq!(status, StatusCode::OK, "{done}");
    assert_eq!(
        statuses(&app, showtime, &[sold[1].clone(), other.clone()]).await,
        ["AVAILABLE", "BOOKED"]
    );
    // Consumers and the topic learn of it, and the log names the approver.
    let id: uuid::Uuid = booking.parse().unwrap();
    assert_eq!(
        db.outbox_types(id).await,
        ["BookingConfirmed", "RefundIssued", "SeatsExchanged"]
    );
    let lines = db.store.staff_audit(50).await.unwrap();
    assert!(
        lines
            .iter()
            .any(|l| l.action == "counter_exchange" && l.detail.ends_with("approved by lee")),
        "{lines:?}"
    );
    let (status, body) = kim.exchange_at_counter(exchange(json!([sold[2]]))).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "the hold is used up: {body}");
    // Another category is not an exchange.
    let different = rows
        .iter()
        .find(|r| r.1 != wanted && r.2 == "AVAILABLE")
        .map(|r| r.0.clone());
    if let Some(different) = different {
        let (status, hold) = kim
            .clerk_hold(json!({ "showtime_id": showtime, "seats": [different] }))
            .await;
        assert_eq!(status, StatusCode::OK, "{hold}");
        let (status, body) = kim.exchange_at_counter(json!({ "exchange": { "booking": booking, "seats": [sold[2]], "holdId": hold["holdId"], "approval": lee_ok } })).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        kim.clerk_release(json!({})).await;
    }

    // The ticket admits to the seats the booking has now.
    let (_, ticket) = kim
        .print_ticket(json!({ "booking": booking, "approval": lee_ok }))
        .await;
    let code = ticket["code"].as_str().unwrap().to_string();
    let door = member(&app, "ahn", StaffRole::Door, "3333").await;
    // The seats' own tickets say what became of each: the refunded one and the exchanged one,
    // naming that seat (not the booking's others), at the door and to a scanner.
    for (seat, word) in [(&sold[0], "REFUNDED"), (&sold[1], "EXCHANGED")] {
        let own = ticket_of(seat);
        let (status, scan) = check_in(&door, &app, &own, json!({ "showtimeId": showtime })).await;
        assert_eq!(
            (status, scan["result"].as_str()),
            (StatusCode::CONFLICT, Some(word)),
            "{scan}"
        );
        assert_eq!(scan["scanned"], json!([seat]), "{scan}");
        let state: Value = get_json(app.url(&format!("/tickets/{own}"))).await;
        assert_eq!(state["state"].as_str(), Some(word), "{state}");
    }
    // A seat refunded, then taken again by an exchange and exchanged away, was exchanged: the
    // door says what became of it last.
    assert_eq!(category(&sold[0]), category(&sold[2]), "one category");
    for (from, to) in [(&sold[2], &sold[0]), (&sold[0], &sold[2])] {
        let (status, hold) = kim
            .clerk_hold(json!({ "showtime_id": showtime, "seats": [to] }))
            .await;
        assert_eq!(status, StatusCode::OK, "{hold}");
        let swap = json!({ "exchange": { "booking": booking, "seats": [from], "holdId": hold["holdId"], "approval": lee_ok } });
        let (status, done) = kim.exchange_at_counter(swap).await;
        assert_eq!(status, StatusCode::OK, "{done}");
    }
    let (status, scan) = check_in(
        &door,
        &app,
        &ticket_of(&sold[0]),
        json!({ "showtimeId": showtime }),
    )
    .await;
    assert_eq!(
        (status, scan["result"].as_str()),
        (StatusCode::CONFLICT, Some("EXCHANGED")),
        "{scan}"
    );
    let (status, scan) = check_in(&door, &app, &code, json!({ "showtimeId": showtime })).await;
    assert_eq!(status, StatusCode::OK, "{scan}");
    let mut admitted: Vec<String> = scan["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect();
    admitted.sort();
    let mut expected = vec![other.clone(), sold[2].clone(), sold[3].clone()];
    expected.sort();
    assert_eq!(admitted, expected);

    // The drawer: one cash sale, one cash refund of one seat.
    let (status, closed) = kim
        .close_shift(json!({ "shift_id": null, "counted": total - price }))
        .await;
    assert_eq!(status, StatusCode::OK, "{closed}");
    assert_eq!(closed["figures"]["cashRefunded"].as_i64(), Some(price));
    assert_eq!(closed["counted"].as_i64(), Some(total - price));
    let expected_cash = closed["figures"]["cashAmount"].as_i64().unwrap() - price;
    assert_eq!(expected_cash, total - price, "{closed}");
}

async fn a_refund_and_a_scan_of_one_ticket_at_once_never_both_succeed(backend: Backend) {
    let db = TestDb::new(backend).await;
    let app = TestApp::spawn(&db, "600").await;
    let showtime = first_showtime(&app.base).await;
    let kim = member(&app, "kim", StaffRole::Clerk, "1111").await;
    let lee = member(&app, "lee", StaffRole::Supervisor, "2222").await;
    let door = member(&app, "ahn", StaffRole::Door, "3333").await;
    for client in [&kim, &lee] {
        let (status, _) = client
            .open_shift(json!({ "register": format!("R{}", rand_suffix()), "float": 0 }))
            .await;
        assert_eq!(status, StatusCode::OK);
    }
    let mut codes = Vec::new();
    for _ in 0..12 {
        let sale = cash_sale(&kim, showtime, 1).await;
        let (_, ticket) = kim
            .print_ticket(json!({ "booking": sale["bookingId"] }))
            .await;
        codes.push(ticket["code"].as_str().unwrap().to_string());
    }
    // Control: alone, each succeeds — a scan lets the holder in, a refund gives the money back.
    let (status, _) = check_in(&door, &app, &codes[0], json!({ "showtimeId": showtime })).await;
    assert_eq!(status, StatusCode::OK);
    let (status, body) = lee
        .refund_at_counter(json!({ "refund": { "booking": codes[1] } }))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    // At the same moment, one of the two wins: never a holder let in and refunded.
    let mut scans_won = 0;
    for code in &codes[2..] {
        let scan = check_in(
            &door,
            &app,
            code,
            json!({ "gate": "A", "showtimeId": showtime }),
        );
        let refund = lee.refund_at_counter(json!({ "refund": { "booking": code } }));
        let ((scan_status, scan), (refund_status, refund)) = tokio::join!(scan, refund);
        let admitted = scan_status == StatusCode::OK;
        let refunded = refund_status == StatusCode::OK;
        assert!(
            admitted != refunded,
            "scan {scan_status} {scan}, refund {refund_status} {refund}"
        );
        scans_won += usize::from(admitted);
    }
    eprintln!("scans first: {scans_won} of {}", codes.len() - 2);
}

fn rand_suffix() -> u32 {
    rand::random::<u32>() % 100_000
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_hundred_parallel_pin_guesses_are_counted_before_they_are_checked() {
    let db = TestDb::new(Backend::Sqlite).await;
    let app = TestApp::spawn(&db, "600").await;
    let showtime = first_showtime(&app.base).await;
    let kim = member(&app, "kim", StaffRole::Clerk, "1111").await;
    let _lee = member(&app, "lee", StaffRole::Supervisor, "2222").await;
    let open = json!({ "register": "R1", "float": 0 });
    assert_eq!(kim.open_shift(open).await.0, StatusCode::OK);
    let sale = cash_sale(&kim, showtime, 1).await;
    let booking = sale["bookingId"].as_str().unwrap().to_string();
    let reprint = |pin: String| {
        let body = json!({ "booking": booking, "approval": { "supervisor": "lee", "pin": pin } });
        kim.print_ticket(body)
    };
    let (status, _) = kim.print_ticket(json!({ "booking": booking })).await;
    assert_eq!(status, StatusCode::OK, "the first print");

    // Act: a hundred wrong PINs at once.
    let answers =
        futures_util::future::join_all((0..100).map(|i| reprint(format!("{:04}", 3000 + i)))).await;

    // Assert: every refusal reads the same, and only the free tries and the one that starts
    // the wait were checked (not 18 to 37 as when the lock was read before the slow check).
    let first = answers[0].clone();
    assert_eq!(
        (first.0, first.1["kind"].as_str()),
        (StatusCode::FORBIDDEN, Some("ApprovalRefused"))
    );
    assert!(answers.iter().all(|a| *a == first), "identical refusals");
    let kim_id = db.store.staff_named("kim").await.unwrap().unwrap().id;
    let checked = db
        .store
        .throttle_failures(&format!("pin:lee@clerk:{kim_id}"))
        .await
        .unwrap();
    assert!((6..=8).contains(&checked), "{checked} checks of 100");
    // Lee's own sign-in is untouched, and her PIN approves again once the wait is over (each
    // try meanwhile refused like a wrong one).
    signed_in(&app, "lee", PASSWORD).await;
    let mut tries = 0;
    let approved = loop {
        tries += 1;
        let answer = reprint("2222".into()).await;
        if answer.0 == StatusCode::OK {
            break answer.1;
        }
        assert_eq!(answer, first, "refused like a wrong PIN");
        assert!(tries < 40, "never approved");
        tokio::time::sleep(Duration::from_millis(250)).await;
    };
    assert_eq!(approved["reprint"], 1);
    db.drop_database().await;
}

/// Each seat's ticket checks that seat in; the booking's code admits the rest of the party; a
/// door that names no showtime admits only showtimes whose doors are open; a misspelt field is
/// refused; `GET /tickets/{code}` says the ticket's real state; the printed booking number finds
/// the booking at the counter.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_party_checks_in_seat_by_seat_at_the_showtime_whose_doors_are_open() {
    let db = TestDb::new(Backend::Sqlite).await;
    let app = TestApp::spawn(&db, "600").await;
    // One showtime in an hour (doors open), another in three days. (Not the demo data's first
    // showtime: at some hours of the day it starts within the doors' window too.)
    let soon = db
        .showtime_at(chrono::Utc::now() + chrono::Duration::hours(1))
        .await
        .get();
    let later = db
        .showtime_at(chrono::Utc::now() + chrono::Duration::days(3))
        .await
        .get();
    let kim = member(&app, "kim", StaffRole::Clerk, "1111").await;
    let _lee = member(&app, "lee", StaffRole::Supervisor, "2222").await;
    let door = member(&app, "ahn", StaffRole::Door, "3333").await;
    let open = json!({ "register": "R1", "float": 0 });
    assert_eq!(kim.open_shift(open).await.0, StatusCode::OK);
    let party = cash_sale(&kim, soon, 3).await;
    let (_, ticket) = kim
        .print_ticket(json!({ "booking": party["bookingId"] }))
        .await;
    let seats: Vec<(String, String)> = ticket["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["code"].as_str().unwrap().to_string(),
                s["ticketCode"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(seats.len(), 3);
    assert!(
        seats.iter().all(|(_, code)| code.starts_with("SEATS3-")),
        "{ticket}"
    );
    let booking_code = ticket["code"].as_str().unwrap().to_string();

    // Unknown fields are refused, and change nothing.
    let (status, body) = check_in(&door, &app, &seats[0].1, json!({ "showtime_id": soon })).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    // The first friend, with her own ticket.
    let (status, scan) = check_in(&door, &app, &seats[0].1, json!({})).await;
    assert_eq!(
        (status, scan["result"].as_str()),
        (StatusCode::OK, Some("OK")),
        "{scan}"
    );
    assert_eq!(scan["admitted"], json!([seats[0].0]));
    assert_eq!(scan["checkedIn"], 1);
    let (status, scan) = check_in(&door, &app, &seats[0].1, json!({})).await;
    assert_eq!(
        (status, scan["result"].as_str()),
        (StatusCode::CONFLICT, Some("ALREADY_CHECKED_IN"))
    );
    // The door names the seat that is in, not her friends' that are not.
    assert_eq!(scan["scanned"], json!([seats[0].0]), "{scan}");
    assert_eq!(scan["seats"].as_array().map(Vec::len), Some(3), "{scan}");
    let state = |code: String| {
        let url = app.url(&format!("/tickets/{code}"));
        async move {
            let body: Value = get_json(url).await;
            (
                body["state"].as_str().unwrap().to_string(),
                body["valid"].as_bool().unwrap(),
            )
        }
    };
    assert_eq!(
        state(seats[0].1.clone()).await,
        ("CHECKED_IN".into(), false)
    );
    assert_eq!(state(seats[1].1.clone()).await, ("VALID".into(), true));
    // The others with the booking's code: the two not in yet, then nobody.
    let (status, scan) = check_in(&door, &app, &booking_code, json!({ "gate": "East" })).await;
    assert_eq!(status, StatusCode::OK, "{scan}");
    let mut rest: Vec<&str> = scan["admitted"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    rest.sort();
    let mut want = vec![seats[1].0.as_str(), seats[2].0.as_str()];
    want.sort();
    assert_eq!((rest, scan["checkedIn"].as_i64()), (want, Some(3)));
    let (status, scan) = check_in(&door, &app, &booking_code, json!({})).await;
    assert_eq!(
        (status, scan["result"].as_str()),
        (StatusCode::CONFLICT, Some("ALREADY_CHECKED_IN"))
    );
    assert_eq!(
        state(booking_code.clone()).await,
        ("CHECKED_IN".into(), false)
    );

    // A ticket of a showtime three days away is not used up by a door admitting "now".
    let away = cash_sale(&kim, later, 1).await;
    let (_, away_ticket) = kim
        .print_ticket(json!({ "booking": away["bookingId"] }))
        .await;
    let away_code = away_ticket["code"].as_str().unwrap().to_string();
    let (status, scan) = check_in(&door, &app, &away_code, json!({})).await;
    assert_eq!(
        (status, scan["result"].as_str()),
        (StatusCode::CONFLICT, Some("WRONG_SHOWTIME"))
    );
    assert_eq!(
        state(away_code.clone()).await,
        ("VALID".into(), true),
        "still valid"
    );

    // The booking number printed on the ticket finds it at the counter; refunded, the ticket
    // says so.
    let number = away["bookingId"].as_str().unwrap()[..8].to_ascii_uppercase();
    let refund = json!({ "refund": { "booking": number, "approval": { "supervisor": "lee", "pin": "2222" } } });
    let (status, body) = kim.refund_at_counter(refund).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(state(away_code.clone()).await, ("REFUNDED".into(), false));
    let (status, scan) = check_in(&door, &app, &away_code, json!({ "showtimeId": later })).await;
    assert_eq!(
        (status, scan["result"].as_str()),
        (StatusCode::CONFLICT, Some("REFUNDED"))
    );
    let (status, body) = kim
        .refund_at_counter(json!({ "refund": { "booking": "FFFFFFFF" } }))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    db.drop_database().await;
}

/// Cancelling a showtime owes its cash and card sales back at the counter: the answer counts
/// them, the console lists them, the shift they were sold in shows them, the sales figures count
/// them as refunded at once, the door says CANCELLED; the clerk's payout settles each once (and
/// moves the figures no further).
async fn a_cancelled_showtime_owes_its_counter_sales_back_at_the_counter(backend: Backend) {
    let db = TestDb::new(backend).await;
    let app = TestApp::spawn(&db, "600").await;
    let showtime = first_showtime(&app.base).await;
    let kim = member(&app, "kim", StaffRole::Clerk, "1111").await;
    let lee = member(&app, "lee", StaffRole::Supervisor, "2222").await;
    let door = member(&app, "ahn", StaffRole::Door, "3333").await;
    let open = json!({ "register": "R1", "float": 100_000 });
    let (status, shift) = kim.open_shift(open).await;
    assert_eq!(status, StatusCode::OK, "{shift}");
    let cash = cash_sale(&kim, showtime, 2).await;
    let (_, hold) = kim
        .clerk_hold(json!({ "showtime_id": showtime, "best": { "count": 1 } }))
        .await;
    let (status, card) = kim.sell_at_counter(json!({ "sale": { "holdId": hold["holdId"], "tender": "card", "cardReference": "T-9" } }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{card}");
    let sold = cash["amount"].as_i64().unwrap() + card["amount"].as_i64().unwrap();
    let (_, ticket) = kim
        .print_ticket(json!({ "booking": cash["bookingId"] }))
        .await;
    let code = ticket["code"].as_str().unwrap().to_string();
    // The card sale's holder was let in already when the show is called off.
    let (_, card_ticket) = kim
        .print_ticket(json!({ "booking": card["bookingId"] }))
        .await;
    let card_code = card_ticket["code"].as_str().unwrap().to_string();
    let (status, _) = check_in(&door, &app, &card_code, json!({ "showtimeId": showtime })).await;
    assert_eq!(status, StatusCode::OK);

    // Act: the operator cancels the showtime.
    let boss = operator(&app).await;
    let (status, done) = boss
        .cancel_showtime(json!({ "showtime_id": showtime }))
        .await;
    assert_eq!(status, StatusCode::OK, "{done}");

    // Assert: both sales are owed back, and say so everywhere.
    assert_eq!(
        (done["refunds"].as_i64(), done["owedAtCounter"].as_i64()),
        (Some(2), Some(2)),
        "{done}"
    );
    let (_, owed) = lee.refunds_owed(json!({})).await;
    let owed_amount: i64 = owed
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["amount"].as_i64().unwrap())
        .sum();
    assert_eq!(owed_amount, sold, "{owed}");
    let (_, now) = kim.box_office_shift(json!({})).await;
    assert_eq!(
        (
            now["figures"]["owedRefunds"].as_i64(),
            now["figures"]["owedAmount"].as_i64()
        ),
        (Some(2), Some(sold)),
        "{now}"
    );
    let refunded = || async {
        let (_, figures) = boss.sales_figures(json!({})).await;
        figures
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["showtimeId"] == showtime)
            .map(|f| f["refunded"].as_i64().unwrap())
            .sum::<i64>()
    };
    let moved = eventually(Duration::from_secs(10), refunded, |r| *r == sold).await;
    assert_eq!(moved, sold, "the figures count them as refunded");
    let (status, scan) = check_in(&door, &app, &code, json!({ "showtimeId": showtime })).await;
    assert_eq!(
        (status, scan["result"].as_str()),
        (StatusCode::CONFLICT, Some("CANCELLED")),
        "{scan}"
    );

    // The clerk gives the cash back: once, from the drawer, with no second refund in the figures.
    let refund = json!({ "refund": { "booking": cash["bookingId"], "approval": { "supervisor": "lee", "pin": "2222" } } });
    let (status, paid) = kim.refund_at_counter(refund.clone()).await;
    assert_eq!(status, StatusCode::OK, "{paid}");
    assert_eq!(paid["method"], "cash");
    let (status, body) = kim.refund_at_counter(refund).await;
    assert_eq!(status, StatusCode::CONFLICT, "once: {body}");
    let (_, owed) = lee.refunds_owed(json!({})).await;
    assert_eq!(
        owed.as_array().unwrap().len(),
        1,
        "the card sale is still owed: {owed}"
    );
    let (_, now) = kim.box_office_shift(json!({})).await;
    assert_eq!(now["figures"]["owedRefunds"].as_i64(), Some(1));
    assert_eq!(now["figures"]["cashRefunded"], cash["amount"]);
    // The card sale is owed back though its holder was let in before the cancellation.
    let refund = json!({ "refund": { "booking": card["bookingId"], "approval": { "supervisor": "lee", "pin": "2222" } } });
    let (status, paid) = kim.refund_at_counter(refund).await;
    assert_eq!(
        (status, paid["method"].as_str()),
        (StatusCode::OK, Some("card")),
        "{paid}"
    );
    let (_, owed) = lee.refunds_owed(json!({})).await;
    assert_eq!(owed, json!([]));
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        refunded().await,
        sold,
        "paying them out is not a second refund"
    );
    db.drop_database().await;
}
