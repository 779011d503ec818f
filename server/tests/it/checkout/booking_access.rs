//! Who may cancel a booking: its buyer's session, or one that proved the mailbox by opening the
//! e-mailed link and confirming. Finding a booking by its number and address shows it; a plain
//! visit of the link (or a foreign page) attaches nothing; the link ends with the showtime;
//! strangers' wrong lookups never lock the owner out; the cut-off is the database's.

use super::customer_cancel::cancel;
use super::*;
use app::domain::BookingId;

on_both_backends!(
    finding_a_booking_shows_it_and_only_the_mailbox_or_the_buyer_may_cancel_it,
    resends_come_once_a_minute_per_booking_and_after_every_first_message,
    an_address_the_ticket_could_never_reach_is_refused_at_checkout,
    strangers_guessing_a_number_never_lock_its_owner_out,
    the_link_ends_with_the_showtime_and_the_cut_off_is_the_databases,
);

async fn find(
    shop: &Shop,
    client: &reqwest::Client,
    from: &str,
    reference: &str,
    email: &str,
) -> (StatusCode, Value) {
    let r = client
        .post(shop.app.url("/bookings/lookup"))
        .header("x-forwarded-for", from)
        .json(&json!({ "reference": reference, "email": email }))
        .send()
        .await
        .unwrap();
    (r.status(), r.json().await.unwrap_or(Value::Null))
}

/// A client with its own cookies that follows no redirect.
fn device() -> reqwest::Client {
    reqwest::Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

const TRUST_LOCAL: (&str, &str) = ("TRUSTED_PROXIES", "127.0.0.1/32");

async fn finding_a_booking_shows_it_and_only_the_mailbox_or_the_buyer_may_cancel_it(
    backend: Backend,
) {
    let shop = shop_with(backend, "600", &[TRUST_LOCAL]).await;
    let alice = shop.app.customer();
    let body = r#"{"email": "alice@example.com"}"#;
    let id = shop.paid_booking(&alice, &["D3", "D4"], body).await;
    let reference = id[..8].to_uppercase();

    // A finder of one ticket (its number is printed on it) who knows the address sees it…
    let finder = device();
    let (status, view) = find(
        &shop,
        &finder,
        "198.51.100.4",
        &reference,
        "alice@example.com",
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{view}");
    assert_eq!(
        (
            view["canCancel"].as_bool(),
            view["cancelNeedsLink"].as_bool()
        ),
        (Some(false), Some(true)),
        "{view}"
    );
    // (Its list says the same.)
    let listed = get_json_as(&finder, shop.app.url("/bookings")).await;
    assert_eq!(
        (
            listed[0]["canCancel"].as_bool(),
            listed[0]["cancelNeedsLink"].as_bool()
        ),
        (Some(false), Some(true)),
        "{listed}"
    );
    // …and cannot cancel it.
    let (status, refused) = cancel(&shop, &finder, &id).await;
    assert_eq!(
        (status, refused["code"].as_str()),
        (StatusCode::FORBIDDEN, Some("CANCEL_NEEDS_LINK")),
        "{refused}"
    );
    assert_eq!(shop.events(&id, "RefundDue").await, 0);
    // The link goes to the booking's address again, once in 10 minutes.
    let sent = finder
        .post(shop.app.url(&format!("/bookings/{id}/send-link")))
        .send()
        .await
        .unwrap();
    assert_eq!(sent.status(), StatusCode::ACCEPTED);
    let sent: Value = sent.json().await.unwrap();
    assert_eq!(sent["sentTo"], "a***@example.com", "{sent}");
    let again = finder
        .post(shop.app.url(&format!("/bookings/{id}/send-link")))
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), StatusCode::TOO_MANY_REQUESTS);

    // The link: a visit attaches nothing; it shows a page (or says what to POST)…
    let booking = BookingId(uuid::Uuid::parse_str(&id).unwrap());
    let link = shop.app.url(&shop.app.engine.booking_link_path(booking));
    let owner = device();
    let page = owner
        .get(&link)
        .header("accept", "text/html")
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    let html = page.text().await.unwrap();
    assert!(html.contains("<form method=\"post\""), "{html}");
    let answer: Value = get_json_as(&owner, link.clone()).await;
    assert_eq!(answer["reference"], reference.as_str(), "{answer}");
    let view = owner
        .get(shop.app.url(&format!("/bookings/{id}")))
        .send()
        .await
        .unwrap();
    assert_eq!(
        view.status(),
        StatusCode::FORBIDDEN,
        "a visit attached nothing"
    );
    // …a foreign page's POST attaches nothing either…
    let foreign = owner
        .post(&link)
        .header("origin", "https://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(foreign.status(), StatusCode::FORBIDDEN);
    // …and confirming it does: this session proved the mailbox and may cancel.
    let confirmed = owner.post(&link).send().await.unwrap();
    assert_eq!(confirmed.status(), StatusCode::SEE_OTHER);
    assert_eq!(
        confirmed.headers()["location"].to_str().unwrap(),
        format!("/my-bookings/{id}")
    );
    let view = get_json_as(&owner, shop.app.url(&format!("/bookings/{id}"))).await;
    assert_eq!(view["canCancel"], true, "{view}");
    let (status, cancelled) = cancel(&shop, &owner, &id).await;
    assert_eq!(status, StatusCode::OK, "{cancelled}");
    assert_eq!(shop.events(&id, "RefundDue").await, 1);
    // Refunded in full, it says so, and its ticket is shown no more.
    assert_eq!(cancelled["status"], "REFUNDED", "{cancelled}");
    let (status, ticket) = alice.get_ticket(json!({ "booking_id": id })).await;
    assert_eq!(
        (status, ticket["kind"].as_str()),
        (StatusCode::CONFLICT, Some("TicketRefunded")),
        "{ticket}"
    );
}

async fn strangers_guessing_a_number_never_lock_its_owner_out(backend: Backend) {
    let shop = shop_with(
        backend,
        "600",
        &[TRUST_LOCAL, ("LOOKUP_RATE_PER_REFERENCE", "3")],
    )
    .await;
    let alice = shop.app.customer();
    let id = shop
        .paid_booking(&alice, &["E3"], r#"{"email": "alice@example.com"}"#)
        .await;
    let reference = id[..8].to_uppercase();
    // Strangers, from as many addresses as they like, guess the number's address.
    let mut statuses = Vec::new();
    for n in 0..5 {
        let (status, _) = find(
            &shop,
            &device(),
            &format!("203.0.113.{}", n + 1),
            &reference,
            &format!("guess{n}@example.com"),
        )
        .await;
        statuses.push(status.as_u16());
    }
    assert_eq!(
        statuses,
        [404, 404, 404, 429, 429],
        "wrong tries per number"
    );
    // A party member who knows the number and the address looks it up until refused…
    let member = device();
    let mut statuses = Vec::new();
    for _ in 0..6 {
        let (status, _) = find(
            &shop,
            &member,
            "198.51.100.4",
            &reference,
            "alice@example.com",
        )
        .await;
        statuses.push(status.as_u16());
    }
    assert_eq!(statuses, [200, 200, 200, 200, 200, 429], "a member's tries");
    // …and the owner, on a new phone, finds her booking all the same.
    let (status, view) = find(
        &shop,
        &device(),
        "192.0.2.7",
        &reference,
        "alice@example.com",
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{view}");
    // Her own tries are counted per number, address and session: five a minute.
    let phone = device();
    let mut statuses = Vec::new();
    for _ in 0..6 {
        let (status, _) = find(&shop, &phone, "192.0.2.8", &reference, "alice@example.com").await;
        statuses.push(status.as_u16());
    }
    assert_eq!(
        statuses,
        [200, 200, 200, 200, 200, 429],
        "per number, address and session"
    );
}

/// Moves the showtime's start to `minutes` from the database's now.
async fn starts_in(shop: &Shop, minutes: i64) {
    on_db!(shop.db, |pool| {
        let sql = match shop.db.backend {
            Backend::Postgres => {
                "update showtime set starts_at = now() + $2 * interval '1 minute', sales_close_at = null where id = $1"
            }
            Backend::Sqlite => {
                "update showtime set starts_at = cast(strftime('%s', 'now') as integer) * 1000 + $2 * 60000, sales_close_at = null where id = $1"
            }
        };
        sqlx::query(sql)
            .bind(shop.showtime)
            .bind(minutes)
            .execute(&pool)
            .await
            .unwrap();
    });
}

async fn the_link_ends_with_the_showtime_and_the_cut_off_is_the_databases(backend: Backend) {
    let shop = shop(backend, "600").await;
    let alice = shop.app.customer();
    let id = shop
        .paid_booking(&alice, &["F8"], r#"{"email": "alice@example.com"}"#)
        .await;
    // The showtime now starts in ten minutes (the server still has its old time in memory):
    // inside the 20-minute cut-off, by the database's clock, in the cancelling transaction.
    starts_in(&shop, 10).await;
    let (status, late) = cancel(&shop, &alice, &id).await;
    assert_eq!(
        (status, late["code"].as_str()),
        (StatusCode::CONFLICT, Some("NOT_REFUNDABLE")),
        "{late}"
    );
    assert_eq!(shop.events(&id, "RefundDue").await, 0);
    // The showtime over (started three hours ago): its link opens nothing (a server that
    // reads the showtime afresh).
    starts_in(&shop, -180).await;
    let fresh = TestApp::spawn_with(
        &shop.db,
        "600",
        &[
            ("PAYMENT_GATEWAY_URL", shop.sandbox.base.as_str()),
            ("PAYMENT_WEBHOOK_SECRET", SANDBOX_SECRET),
        ],
    )
    .await;
    let booking = BookingId(uuid::Uuid::parse_str(&id).unwrap());
    let link = fresh.url(&fresh.engine.booking_link_path(booking));
    let gone = device().post(&link).send().await.unwrap();
    assert_eq!(gone.status(), StatusCode::GONE);
    let gone: Value = gone.json().await.unwrap();
    assert_eq!(gone["code"], "LINK_EXPIRED", "{gone}");
}

/// The console's resend of a booking's ticket comes once a minute per booking, and every resend
/// waits behind the first messages (a burst of 300 resends delayed other customers' tickets).
/// Claimed one at a time: B's first ticket, then C's — queued after B's resend — then B's resend.
async fn resends_come_once_a_minute_per_booking_and_after_every_first_message(backend: Backend) {
    // The mail worker looks once an hour here: the test claims the messages itself.
    let shop = shop_with(backend, "600", &[("MAIL_POLL_SECONDS", "3600")]).await;
    let op = operator(&shop.app).await;
    let b = shop
        .paid_booking(
            &shop.app.customer(),
            &["H2"],
            r#"{"email": "b@example.com"}"#,
        )
        .await;
    let resend = || op.resend_ticket(json!({ "booking": b }));
    let (status, body) = resend().await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, again) = resend().await;
    assert_eq!(
        (status, again["kind"].as_str()),
        (StatusCode::TOO_MANY_REQUESTS, Some("RateLimited")),
        "{again}"
    );
    let c = shop
        .paid_booking(
            &shop.app.customer(),
            &["H5"],
            r#"{"email": "c@example.com"}"#,
        )
        .await;
    // The first messages are queued by the notification consumer, a moment after the
    // confirmation: all three are waiting before any is claimed.
    let queued = |booking: String| {
        let db = &shop.db;
        async move {
            let id = uuid::Uuid::parse_str(&booking).unwrap();
            on_db!(db, |pool| {
                sqlx::query_scalar::<_, i64>(
                    "select count(*) from outgoing_mail where booking_id = $1",
                )
                .bind(id)
                .fetch_one(&pool)
                .await
                .unwrap()
            })
        }
    };
    let waiting = eventually(
        std::time::Duration::from_secs(20),
        || async { (queued(b.clone()).await, queued(c.clone()).await) },
        |n| *n == (2, 1),
    )
    .await;
    assert_eq!(waiting, (2, 1), "B's first and resend, C's first");
    let store = shop.app.engine.store();
    let mut order = Vec::new();
    for _ in 0..3 {
        let jobs = store
            .claim_mail(None, std::time::Duration::from_secs(60), 1)
            .await
            .unwrap();
        order.extend(jobs.into_iter().map(|j| j.booking.0.to_string()));
    }
    assert_eq!(order, [b.clone(), c, b], "first messages before resends");
}

async fn an_address_the_ticket_could_never_reach_is_refused_at_checkout(backend: Backend) {
    let shop = shop(backend, "600").await;
    let kim = shop.app.customer();
    let hold = shop.hold(&kim, &["J3"]).await;
    let hold = hold["holdId"].as_str().unwrap();
    for (n, address) in ["kim@[192.0.2.1]", "kim@예시.kr"].into_iter().enumerate() {
        let r = kim
            .post(shop.app.url(&format!("/holds/{hold}/checkout")))
            .header("Idempotency-Key", format!("address-{n}"))
            .json(&json!({ "email": address }))
            .send()
            .await
            .unwrap();
        let status = r.status();
        let body: Value = r.json().await.unwrap();
        assert_eq!(
            (status, body["code"].as_str()),
            (
                StatusCode::UNPROCESSABLE_ENTITY,
                Some("EMAIL_UNDELIVERABLE")
            ),
            "{address}: {body}"
        );
        assert!(body["error"].as_str().unwrap().contains("xn--"), "{body}");
    }
    assert_eq!(shop.stored(hold).await, (0, 0), "nothing kept");
}
