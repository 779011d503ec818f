//! A customer cancels their own online booking before the venue's cut-off: the seats are on sale
//! again at once, the payment is refunded through the gateway, the ticket admits nobody, and the
//! refund notice is e-mailed; after the cut-off, twice, by someone else or with bad input it is
//! refused and changes nothing.

use super::*;
use std::time::Duration;

on_both_backends!(
    a_customer_cancels_before_the_cut_off_and_the_seats_sell_again_and_the_money_goes_back,
    cancelling_too_late_twice_or_someone_else_s_booking_is_refused_and_changes_nothing,
    a_cancel_racing_a_scan_or_the_showtime_s_cancellation_ends_one_way_and_refunds_once,
);

/// `POST /bookings/{id}/cancel` by `client`: the status and the body.
pub(super) async fn cancel(
    shop: &Shop,
    client: &reqwest::Client,
    booking: &str,
) -> (StatusCode, Value) {
    let r = client
        .post(shop.app.url(&format!("/bookings/{booking}/cancel")))
        .send()
        .await
        .unwrap();
    (r.status(), r.json().await.unwrap_or(Value::Null))
}

/// A seat's status on the public seat map.
async fn seat_status(shop: &Shop, seat: &str) -> String {
    let map: Value = get_json(shop.app.url(&format!("/showtimes/{}/seats", shop.showtime))).await;
    map["seats"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["code"] == seat)
        .unwrap()["status"]
        .as_str()
        .unwrap()
        .to_string()
}

async fn a_customer_cancels_before_the_cut_off_and_the_seats_sell_again_and_the_money_goes_back(
    backend: Backend,
) {
    let sink = SmtpSink::start().await;
    let url = sink.url();
    let vars = [("SMTP_URL", url.as_str()), ("MAIL_POLL_SECONDS", "0.2")];
    let shop = shop_with(backend, "600", &vars).await;
    let (alice, bob) = (shop.app.customer(), shop.app.customer());
    let body = r#"{"email": "alice@example.com", "language": "en"}"#;
    let id = shop.paid_booking(&alice, &["B5", "B6"], body).await;
    let view = shop.ticket_issued(&alice, &id).await;
    assert_eq!(view["canCancel"], true, "{view}");
    assert!(view["cancelUntil"].is_string(), "{view}");
    let code = shop.ticket_code(&id).await.unwrap();
    // (A ticket not yet sent when the booking is cancelled is not sent at all.)
    assert_eq!(sink.received(1, Duration::from_secs(30)).await.len(), 1);

    // Not Bob's to cancel.
    let (status, refused) = cancel(&shop, &bob, &id).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{refused}");
    assert_eq!(seat_status(&shop, "B5").await, "BOOKED");

    let (status, cancelled) = cancel(&shop, &alice, &id).await;
    assert_eq!(status, StatusCode::OK, "{cancelled}");
    assert!(cancelled["refundedAt"].is_string(), "{cancelled}");
    assert_eq!(cancelled["canCancel"], false);
    // On sale again at once: Bob holds one of them.
    assert_eq!(seat_status(&shop, "B5").await, "AVAILABLE");
    shop.hold(&bob, &["B5"]).await;
    // The gateway gives the money back (the refund worker), and the ticket admits nobody.
    let url = shop.app.url(&format!("/bookings/{id}"));
    let refunded = eventually(
        WAIT * 2,
        || get_json_as(&alice, url.clone()),
        |v| v["payments"][0]["status"] == "REFUNDED",
    )
    .await;
    assert_eq!(refunded["payments"][0]["status"], "REFUNDED", "{refunded}");
    // It holds nothing now, and says what it gave back: the amount paid, both seats.
    let paid = view["amount"].as_i64().unwrap();
    assert_eq!(
        (refunded["amount"].as_i64(), refunded["refunded"].as_i64()),
        (Some(0), Some(paid)),
        "{refunded}"
    );
    assert_eq!(refunded["refundedSeats"], json!(["B5", "B6"]), "{refunded}");
    assert_eq!(refunded["status"], "REFUNDED", "{refunded}");
    assert_eq!(shop.events(&id, "RefundDue").await, 1);
    let door: Value = get_json(shop.app.url(&format!("/tickets/{code}"))).await;
    assert_eq!(
        (door["valid"].as_bool(), door["state"].as_str()),
        (Some(false), Some("REFUNDED")),
        "{door}"
    );
    // Twice is refused and changes nothing.
    let (status, again) = cancel(&shop, &alice, &id).await;
    assert_eq!(
        (status, again["code"].as_str()),
        (StatusCode::CONFLICT, Some("NOT_REFUNDABLE")),
        "{again}"
    );
    assert_eq!(shop.events(&id, "RefundDue").await, 1);
    // The ticket, then the refund notice, by e-mail.
    let received = sink.received(2, Duration::from_secs(30)).await;
    assert_eq!(received.len(), 2);
    let notice = received
        .iter()
        .map(|m| mailparse::parse_mail(m).unwrap())
        .find(|m| {
            mailparse::MailHeaderMap::get_first_value(m.headers.as_slice(), "Subject")
                .is_some_and(|s| s.starts_with("Refunded:"))
        })
        .expect("the refund notice");
    // What the gateway gave back, and the seats: not what the booking holds now (nothing).
    let text = super::mail::text_of(&notice);
    let paid = app::format::price(app::i18n::Lang::En, app::domain::Won::new(paid));
    assert!(
        text.starts_with(&format!("Your booking has been refunded: {paid}.")),
        "{text}"
    );
    assert!(
        text.lines().any(|l| l == "Seats refunded: B5, B6"),
        "{text}"
    );
}

async fn cancelling_too_late_twice_or_someone_else_s_booking_is_refused_and_changes_nothing(
    backend: Backend,
) {
    // A cut-off longer than any showtime is away: every booking is past it.
    let shop = shop_with(
        backend,
        "600",
        &[("CUSTOMER_CANCEL_UNTIL_MINUTES", "100000000")],
    )
    .await;
    let alice = shop.app.customer();
    let id = shop.paid_booking(&alice, &["C3"], "{}").await;
    let view = shop.ticket_issued(&alice, &id).await;
    assert_eq!(view["canCancel"], false, "{view}");
    assert!(view["cancelUntil"].is_string(), "{view}");
    let (status, late) = cancel(&shop, &alice, &id).await;
    assert_eq!(
        (status, late["code"].as_str()),
        (StatusCode::CONFLICT, Some("NOT_REFUNDABLE")),
        "{late}"
    );
    assert!(
        late["error"].as_str().unwrap().contains("100000000"),
        "{late}"
    );
    assert_eq!(seat_status(&shop, "C3").await, "BOOKED");
    assert_eq!(shop.events(&id, "RefundDue").await, 0);

    // An unpaid booking has nothing to cancel; bad ids are 400 and 404.
    let bob = shop.app.customer();
    let hold = shop.hold(&bob, &["C9"]).await;
    let (_, _, pending) = shop
        .checkout(&bob, hold["holdId"].as_str().unwrap(), Some("p"))
        .await;
    let pending = pending["bookingId"].as_str().unwrap();
    let view = get_json_as(&bob, shop.app.url(&format!("/bookings/{pending}"))).await;
    assert!(view["cancelUntil"].is_null(), "{view}");
    let (status, _) = cancel(&shop, &bob, "not-a-uuid").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, _) = cancel(&shop, &bob, &uuid::Uuid::new_v4().to_string()).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

async fn a_cancel_racing_a_scan_or_the_showtime_s_cancellation_ends_one_way_and_refunds_once(
    backend: Backend,
) {
    let shop = shop(backend, "600").await;
    let door =
        crate::box_office::member(&shop.app, "ahn", server::staff::StaffRole::Door, "3333").await;
    let operator = operator(&shop.app).await;
    // Seats apart, so that no booking leaves a seat alone.
    let seats = ["G1", "G4", "G7", "G10", "H1", "H4", "H7", "H10", "I1", "I4"];
    let mut bookings = Vec::new();
    for seat in seats {
        let client = shop.app.customer();
        let id = shop.paid_booking(&client, &[seat], "{}").await;
        shop.ticket_issued(&client, &id).await;
        let code = shop.ticket_code(&id).await.unwrap();
        bookings.push((client, id, code));
    }
    let scan = |code: &str| {
        door.post(shop.app.url(&format!("/tickets/{code}/check-in")))
            .json(&json!({ "showtimeId": shop.showtime }))
            .send()
    };
    // Control: alone, each succeeds — a scan lets the holder in, a cancel refunds.
    let (_, _, code) = &bookings[0];
    assert_eq!(scan(code).await.unwrap().status(), StatusCode::OK);
    let (client, id, _) = &bookings[1];
    assert_eq!(cancel(&shop, client, id).await.0, StatusCode::OK);
    assert_eq!(shop.events(id, "RefundDue").await, 1);

    // At the same moment, one of the two wins: never a holder let in and refunded.
    let mut scans_won = 0;
    for (client, id, code) in &bookings[2..6] {
        let (scanned, (cancel_status, cancelled)) =
            tokio::join!(scan(code), cancel(&shop, client, id));
        let scanned = scanned.unwrap();
        let admitted = scanned.status() == StatusCode::OK;
        let refunded = cancel_status == StatusCode::OK;
        assert!(
            admitted != refunded,
            "scan {} {}, cancel {cancel_status} {cancelled}",
            scanned.status(),
            scanned.text().await.unwrap_or_default()
        );
        assert_eq!(shop.events(id, "RefundDue").await, usize::from(refunded));
        scans_won += usize::from(admitted);
    }
    eprintln!("scans first: {scans_won} of 4");

    // The showtime cancelled while its customers cancel: every paid booking is refunded once,
    // whichever came first (the scanned ones by the cancellation).
    let cancel_showtime = operator.cancel_showtime(json!({ "showtime_id": shop.showtime }));
    let customers = futures_util::future::join_all(
        bookings[6..]
            .iter()
            .map(|(client, id, _)| cancel(&shop, client, id)),
    );
    let ((status, body), cancels) = tokio::join!(cancel_showtime, customers);
    assert_eq!(status, StatusCode::OK, "{body}");
    let won = cancels.iter().filter(|(s, _)| *s == StatusCode::OK).count();
    eprintln!("customers first: {won} of 4");
    for (_, id, _) in &bookings {
        assert_eq!(shop.events(id, "RefundDue").await, 1, "booking {id}");
    }
}
