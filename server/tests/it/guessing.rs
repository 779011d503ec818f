//! Guessing staff passwords and PINs is slowed without handing anyone a switch that locks a
//! member out: failures are counted per account and address (and, less, per account from
//! addresses it never signed in from) with growing waits; a kiosk's PIN is counted apart from
//! sign-ins; a supervisor's PIN is counted before it is checked, one check at a time, and every
//! refusal reads the same; the counts are in the database, so every instance shares them and
//! `server staff unlock` clears them; argon2 runs on a few threads of its own.

use crate::support::*;
use reqwest::StatusCode;
use serde_json::{json, Value};
use server::staff::{self, StaffName, StaffRole};
use server::store::NewStaff;
use std::time::Duration;

const PASSWORD: &str = "kim's long enough password";

async fn add(app: &TestApp, name: &str, role: StaffRole) {
    app.engine
        .store()
        .add_staff(&NewStaff {
            name: StaffName::parse(name).unwrap(),
            role,
            password_hash: staff::hash_secret(PASSWORD),
        })
        .await
        .unwrap()
        .expect("a new name");
}

/// A sign-in of `name` from `address` (the test servers trust 127.0.0.1 as a proxy): the
/// status, the error's kind, the client (with its cookie when it worked).
async fn sign_in_from(
    app: &TestApp,
    name: &str,
    password: &str,
    address: &str,
) -> (StatusCode, String, reqwest::Client) {
    let client = app.customer();
    let r = client
        .post(app.url("/api/staff_sign_in"))
        .header("x-forwarded-for", address)
        .json(&json!({ "name": name, "password": password }))
        .send()
        .await
        .unwrap();
    let status = r.status();
    let body: Value = r.json().await.unwrap_or(Value::Null);
    let kind = body["kind"].as_str().unwrap_or_default().to_string();
    (status, kind, client)
}

const TRUST_LOCAL: (&str, &str) = ("TRUSTED_PROXIES", "127.0.0.1/32");

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_stranger_s_wrong_passwords_slow_the_stranger_and_never_lock_the_member_out() {
    let db = TestDb::new(Backend::Postgres).await;
    let vars = [
        TRUST_LOCAL,
        ("STAFF_LOCK_AFTER", "3"),
        ("STAFF_LOCK_SECONDS", "60"),
    ];
    let app = TestApp::spawn_with(&db, "600", &vars).await;
    // A second instance on the same database: the counts are shared, not per process.
    let other = TestApp::spawn_with(&db, "600", &vars).await;
    add(&app, "kim", StaffRole::Clerk).await;
    let (kiosk, stranger) = ("198.51.100.7", "203.0.113.50");
    // Kim signed in from her kiosk before.
    let (status, _, _) = sign_in_from(&app, "kim", PASSWORD, kiosk).await;
    assert_eq!(status, StatusCode::OK);

    // Arrange: a stranger sends wrong passwords for kim, to both instances.
    let mut kinds = Vec::new();
    for n in 0..6 {
        let instance = if n % 2 == 0 { &app } else { &other };
        kinds.push(
            sign_in_from(instance, "kim", "a wrong password!", stranger)
                .await
                .1,
        );
    }
    assert_eq!(
        kinds,
        [
            "SignInFailed",
            "SignInFailed",
            "SignInFailed",
            "SignInFailed",
            "SignInLocked",
            "SignInLocked"
        ],
        "three free, the fourth starts a wait, on either instance"
    );
    // Act and assert: kim signs in from her kiosk at once; the stranger, even with the right
    // password, waits (the control: the stranger's tries are the ones slowed).
    let (status, _, _) = sign_in_from(&other, "kim", PASSWORD, kiosk).await;
    assert_eq!(status, StatusCode::OK, "the member is not locked out");
    let (status, kind, _) = sign_in_from(&app, "kim", PASSWORD, stranger).await;
    assert_eq!(
        (status, kind.as_str()),
        (StatusCode::TOO_MANY_REQUESTS, "SignInLocked")
    );
    // An unknown name is answered exactly as an account is.
    let mut unknown = Vec::new();
    for _ in 0..5 {
        unknown.push(
            sign_in_from(&app, "nobody", "a wrong password!", "203.0.113.51")
                .await
                .1,
        );
    }
    assert_eq!(
        &unknown[..],
        &kinds[..5],
        "unknown names do not show as unknown"
    );

    // The wait grows: after it, one try, then twice as long.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let r = app
        .customer()
        .post(app.url("/api/staff_sign_in"))
        .header("x-forwarded-for", stranger)
        .json(&json!({ "name": "kim", "password": "wrong again, sadly" }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED, "tried after its wait");
    let r = app
        .customer()
        .post(app.url("/api/staff_sign_in"))
        .header("x-forwarded-for", stranger)
        .json(&json!({ "name": "kim", "password": PASSWORD }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(r.headers()["retry-after"], "2", "twice the first wait");

    // From many addresses kim never used: the account's count from anywhere (five failures so
    // far) slows them all after four times the free tries, still never her kiosk.
    for n in 0..8 {
        let address = format!("192.0.2.{}", 10 + n);
        let (status, _, _) = sign_in_from(&app, "kim", "a wrong password!", &address).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "address {n}");
    }
    let (status, _, _) = sign_in_from(&app, "kim", PASSWORD, "192.0.2.99").await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "a new address waits");
    let (status, _, _) = sign_in_from(&app, "kim", PASSWORD, kiosk).await;
    assert_eq!(status, StatusCode::OK, "her kiosk does not");

    // The refusals are in the audit log; `server staff unlock` forgets every count.
    let (_, audit) = post_fn(&operator(&app).await, &app, "audit_log", json!({})).await;
    let refused = audit
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["staffName"] == "kim" && l["action"] == "sign_in_refused")
        .count();
    assert!(refused >= 2, "{audit}");
    let out = staff::command(
        db.store.as_ref(),
        &["unlock".into(), "kim".into()],
        &mut NoPasswords,
    )
    .await
    .unwrap();
    assert!(out.contains("kim may sign in again"), "{out}");
    let (status, _, _) = sign_in_from(&app, "kim", PASSWORD, stranger).await;
    assert_eq!(status, StatusCode::OK, "unlocked");
    db.drop_database().await;
}

/// For commands that read no password.
struct NoPasswords;

impl staff::PasswordSource for NoPasswords {
    fn password(&mut self, _: &StaffName) -> anyhow::Result<String> {
        anyhow::bail!("no password here")
    }
}

struct Given(&'static str);

impl staff::PasswordSource for Given {
    fn password(&mut self, _: &StaffName) -> anyhow::Result<String> {
        Ok(self.0.to_string())
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sign_in_is_refused_outside_the_allowed_networks() {
    let db = TestDb::new(Backend::Sqlite).await;
    let vars = [TRUST_LOCAL, ("STAFF_SIGN_IN_FROM", "198.51.100.0/24")];
    let app = TestApp::spawn_with(&db, "600", &vars).await;
    let (status, kind, _) = sign_in_from(&app, "operator", OPERATOR_PASSWORD, "203.0.113.5").await;
    assert_eq!(
        (status, kind.as_str()),
        (StatusCode::FORBIDDEN, "SignInNotAllowedHere")
    );
    let (status, _, _) = sign_in_from(&app, "operator", OPERATOR_PASSWORD, "198.51.100.7").await;
    assert_eq!(status, StatusCode::OK);
    db.drop_database().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn passwords_change_in_the_console_and_by_command_and_old_sessions_end() {
    let db = TestDb::new(Backend::Sqlite).await;
    let app = TestApp::spawn_with(&db, "600", &[("STAFF_LOCK_AFTER", "3")]).await;
    add(&app, "kim", StaffRole::Clerk).await;
    let here = signed_in(&app, "kim", PASSWORD).await;
    let elsewhere = signed_in(&app, "kim", PASSWORD).await;
    let change = |current: &str, new: &str| json!({ "current": current, "new": new });
    let new = "kim's brand new password";

    let (status, body) = post_fn(
        &here,
        &app,
        "staff_change_password",
        change("not it at all", new),
    )
    .await;
    assert_eq!(
        (status, body["kind"].as_str()),
        (StatusCode::UNAUTHORIZED, Some("SignInFailed"))
    );
    let (status, body) = post_fn(
        &here,
        &app,
        "staff_change_password",
        change(PASSWORD, "short"),
    )
    .await;
    assert_eq!(
        (status, body["kind"].as_str()),
        (StatusCode::BAD_REQUEST, Some("Invalid"))
    );
    let (status, body) = post_fn(&here, &app, "staff_change_password", change(PASSWORD, new)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        post_fn(&here, &app, "staff_me", json!({})).await.0,
        StatusCode::OK,
        "this one stays"
    );
    assert_eq!(
        post_fn(&elsewhere, &app, "staff_me", json!({})).await.0,
        StatusCode::UNAUTHORIZED,
        "the other session ended"
    );
    let (status, _, _) = sign_in_from(&app, "kim", PASSWORD, "127.0.0.1").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "the old password is gone");
    let again = signed_in(&app, "kim", new).await;

    // Wrong current passwords are counted like sign-ins (no oracle), so is setting a PIN.
    let mut kinds = Vec::new();
    for _ in 0..5 {
        let (_, body) = post_fn(
            &again,
            &app,
            "staff_set_pin",
            json!({ "password": "a guess, a guess", "pin": "1234" }),
        )
        .await;
        kinds.push(body["kind"].as_str().unwrap_or_default().to_string());
    }
    assert_eq!(
        kinds,
        [
            "SignInFailed",
            "SignInFailed",
            "SignInFailed",
            "SignInFailed",
            "SignInLocked"
        ]
    );

    // `server staff sign-out` ends every session; `server staff passwd` sets a password.
    let out = staff::command(
        db.store.as_ref(),
        &["sign-out".into(), "kim".into()],
        &mut NoPasswords,
    )
    .await
    .unwrap();
    assert_eq!(out, "2 sessions of kim ended");
    assert_eq!(
        post_fn(&here, &app, "staff_me", json!({})).await.0,
        StatusCode::UNAUTHORIZED
    );
    let third = "kim's third password, at last";
    let out = staff::command(
        db.store.as_ref(),
        &["passwd".into(), "kim".into()],
        &mut Given(third),
    )
    .await
    .unwrap();
    assert!(out.starts_with("new password set for kim"), "{out}");
    signed_in(&app, "kim", third).await;
    let (_, audit) = post_fn(&operator(&app).await, &app, "audit_log", json!({})).await;
    let kim: Vec<&str> = audit
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["staffName"] == "kim")
        .map(|l| l["action"].as_str().unwrap())
        .collect();
    for action in [
        "password_change_failed",
        "password_changed",
        "pin_set_failed",
        "sign_in_refused",
        "signed_out_everywhere",
    ] {
        assert!(kim.contains(&action), "{action} in {kim:?}");
    }
    db.drop_database().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_kiosk_s_pin_is_counted_apart_from_sign_ins_and_enough_wrong_ones_end_the_session() {
    let db = TestDb::new(Backend::Sqlite).await;
    // Waits of at most 2 s, so that the test reaches the tenth wrong PIN soon.
    let vars = [
        TRUST_LOCAL,
        ("STAFF_LOCK_AFTER", "3"),
        ("STAFF_LOCK_SECONDS", "2"),
    ];
    let app = TestApp::spawn_with(&db, "600", &vars).await;
    add(&app, "kim", StaffRole::Clerk).await;
    let (_, _, kiosk) = sign_in_from(&app, "kim", PASSWORD, "198.51.100.7").await;
    let (status, _) = post_fn(
        &kiosk,
        &app,
        "staff_set_pin",
        json!({ "password": PASSWORD, "pin": "4321" }),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        post_fn(&kiosk, &app, "staff_lock", json!({})).await.0,
        StatusCode::OK
    );
    // A stranger's wrong passwords for kim…
    for _ in 0..8 {
        sign_in_from(&app, "kim", "a wrong password!", "203.0.113.50").await;
    }
    // …do not touch her locked kiosk: the right PIN unlocks it.
    let unlock = |pin: &str| post_fn(&kiosk, &app, "staff_unlock", json!({ "pin": pin }));
    assert_eq!(
        unlock("4321").await.0,
        StatusCode::OK,
        "unlocked despite the stranger"
    );
    assert_eq!(
        post_fn(&kiosk, &app, "staff_lock", json!({})).await.0,
        StatusCode::OK
    );
    // Wrong PINs: three free, then a wait (the right PIN is not even checked during it).
    let mut kinds = Vec::new();
    for pin in ["1111", "2222", "3333", "4444", "4321"] {
        kinds.push(
            unlock(pin).await.1["kind"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
        );
    }
    assert_eq!(
        kinds,
        [
            "WrongPin",
            "WrongPin",
            "WrongPin",
            "WrongPin",
            "SignInLocked"
        ]
    );
    assert_eq!(
        post_fn(&kiosk, &app, "staff_me", json!({})).await.0,
        StatusCode::LOCKED,
        "still kim's session, still locked"
    );
    // After enough wrong PINs (waiting out each wait) the session ends.
    let mut last = String::new();
    for pin in ["5555", "6666", "7777", "8888", "9999", "0000"] {
        loop {
            let (status, body) = unlock(pin).await;
            if status != StatusCode::TOO_MANY_REQUESTS {
                last = body["kind"].as_str().unwrap_or_default().to_string();
                break;
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
        if last == "StaffSignInRequired" {
            break;
        }
    }
    assert_eq!(
        last, "StaffSignInRequired",
        "the tenth wrong PIN ends the session"
    );
    assert_eq!(
        post_fn(&kiosk, &app, "staff_me", json!({})).await.0,
        StatusCode::UNAUTHORIZED
    );
    let (status, _, _) = sign_in_from(&app, "kim", PASSWORD, "198.51.100.7").await;
    assert_eq!(status, StatusCode::OK, "her password still signs her in");
    db.drop_database().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn argon2_runs_on_its_own_few_threads_however_many_sign_ins_arrive() {
    let db = TestDb::new(Backend::Sqlite).await;
    let app = TestApp::spawn_with(&db, "600", &[TRUST_LOCAL]).await;
    let hasher = staff::hashing::Hasher::global();
    let tries = (0..40).map(|n| {
        let app = &app;
        async move {
            sign_in_from(
                app,
                "operator",
                "a wrong password!",
                &format!("192.0.2.{n}"),
            )
            .await
            .0
        }
    });
    let statuses = futures_util::future::join_all(tries).await;
    // Each try was checked (or refused at once when the queue was full), never more at once
    // than there are hash threads.
    assert!(
        statuses
            .iter()
            .all(|s| *s == StatusCode::UNAUTHORIZED || *s == StatusCode::TOO_MANY_REQUESTS),
        "{statuses:?}"
    );
    assert!(statuses.contains(&StatusCode::UNAUTHORIZED));
    assert!(
        (1..=hasher.workers()).contains(&hasher.peak()),
        "peak {} of {} threads",
        hasher.peak(),
        hasher.workers()
    );
    db.drop_database().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_operator_sets_a_member_s_pin_which_then_unlocks_her_kiosk() {
    let db = TestDb::new(Backend::Sqlite).await;
    let app = TestApp::spawn_with(&db, "600", &[("STAFF_LOCK_AFTER", "3")]).await;
    add(&app, "kim", StaffRole::Clerk).await;
    let kiosk = signed_in(&app, "kim", PASSWORD).await;
    let boss = operator(&app).await;
    let (status, body) = post_fn(
        &boss,
        &app,
        "staff_reset_pin",
        json!({ "member": "kim", "pin": "12a4" }),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let (status, body) = post_fn(
        &kiosk,
        &app,
        "staff_reset_pin",
        json!({ "member": "kim", "pin": "1234" }),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "only operators: {body}");
    let (status, body) = post_fn(
        &boss,
        &app,
        "staff_reset_pin",
        json!({ "member": "kim", "pin": "8642" }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (_, accounts) = post_fn(&boss, &app, "staff_accounts", json!({})).await;
    let kim = accounts
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == "kim")
        .unwrap();
    assert_eq!(kim["hasPin"], true);
    assert_eq!(
        post_fn(&kiosk, &app, "staff_lock", json!({})).await.0,
        StatusCode::OK
    );
    let (status, _) = post_fn(&kiosk, &app, "staff_unlock", json!({ "pin": "8642" })).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "the operator's PIN unlocks her kiosk"
    );
    let lines = db.store.staff_audit(20).await.unwrap();
    assert!(
        lines
            .iter()
            .any(|l| l.action == "pin_reset" && l.detail.contains("kim")),
        "{lines:?}"
    );
    // Removed: no PIN any more.
    let (status, _) = post_fn(
        &boss,
        &app,
        "staff_reset_pin",
        json!({ "member": "kim", "pin": null }),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let (_, accounts) = post_fn(&boss, &app, "staff_accounts", json!({})).await;
    let kim = accounts
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == "kim")
        .unwrap();
    assert_eq!(kim["hasPin"], false);
    db.drop_database().await;
}
