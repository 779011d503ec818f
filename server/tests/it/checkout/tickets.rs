//! Tickets at the door across ticket-key rotations.

use super::*;

on_both_backends!(tickets_stay_valid_when_ticket_keys_rotate_or_the_session_secret_changes,);

/// A ticket names its signing key: rotated keys (the new one first, the old one kept) still
/// verify it, a different SESSION_SECRET changes nothing, and only retiring its key voids it.
async fn tickets_stay_valid_when_ticket_keys_rotate_or_the_session_secret_changes(
    backend: Backend,
) {
    let shop = shop(backend, "600").await;
    let alice = shop.app.customer();
    let held = shop.hold(&alice, &["B9"]).await;
    let hold = held["holdId"].as_str().unwrap();
    let (_, _, checkout) = shop.checkout(&alice, hold, Some("k")).await;
    shop.press(&checkout, "pay").await;
    let booking = checkout["bookingId"].as_str().unwrap();
    let view = shop.ticket_issued(&alice, booking).await;
    assert!(!view["ticketIssuedAt"].is_null());
    let code = shop.ticket_code(booking).await.unwrap();
    assert!(code.starts_with("SEATS2-t1-"), "{code}");
    let door = |app: &TestApp| {
        let url = app.url(&format!("/tickets/{code}"));
        async move { reqwest::get(url).await.unwrap().status() }
    };
    assert_eq!(door(&shop.app).await, StatusCode::OK);
    let (_, old) = TICKET_KEYS.split_once(':').unwrap();
    let rotated = format!("t2:a newer ticket signing key of 32+ characters,t1:{old}");
    let other_session = "another session secret, also 32+ characters long";
    let next = TestApp::spawn_with(
        &shop.db,
        "600",
        &[
            ("TICKET_KEYS", &rotated),
            ("SESSION_SECRET", other_session),
            ("PAYMENT_GATEWAY_URL", &shop.sandbox.base),
        ],
    )
    .await;
    assert_eq!(door(&next).await, StatusCode::OK, "rotated: still valid");
    let retired = TestApp::spawn_with(
        &shop.db,
        "600",
        &[
            (
                "TICKET_KEYS",
                "t2:a newer ticket signing key of 32+ characters",
            ),
            ("PAYMENT_GATEWAY_URL", &shop.sandbox.base),
        ],
    )
    .await;
    assert_eq!(
        door(&retired).await,
        StatusCode::NOT_FOUND,
        "its key retired"
    );
}
