//! A staff session locked at a kiosk: nothing but unlocking or signing out until the member's
//! PIN unlocks it; PIN guesses count towards the account's lockout, which ends the session.

use crate::support::*;
use reqwest::StatusCode;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_locked_session_waits_for_its_pin_and_pin_guessing_ends_it() {
    let db = TestDb::new(Backend::Sqlite).await;
    let app = TestApp::spawn_with(
        &db,
        "600",
        &[("STAFF_LOCK_AFTER", "3"), ("STAFF_LOCK_SECONDS", "60")],
    )
    .await;
    let kiosk = operator(&app).await;
    let me = |client: &reqwest::Client| {
        let client = client.clone();
        let url = app.url("/api/staff_me");
        async move {
            let r = client.post(url).json(&json!({})).send().await.unwrap();
            r.status()
        }
    };

    // Without a PIN, a locked session can only be signed out of.
    assert_eq!(
        post_fn(&kiosk, &app, "staff_lock", json!({})).await.0,
        StatusCode::OK
    );
    assert_eq!(me(&kiosk).await, StatusCode::LOCKED);
    let (status, body) = post_fn(&kiosk, &app, "staff_unlock", json!({ "pin": "1234" })).await;
    assert_eq!(
        (status, body["kind"].as_str()),
        (StatusCode::BAD_REQUEST, Some("InvalidRequest")),
        "{body}"
    );
    assert_eq!(
        post_fn(&kiosk, &app, "staff_sign_out", json!({})).await.0,
        StatusCode::OK
    );
    assert_eq!(me(&kiosk).await, StatusCode::UNAUTHORIZED);

    // A PIN is set with the password, and is 4 to 8 digits.
    let kiosk = operator(&app).await;
    let set = |password: &str, pin: &str| json!({ "password": password, "pin": pin });
    let (status, _) = post_fn(
        &kiosk,
        &app,
        "staff_set_pin",
        set("not the password", "4321"),
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, _) = post_fn(
        &kiosk,
        &app,
        "staff_set_pin",
        set(OPERATOR_PASSWORD, "12a4"),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(
        post_fn(
            &kiosk,
            &app,
            "staff_set_pin",
            set(OPERATOR_PASSWORD, "4321")
        )
        .await
        .0,
        StatusCode::OK
    );

    // Locked, every staff action waits; a wrong PIN is refused, the right one unlocks.
    assert_eq!(
        post_fn(&kiosk, &app, "staff_lock", json!({})).await.0,
        StatusCode::OK
    );
    let (status, body) = post_fn(&kiosk, &app, "sales_figures", json!({})).await;
    assert_eq!(
        (status, body["kind"].as_str()),
        (StatusCode::LOCKED, Some("StaffSessionLocked"))
    );
    let (status, body) = post_fn(&kiosk, &app, "staff_unlock", json!({ "pin": "0000" })).await;
    assert_eq!(
        (status, body["kind"].as_str()),
        (StatusCode::UNAUTHORIZED, Some("WrongPin"))
    );
    assert_eq!(
        post_fn(&kiosk, &app, "staff_unlock", json!({ "pin": "4321" }))
            .await
            .0,
        StatusCode::OK
    );
    assert_eq!(me(&kiosk).await, StatusCode::OK);
    let (_, audit) = post_fn(&kiosk, &app, "audit_log", json!({})).await;
    let actions: Vec<&str> = audit
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["action"].as_str().unwrap())
        .take(4)
        .collect();
    assert_eq!(
        actions,
        [
            "session_unlocked",
            "unlock_failed",
            "session_locked",
            "pin_set"
        ]
    );

    // The unlock forgot the earlier failure: three wrong PINs in a row lock the account, and
    // the third ends the session, so the right PIN no longer helps.
    assert_eq!(
        post_fn(&kiosk, &app, "staff_lock", json!({})).await.0,
        StatusCode::OK
    );
    for _ in 0..2 {
        let (status, _) = post_fn(&kiosk, &app, "staff_unlock", json!({ "pin": "1111" })).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
    }
    let (status, body) = post_fn(&kiosk, &app, "staff_unlock", json!({ "pin": "1111" })).await;
    assert_eq!(
        (status, body["kind"].as_str()),
        (StatusCode::TOO_MANY_REQUESTS, Some("SignInLocked")),
        "{body}"
    );
    let (status, body) = post_fn(&kiosk, &app, "staff_unlock", json!({ "pin": "4321" })).await;
    assert_eq!(
        (status, body["kind"].as_str()),
        (StatusCode::UNAUTHORIZED, Some("StaffSignInRequired"))
    );
    assert_eq!(me(&kiosk).await, StatusCode::UNAUTHORIZED);
    // The account is locked for the password too.
    let r = app
        .customer()
        .post(app.url("/api/staff_sign_in"))
        .json(&json!({ "name": "operator", "password": OPERATOR_PASSWORD }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::TOO_MANY_REQUESTS);
    db.drop_database().await;
}
