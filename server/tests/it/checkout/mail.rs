//! The customer's e-mail through a real SMTP server in its own process: the ticket on
//! confirmation (its QR code scans to the ticket's code, its link opens the booking on another
//! device), the notice when the showtime is cancelled and refunded, one message per event
//! however often the event is delivered, and an SMTP server that is down delaying the message,
//! never the confirmation, until it is parked for an operator.

use super::*;
use mailparse::{MailHeaderMap, ParsedMail};
use std::time::Duration;

on_both_backends!(
    the_ticket_comes_by_mail_once_with_a_qr_code_that_scans_and_a_link_that_opens_the_booking,
    with_the_smtp_server_down_the_booking_is_confirmed_and_its_ticket_follows_when_it_is_back,
    a_message_that_keeps_failing_is_parked_and_counted,
    without_smtp_the_messages_are_files_in_the_mail_folder,
    an_operator_e_mails_a_ticket_again_and_only_a_standing_booking_s,
);

/// Fast rounds and retries, so the tests wait on state for seconds, not minutes.
const QUICK: [(&str, &str); 2] = [("MAIL_POLL_SECONDS", "0.2"), ("MAIL_RETRY_SECONDS", "0.3")];

/// The booking's messages as `(status, attempts, last_error)`, oldest first.
async fn queued(shop: &Shop, booking: &str) -> Vec<(String, i32, Option<String>)> {
    let id = uuid::Uuid::parse_str(booking).unwrap();
    on_db!(shop.db, |pool| sqlx::query_as(
        "select status, attempts, last_error from outgoing_mail where booking_id = $1 order by id"
    )
    .bind(id)
    .fetch_all(&pool)
    .await
    .unwrap())
}

/// The parts of a message, depth first.
fn parts<'a>(mail: &'a ParsedMail<'a>, out: &mut Vec<&'a ParsedMail<'a>>) {
    out.push(mail);
    for part in &mail.subparts {
        parts(part, out);
    }
}

/// The text of the message's `text/plain` part.
pub(crate) fn text_of(mail: &ParsedMail) -> String {
    let mut all = Vec::new();
    parts(mail, &mut all);
    let part = all
        .into_iter()
        .find(|p| p.ctype.mimetype == "text/plain")
        .expect("a text part");
    part.get_body().unwrap()
}

/// What the QR image of the message (inline, `image/png`) reads.
fn qr_of(mail: &ParsedMail) -> String {
    let mut all = Vec::new();
    parts(mail, &mut all);
    let image = all
        .into_iter()
        .find(|p| p.ctype.mimetype == "image/png")
        .expect("an inline PNG");
    let cid = image
        .headers
        .get_first_value("Content-ID")
        .unwrap_or_default();
    assert!(cid.contains("ticket-qr"), "{cid}");
    let png = image.get_body_raw().unwrap();
    let mut reader = png::Decoder::new(std::io::Cursor::new(png))
        .read_info()
        .unwrap();
    let mut pixels = vec![0; reader.output_buffer_size()];
    let frame = reader.next_frame(&mut pixels).unwrap();
    assert_eq!(frame.color_type, png::ColorType::Grayscale);
    let (w, h) = (frame.width as usize, frame.height as usize);
    let mut image = rqrr::PreparedImage::prepare_from_greyscale(w, h, |x, y| pixels[y * w + x]);
    let grids = image.detect_grids();
    assert_eq!(grids.len(), 1, "one QR code");
    grids[0].decode().unwrap().1
}

async fn the_ticket_comes_by_mail_once_with_a_qr_code_that_scans_and_a_link_that_opens_the_booking(
    backend: Backend,
) {
    let sink = SmtpSink::start().await;
    let url = sink.url();
    let mut vars = vec![("SMTP_URL", url.as_str())];
    vars.extend_from_slice(&QUICK);
    let shop = shop_with(backend, "600", &vars).await;
    let laptop = shop.app.customer();
    let body = r#"{"email": "Kim@Example.com", "language": "ko"}"#;
    let id = shop.paid_booking(&laptop, &["B3", "B4"], body).await;

    let received = sink.received(1, Duration::from_secs(20)).await;
    assert_eq!(received.len(), 1, "the ticket arrived");
    let mail = mailparse::parse_mail(&received[0]).unwrap();
    assert_eq!(
        mail.headers.get_first_value("To").as_deref(),
        Some("kim@example.com")
    );
    let subject = mail.headers.get_first_value("Subject").unwrap();
    assert!(subject.starts_with("[예매 완료]"), "{subject}");
    let text = text_of(&mail);
    let reference = id[..8].to_uppercase();
    assert!(text.contains(&format!("예매 번호: {reference}")), "{text}");
    assert!(text.contains("좌석: B3, B4"), "{text}");
    shop.ticket_issued(&laptop, &id).await;
    let code = shop.ticket_code(&id).await.unwrap();
    assert_eq!(qr_of(&mail), code, "the QR code is the ticket's");
    assert!(text.contains(&code));

    // The link opens the booking on a device that never saw it; a changed key opens nothing.
    let link = text
        .lines()
        .find(|l| l.contains("/open?key="))
        .expect("a link")
        .trim()
        .to_string();
    assert!(link.starts_with(&shop.app.base), "{link}");
    let stranger = reqwest::Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let other = if link.ends_with('0') { '1' } else { '0' };
    let forged = format!("{}{other}", &link[..link.len() - 1]);
    let refused = stranger.get(&forged).send().await.unwrap();
    assert_eq!(refused.status(), StatusCode::NOT_FOUND);
    let view = stranger
        .get(shop.app.url(&format!("/bookings/{id}")))
        .send()
        .await
        .unwrap();
    assert_eq!(
        view.status(),
        StatusCode::FORBIDDEN,
        "a wrong key grants nothing"
    );
    // (A visit shows a page; confirming it opens the booking.)
    let r = stranger.get(&link).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let r = stranger.post(&link).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(
        r.headers()["location"].to_str().unwrap(),
        format!("/my-bookings/{id}")
    );
    let view = get_json_as(&stranger, shop.app.url(&format!("/bookings/{id}"))).await;
    assert_eq!(view["reference"], reference.as_str());
    assert_eq!(view["status"], "CONFIRMED");

    // Delivered again (at least once is all the relay promises), the event sends nothing more;
    // control: the same event under another id is another message.
    let booking = uuid::Uuid::parse_str(&id).unwrap();
    let payload: String = on_db!(shop.db, |pool| {
        sqlx::query_scalar(
        "select cast(payload as text) from outbox where aggregate_id = $1 and event_type = 'BookingConfirmed'"
    )
    .bind(booking)
    .fetch_one(&pool)
    .await
    .unwrap()
    });
    let engine = &shop.app.engine;
    assert!(!engine.consume("notify", payload.as_bytes()).await.unwrap());
    let statuses = queued(&shop, &id).await;
    assert_eq!(statuses.len(), 1, "{statuses:?}");
    assert_eq!(statuses[0].0, "sent");
    let mut other: Value = serde_json::from_str(&payload).unwrap();
    other["eventId"] = Value::from(format!("{}-again", other["eventId"].as_str().unwrap()));
    assert!(engine
        .consume("notify", other.to_string().as_bytes())
        .await
        .unwrap());
    assert_eq!(sink.received(2, Duration::from_secs(20)).await.len(), 2);

    // The showtime is cancelled: the customer is told, in their language, that it is refunded.
    let operator = operator(&shop.app).await;
    let r = operator
        .post(shop.app.url("/api/cancel_showtime"))
        .json(&json!({ "showtime_id": shop.showtime }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let received = sink.received(3, Duration::from_secs(30)).await;
    assert_eq!(received.len(), 3, "the refund notice arrived");
    let subject_of = |m: &ParsedMail| m.headers.get_first_value("Subject").unwrap_or_default();
    let all: Vec<ParsedMail> = received
        .iter()
        .map(|m| mailparse::parse_mail(m).unwrap())
        .collect();
    let notice = all
        .iter()
        .find(|m| subject_of(m).starts_with("[상영 취소·환불]"))
        .unwrap_or_else(|| panic!("{:?}", all.iter().map(subject_of).collect::<Vec<_>>()));
    let text = text_of(notice);
    assert!(text.contains("상영이 취소되었습니다"), "{text}");
    assert!(!text.contains(&code), "a refund notice is no ticket");
    // No address in any event the topic carries.
    let payloads: Vec<String> = on_db!(shop.db, |pool| sqlx::query_scalar(
        "select cast(payload as text) from outbox where aggregate_id = $1"
    )
    .bind(booking)
    .fetch_all(&pool)
    .await
    .unwrap());
    assert!(
        payloads.iter().all(|p| !p.contains("example.com")),
        "{payloads:?}"
    );
}

async fn with_the_smtp_server_down_the_booking_is_confirmed_and_its_ticket_follows_when_it_is_back(
    backend: Backend,
) {
    let port = free_port();
    let url = format!("smtp://127.0.0.1:{port}");
    let mut vars = vec![("SMTP_URL", url.as_str())];
    vars.extend_from_slice(&QUICK);
    let shop = shop_with(backend, "600", &vars).await;
    let alice = shop.app.customer();
    let id = shop
        .paid_booking(&alice, &["C7"], r#"{"email": "alice@example.com"}"#)
        .await;
    shop.ticket_issued(&alice, &id).await;
    // Tried, failed, waiting for the next try.
    let tried = eventually(
        WAIT * 4,
        || queued(&shop, &id),
        |q| q.first().is_some_and(|(_, attempts, _)| *attempts >= 2),
    )
    .await;
    let (status, _, error) = &tried[0];
    assert_eq!(status, "queued", "{tried:?}");
    assert!(error.is_some(), "{tried:?}");
    assert!(
        !error.as_deref().unwrap().contains("alice@example.com"),
        "{error:?}"
    );
    let metrics = get_text(shop.app.url("/metrics")).await;
    assert!(
        metrics
            .lines()
            .any(|l| l.starts_with("seats_mail_failed_total ") && !l.ends_with(" 0")),
        "{metrics}"
    );

    let sink = SmtpSink::start_on(port).await;
    let received = sink.received(1, Duration::from_secs(30)).await;
    assert_eq!(received.len(), 1, "sent once the server is back");
    let mail = mailparse::parse_mail(&received[0]).unwrap();
    // No language given: Korean, the venue's.
    assert!(text_of(&mail).contains("좌석: C7"));
    let sent = eventually(WAIT, || queued(&shop, &id), |q| q[0].0 == "sent").await;
    assert_eq!(sent[0].0, "sent");
}

async fn a_message_that_keeps_failing_is_parked_and_counted(backend: Backend) {
    let url = format!("smtp://127.0.0.1:{}", free_port());
    let mut vars = vec![("SMTP_URL", url.as_str()), ("MAIL_MAX_ATTEMPTS", "2")];
    vars.extend_from_slice(&QUICK);
    let shop = shop_with(backend, "600", &vars).await;
    let bob = shop.app.customer();
    let id = shop
        .paid_booking(&bob, &["D2"], r#"{"email": "bob@example.com"}"#)
        .await;
    let parked = eventually(
        WAIT * 4,
        || queued(&shop, &id),
        |q| q.first().is_some_and(|(status, _, _)| status == "parked"),
    )
    .await;
    assert_eq!(
        (parked[0].0.as_str(), parked[0].1),
        ("parked", 2),
        "{parked:?}"
    );
    let metrics = eventually(
        WAIT,
        || get_text(shop.app.url("/metrics")),
        |m| m.contains("\nseats_mail_parked 1\n"),
    )
    .await;
    assert!(metrics.contains("\nseats_mail_parked 1\n"), "{metrics}");
    // Parked means left alone: the booking stays confirmed, nothing is tried again.
    assert_eq!(shop.booking_settled(&id).await, "CONFIRMED");
}

async fn without_smtp_the_messages_are_files_in_the_mail_folder(backend: Backend) {
    let dir = std::env::temp_dir().join(format!("seats-mail-{}", uuid::Uuid::new_v4().simple()));
    let dir_text = dir.display().to_string();
    let mut vars = vec![("MAIL_DIR", dir_text.as_str())];
    vars.extend_from_slice(&QUICK);
    let shop = shop_with(backend, "600", &vars).await;
    let carol = shop.app.customer();
    let body = r#"{"email": "carol@example.com", "language": "en"}"#;
    let id = shop.paid_booking(&carol, &["E9"], body).await;
    let files = eventually(
        Duration::from_secs(20),
        || async {
            std::fs::read_dir(&dir)
                .map(|d| {
                    d.filter_map(|e| e.ok())
                        .map(|e| e.path())
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        },
        |files| !files.is_empty(),
    )
    .await;
    assert_eq!(files.len(), 1, "{files:?}");
    assert!(files[0].extension().is_some_and(|e| e == "eml"));
    let raw = std::fs::read(&files[0]).unwrap();
    let mail = mailparse::parse_mail(&raw).unwrap();
    let subject = mail.headers.get_first_value("Subject").unwrap();
    assert!(subject.starts_with("Your tickets:"), "{subject}");
    assert!(text_of(&mail).contains(&format!("Booking reference: {}", id[..8].to_uppercase())));
    // The file is written before its row is marked sent: wait for the row, not a moment.
    let rows = eventually(
        Duration::from_secs(20),
        || queued(&shop, &id),
        |rows| rows.first().is_some_and(|r| r.0 == "sent"),
    )
    .await;
    assert_eq!(rows[0].0, "sent", "{rows:?}");
}

async fn an_operator_e_mails_a_ticket_again_and_only_a_standing_booking_s(backend: Backend) {
    let sink = SmtpSink::start().await;
    let url = sink.url();
    let mut vars = vec![("SMTP_URL", url.as_str())];
    vars.extend_from_slice(&QUICK);
    let shop = shop_with(backend, "600", &vars).await;
    let alice = shop.app.customer();
    let body = r#"{"email": "alice@example.com", "language": "en"}"#;
    let id = shop.paid_booking(&alice, &["C3", "C4"], body).await;
    let first = sink.received(1, Duration::from_secs(20)).await;
    assert_eq!(first.len(), 1);
    let reference = shop.ticket_issued(&alice, &id).await["reference"]
        .as_str()
        .unwrap()
        .to_string();

    // By its number, from the console: a second message, the same ticket, to the same address.
    let operator = operator(&shop.app).await;
    let resend = json!({ "booking": reference });
    let (status, answer) = operator.resend_ticket(resend.clone()).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    let both = sink.received(2, Duration::from_secs(20)).await;
    assert_eq!(both.len(), 2, "the ticket went out again");
    let (a, b) = (
        mailparse::parse_mail(&both[0]).unwrap(),
        mailparse::parse_mail(&both[1]).unwrap(),
    );
    for header in ["To", "Subject"] {
        assert_eq!(
            a.headers.get_first_value(header),
            b.headers.get_first_value(header),
            "{header}"
        );
    }
    assert_eq!(qr_of(&a), qr_of(&b));
    assert_eq!(queued(&shop, &id).await.len(), 2);
    let audit: Value = operator.audit_log(json!({})).await.1;
    assert_eq!(audit[0]["action"], "ticket_resent", "{audit}");
    assert!(
        !audit[0].to_string().contains("alice@"),
        "no address in the audit: {}",
        audit[0]
    );

    // Refused: a booking without an address, an unknown one, a refunded one; nothing queued.
    let bob = shop.app.customer();
    let silent = shop.paid_booking(&bob, &["D3", "D4"], "{}").await;
    let (status, refused) = operator.resend_ticket(json!({ "booking": silent })).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{refused}");
    assert!(
        refused.to_string().contains("resend_no_address"),
        "{refused}"
    );
    let (status, refused) = operator
        .resend_ticket(json!({ "booking": "FFFFFFFF" }))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{refused}");
    let cancelled = alice
        .post(shop.app.url(&format!("/bookings/{id}/cancel")))
        .send()
        .await
        .unwrap();
    assert_eq!(cancelled.status(), StatusCode::OK);
    let (status, refused) = operator.resend_ticket(resend).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{refused}");
    assert!(
        refused.to_string().contains("resend_not_confirmed"),
        "{refused}"
    );
    // The two tickets, and the refund notice that followed the cancellation: nothing more.
    assert_eq!(sink.received(3, Duration::from_secs(20)).await.len(), 3);
    assert_eq!(queued(&shop, &id).await.len(), 3);
}
