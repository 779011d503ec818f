//! What a counter customer who gave an address is told: every change to the booking — a refund
//! of some seats, an exchange, the showtime's cancellation — is one message saying the amount it
//! moved and the seats it concerns, and the booking keeps what it was sold, seat by seat.

use crate::box_office::member;
use crate::checkout::mail::text_of;
use crate::support::*;
use reqwest::StatusCode;
use serde_json::{json, Value};
use server::staff::StaffRole;
use std::time::Duration;

on_both_backends!(every_change_to_a_counter_booking_is_e_mailed_with_what_it_moved);

/// The subjects and texts of the messages received, oldest first.
async fn letters(sink: &SmtpSink, n: usize) -> Vec<(String, String)> {
    let received = sink.received(n, Duration::from_secs(30)).await;
    assert_eq!(received.len(), n, "{n} messages");
    let mut all: Vec<(String, String)> = received
        .iter()
        .map(|raw| {
            let mail = mailparse::parse_mail(raw).unwrap();
            let subject =
                mailparse::MailHeaderMap::get_first_value(mail.headers.as_slice(), "Subject");
            (subject.unwrap_or_default(), text_of(&mail))
        })
        .collect();
    all.sort_by_key(|(subject, _)| subject.clone());
    all
}

/// An amount as an English message writes it (`₩12,000`).
fn won(amount: i64) -> String {
    app::format::price(app::i18n::Lang::En, app::domain::Won::new(amount))
}

async fn every_change_to_a_counter_booking_is_e_mailed_with_what_it_moved(backend: Backend) {
    let sink = SmtpSink::start().await;
    let smtp = sink.url();
    let db = TestDb::new(backend).await;
    let vars = [("SMTP_URL", smtp.as_str()), ("MAIL_POLL_SECONDS", "0.2")];
    let app = TestApp::spawn_with(&db, "600", &vars).await;
    let showtime = first_showtime(&app.base).await;
    let kim = member(&app, "kim", StaffRole::Clerk, "1111").await;
    let lee = member(&app, "lee", StaffRole::Supervisor, "2222").await;
    let lee_ok = json!({ "supervisor": "lee", "pin": "2222" });
    let (status, _) = kim
        .open_shift(json!({ "register": "R1", "float": 0 }))
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, hold) = kim
        .clerk_hold(json!({ "showtime_id": showtime, "best": { "count": 3 } }))
        .await;
    assert_eq!(status, StatusCode::OK, "{hold}");
    let sale = json!({ "sale": { "holdId": hold["holdId"], "tender": "cash", "tendered": 1_000_000,
                                 "email": "min@example.com", "language": "en" } });
    let (status, sale) = kim.sell_at_counter(sale).await;
    assert_eq!(status, StatusCode::OK, "{sale}");
    let booking = sale["bookingId"].as_str().unwrap().to_string();
    let sold: Vec<String> = serde_json::from_value(sale["seats"].clone()).unwrap();
    let total = sale["amount"].as_i64().unwrap();
    let ticket = letters(&sink, 1).await;
    assert!(ticket[0].0.starts_with("Your tickets:"), "{ticket:?}");

    // One seat refunded: the message says that seat and its price, not what the booking keeps.
    let refund =
        json!({ "refund": { "booking": booking, "seats": [sold[0]], "approval": lee_ok } });
    let (status, one) = kim.refund_at_counter(refund).await;
    assert_eq!(status, StatusCode::OK, "{one}");
    let price = one["amount"].as_i64().unwrap();
    let all = letters(&sink, 2).await;
    let (_, refunded) = all
        .iter()
        .find(|(s, _)| s.starts_with("Refunded:"))
        .unwrap();
    assert!(
        refunded.starts_with(&format!(
            "Seats {} of your booking have been refunded: {}.",
            sold[0],
            won(price)
        )),
        "{refunded}"
    );
    assert!(
        refunded
            .lines()
            .any(|l| l == format!("Seats refunded: {}", sold[0])),
        "{refunded}"
    );
    assert!(!refunded.contains(&won(total - price)), "{refunded}");

    // One seat exchanged for another of its category: the new ticket, naming the seat given back.
    let map: Value = get_json(app.url(&format!("/showtimes/{showtime}/seats"))).await;
    let seats = map["seats"].as_array().unwrap();
    let category =
        |code: &str| seats.iter().find(|s| s["code"] == code).unwrap()["category"].clone();
    let other = seats
        .iter()
        .find(|s| {
            s["status"] == "AVAILABLE"
                && s["category"] == category(&sold[1])
                && s["code"] != sold[0]
        })
        .unwrap()["code"]
        .as_str()
        .unwrap()
        .to_string();
    let (status, hold) = kim
        .clerk_hold(json!({ "showtime_id": showtime, "seats": [other] }))
        .await;
    assert_eq!(status, StatusCode::OK, "{hold}");
    let exchange = json!({ "exchange": { "booking": booking, "seats": [sold[1]], "holdId": hold["holdId"], "approval": lee_ok } });
    let (status, done) = kim.exchange_at_counter(exchange).await;
    assert_eq!(status, StatusCode::OK, "{done}");
    let all = letters(&sink, 3).await;
    let (_, changed) = all
        .iter()
        .find(|(s, _)| s.starts_with("Seats changed:"))
        .unwrap();
    assert!(
        changed
            .lines()
            .any(|l| l == format!("Seats given back: {}", sold[1])),
        "{changed}"
    );
    assert!(changed.contains(&other), "{changed}");
    assert!(changed.contains("Ticket code: "), "{changed}");

    // The booking keeps what it was sold, seat by seat, and what it gave back.
    let (status, found) = lee.find_booking(json!({ "query": booking })).await;
    assert_eq!(status, StatusCode::OK, "{found}");
    let view = &found["booking"];
    assert_eq!(view["refunded"].as_i64(), Some(price), "{view}");
    assert_eq!(view["refundedSeats"], json!([sold[0]]), "{view}");
    assert_eq!(view["amount"].as_i64(), Some(total - price), "{view}");
    let given_back: Vec<(String, String)> = view["givenBack"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["seat"].as_str().unwrap().into(),
                s["state"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(
        given_back,
        [
            (sold[0].clone(), "REFUNDED".to_string()),
            (sold[1].clone(), "EXCHANGED".to_string())
        ],
        "{view}"
    );

    // The showtime is cancelled: the counter customer is told too, and where the money is.
    let boss = operator(&app).await;
    let (status, done) = boss
        .cancel_showtime(json!({ "showtime_id": showtime }))
        .await;
    assert_eq!(status, StatusCode::OK, "{done}");
    let all = letters(&sink, 4).await;
    let (_, owed) = all
        .iter()
        .find(|(s, _)| s.starts_with("Cancelled:"))
        .unwrap();
    assert!(owed.contains("given back at the box office"), "{owed}");
    assert!(
        owed.lines()
            .any(|l| l == format!("To be refunded: {}", won(total - price))),
        "{owed}"
    );
    assert!(owed.contains(&other) && owed.contains(&sold[2]), "{owed}");
    // One message per change.
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert_eq!(sink.messages().len(), 4);
}
