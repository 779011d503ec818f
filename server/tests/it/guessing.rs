//! Guessing staff passwords and PINs is slowed without handing anyone a switch that locks a
//! member out: a browser the member signed in on counts its own failures (with waits); any other
//! try is counted per account and address and per account, never refused, and past the free
//! tries needs a proof of work a bit harder with each failure; a kiosk's PIN is counted apart
//! from sign-ins; a supervisor's PIN is counted per clerk asking, one check at a time, and every
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
) -> (StatusCode, String, Session) {
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

/// The seconds-old figure of a counter in `/metrics`.
async fn metric(app: &TestApp, name: &str) -> u64 {
    get_text(app.url("/metrics"))
        .await
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{name} ")))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("{name} in /metrics"))
}

/// A stranger sends wrong passwords for kim from many addresses, to two instances: past the
/// free tries every try needs a proof of work growing a bit with each failure, and is never
/// refused; kim's right password never fails — at once from the browser she signed in on
/// before, after a second's work from a new browser anywhere (her kiosk's neighbour's address
/// too). A known browser's own failures slow that browser alone. The control: the stranger's
/// guesses cost more work each time (the test would catch a proof that did not grow).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_stranger_can_never_make_a_member_s_right_password_fail() {
    let db = TestDb::new(Backend::Postgres).await;
    let vars = [
        TRUST_LOCAL,
        ("STAFF_LOCK_AFTER", "2"),
        ("STAFF_LOCK_SECONDS", "60"),
    ];
    let app = TestApp::spawn_with(&db, "600", &vars).await;
    // A second instance on the same database: the counts are shared, not per process.
    let other = TestApp::spawn_with(&db, "600", &vars).await;
    add(&app, "kim", StaffRole::Clerk).await;
    let kiosk = "198.51.100.7";
    // Kim signed in on her kiosk's browser before (it keeps its device cookie).
    let kim_s_kiosk = app.customer();
    let (status, _, asked) = sign_in_solving(&app, &kim_s_kiosk, "kim", PASSWORD, kiosk).await;
    assert_eq!((status, asked.len()), (StatusCode::OK, 0));

    // Arrange: a stranger, from ten addresses (her kiosk's among them), tries wrong passwords.
    let mut kinds = Vec::new();
    let mut bits = Vec::new();
    for n in 0..14 {
        let instance = if n % 2 == 0 { &app } else { &other };
        let from = if n == 3 {
            kiosk.to_string()
        } else {
            format!("203.0.113.{}", n % 10)
        };
        let (_, kind, asked) =
            sign_in_solving(instance, &app.customer(), "kim", "a wrong password!", &from).await;
        kinds.push(kind);
        bits.push(asked.last().copied().unwrap_or(0));
    }
    // Nine free from anywhere (four times STAFF_LOCK_AFTER, and the ninth with them counted),
    // then a proof a bit harder each time; every guess was checked, none refused.
    assert!(kinds.iter().all(|k| k == "SignInFailed"), "{kinds:?}");
    assert_eq!(
        bits,
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 12, 13, 14, 15, 16],
        "free tries, then each guess costs twice the work of the one before"
    );

    // Act and assert: kim's right password. From her kiosk's browser: at once.
    let (status, _, asked) = sign_in_solving(&other, &kim_s_kiosk, "kim", PASSWORD, kiosk).await;
    assert_eq!((status, asked), (StatusCode::OK, vec![]), "her own browser");
    // From a new browser at an address she never used, and at one the stranger used: some
    // work, then in.
    for from in ["192.0.2.99", "203.0.113.1"] {
        let (status, kind, asked) =
            sign_in_solving(&app, &app.customer(), "kim", PASSWORD, from).await;
        assert_eq!(status, StatusCode::OK, "{from}: {kind}");
        assert!(
            !asked.is_empty() && asked.iter().all(|b| *b <= 20),
            "{from}: {asked:?}"
        );
    }
    // An unknown name is answered exactly as an account is: the same work asked.
    let (_, kind, asked) = sign_in_solving(
        &app,
        &app.customer(),
        "nobody",
        "a wrong password!",
        "192.0.2.5",
    )
    .await;
    assert_eq!(
        (kind.as_str(), asked.is_empty()),
        ("SignInFailed", true),
        "fresh name: free"
    );

    // A browser she signed in on is slowed by its own failures alone: after two free, it waits;
    // a new browser of hers does not.
    let mut kinds = Vec::new();
    for _ in 0..4 {
        let (_, kind, _) = sign_in_solving(&app, &kim_s_kiosk, "kim", "my own typo!", kiosk).await;
        kinds.push(kind);
    }
    assert_eq!(
        kinds,
        [
            "SignInFailed",
            "SignInFailed",
            "SignInFailed",
            "SignInLocked"
        ],
        "the known browser's own count"
    );
    let (status, _, _) = sign_in_solving(&app, &app.customer(), "kim", PASSWORD, kiosk).await;
    assert_eq!(status, StatusCode::OK, "not the others");

    // Refusals unchecked are counted, not written to the audit log one line each.
    let challenged = metric(&app, "seats_staff_sign_ins_challenged_total").await
        + metric(&other, "seats_staff_sign_ins_challenged_total").await;
    assert!(challenged >= 7, "{challenged} challenged");
    assert!(metric(&app, "seats_staff_sign_ins_refused_total").await >= 1);
    let (_, audit) = operator(&app).await.audit_log(json!({})).await;
    assert!(
        !audit
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l["action"] == "sign_in_refused"),
        "{audit}"
    );
    // `server staff unlock` forgets every count: a new browser signs in with no work.
    let out = staff::command(
        &db.store,
        &["unlock".into(), "kim".into()],
        &mut NoPasswords,
    )
    .await
    .unwrap();
    assert!(out.contains("kim may sign in again"), "{out}");
    let (status, _, asked) =
        sign_in_solving(&app, &app.customer(), "kim", PASSWORD, "203.0.113.2").await;
    assert_eq!((status, asked), (StatusCode::OK, vec![]), "unlocked");
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

    let (status, body) = here
        .staff_change_password(change("not it at all", new))
        .await;
    assert_eq!(
        (status, body["kind"].as_str()),
        (StatusCode::UNAUTHORIZED, Some("SignInFailed"))
    );
    let (status, body) = here.staff_change_password(change(PASSWORD, "short")).await;
    assert_eq!(
        (status, body["kind"].as_str()),
        (StatusCode::BAD_REQUEST, Some("Invalid"))
    );
    let (status, body) = here.staff_change_password(change(PASSWORD, new)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        here.staff_me(json!({})).await.0,
        StatusCode::OK,
        "this one stays"
    );
    assert_eq!(
        elsewhere.staff_me(json!({})).await.0,
        StatusCode::UNAUTHORIZED,
        "the other session ended"
    );
    let (status, _, _) = sign_in_from(&app, "kim", PASSWORD, "127.0.0.1").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "the old password is gone");
    let again = signed_in(&app, "kim", new).await;

    // Wrong current passwords are counted like sign-ins (no oracle), so is setting a PIN.
    let mut kinds = Vec::new();
    for _ in 0..5 {
        let (_, body) = again
            .staff_set_pin(json!({ "password": "a guess, a guess", "pin": "1234" }))
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
        &db.store,
        &["sign-out".into(), "kim".into()],
        &mut NoPasswords,
    )
    .await
    .unwrap();
    assert_eq!(out, "2 sessions of kim ended");
    assert_eq!(here.staff_me(json!({})).await.0, StatusCode::UNAUTHORIZED);
    let third = "kim's third password, at last";
    let out = staff::command(
        &db.store,
        &["passwd".into(), "kim".into()],
        &mut Given(third),
    )
    .await
    .unwrap();
    assert!(out.starts_with("new password set for kim"), "{out}");
    signed_in(&app, "kim", third).await;
    let (_, audit) = operator(&app).await.audit_log(json!({})).await;
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
    let (status, _) = kiosk
        .staff_set_pin(json!({ "password": PASSWORD, "pin": "4321" }))
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(kiosk.staff_lock(json!({})).await.0, StatusCode::OK);
    // A stranger's wrong passwords for kim…
    for _ in 0..8 {
        sign_in_from(&app, "kim", "a wrong password!", "203.0.113.50").await;
    }
    // …do not touch her locked kiosk: the right PIN unlocks it.
    let unlock = |pin: &str| kiosk.staff_unlock(json!({ "pin": pin }));
    assert_eq!(
        unlock("4321").await.0,
        StatusCode::OK,
        "unlocked despite the stranger"
    );
    assert_eq!(kiosk.staff_lock(json!({})).await.0, StatusCode::OK);
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
        kiosk.staff_me(json!({})).await.0,
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
    assert_eq!(kiosk.staff_me(json!({})).await.0, StatusCode::UNAUTHORIZED);
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
    // (Past the free tries, a try is asked a proof of work before any hashing: 403.)
    assert!(
        statuses.iter().all(|s| matches!(
            *s,
            StatusCode::UNAUTHORIZED | StatusCode::TOO_MANY_REQUESTS | StatusCode::FORBIDDEN
        )),
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
    let (status, body) = boss
        .staff_reset_pin(json!({ "member": "kim", "pin": "12a4" }))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let (status, body) = kiosk
        .staff_reset_pin(json!({ "member": "kim", "pin": "1234" }))
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "only operators: {body}");
    let (status, body) = boss
        .staff_reset_pin(json!({ "member": "kim", "pin": "8642" }))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (_, accounts) = boss.staff_accounts(json!({})).await;
    let kim = accounts
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == "kim")
        .unwrap();
    assert_eq!(kim["hasPin"], true);
    assert_eq!(kiosk.staff_lock(json!({})).await.0, StatusCode::OK);
    let (status, _) = kiosk.staff_unlock(json!({ "pin": "8642" })).await;
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
    let (status, _) = boss
        .staff_reset_pin(json!({ "member": "kim", "pin": null }))
        .await;
    assert_eq!(status, StatusCode::OK);
    let (_, accounts) = boss.staff_accounts(json!({})).await;
    let kim = accounts
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == "kim")
        .unwrap();
    assert_eq!(kim["hasPin"], false);
    db.drop_database().await;
}
