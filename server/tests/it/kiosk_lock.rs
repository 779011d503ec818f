//! A staff session locked at a kiosk: nothing but unlocking or signing out until the member's
//! PIN unlocks it (wrong PINs are slowed and end the session: `guessing`).

use crate::support::*;
use reqwest::StatusCode;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_locked_session_waits_for_its_pin() {
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
    assert_eq!(kiosk.staff_lock(json!({})).await.0, StatusCode::OK);
    assert_eq!(me(&kiosk).await, StatusCode::LOCKED);
    let (status, body) = kiosk.staff_unlock(json!({ "pin": "1234" })).await;
    assert_eq!(
        (status, body["kind"].as_str()),
        (StatusCode::BAD_REQUEST, Some("Invalid")),
        "{body}"
    );
    assert_eq!(kiosk.staff_sign_out(json!({})).await.0, StatusCode::OK);
    assert_eq!(me(&kiosk).await, StatusCode::UNAUTHORIZED);

    // A PIN is set with the password, and is 4 to 8 digits.
    let kiosk = operator(&app).await;
    let set = |password: &str, pin: &str| json!({ "password": password, "pin": pin });
    let (status, _) = kiosk.staff_set_pin(set("not the password", "4321")).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, _) = kiosk.staff_set_pin(set(OPERATOR_PASSWORD, "12a4")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(
        kiosk.staff_set_pin(set(OPERATOR_PASSWORD, "4321")).await.0,
        StatusCode::OK
    );

    // Locked, every staff action waits; a wrong PIN is refused, the right one unlocks.
    assert_eq!(kiosk.staff_lock(json!({})).await.0, StatusCode::OK);
    let (status, body) = kiosk.sales_figures(json!({})).await;
    assert_eq!(
        (status, body["kind"].as_str()),
        (StatusCode::LOCKED, Some("StaffSessionLocked"))
    );
    let (status, body) = kiosk.staff_unlock(json!({ "pin": "0000" })).await;
    assert_eq!(
        (status, body["kind"].as_str()),
        (StatusCode::UNAUTHORIZED, Some("WrongPin"))
    );
    assert_eq!(
        kiosk.staff_unlock(json!({ "pin": "4321" })).await.0,
        StatusCode::OK
    );
    assert_eq!(me(&kiosk).await, StatusCode::OK);
    let (_, audit) = kiosk.audit_log(json!({})).await;
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

    db.drop_database().await;
}
