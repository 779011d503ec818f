//! Staff sign-in over HTTP and its store contract: sessions (cookie, idle timeout, lifetime,
//! sign-out, disabled accounts), the count of guesses (its store contract; `guessing` has the
//! rest) and the per-address limit, the cross-site guard,
//! role checks on every staff action (a table that must name every server function), API
//! tokens for the sales report, and the audit log.

use crate::support::*;
use app::domain::StaffRole;
use reqwest::StatusCode;
use serde_json::{json, Value};
use server::staff::{self, StaffName};
use server::store::{At, NewAuditEntry, NewStaff, NewStaffSession, ThrottleRule, Throttled};
use std::time::Duration;

on_both_backends!(
    sessions_live_until_idle_expired_or_ended_and_guesses_wait_longer_each_time,
    every_staff_action_answers_401_without_a_session_and_403_to_other_roles,
    an_api_token_reads_the_sales_report_until_it_is_revoked_and_the_audit_log_says_who,
);

fn password_of(name: &str) -> String {
    format!("{name}'s long enough password")
}

async fn add_staff(db: &TestDb, name: &str, role: StaffRole) -> i64 {
    let new = NewStaff {
        name: StaffName::parse(name).unwrap(),
        role,
        password_hash: staff::hash_secret(&password_of(name)),
    };
    db.store.add_staff(&new).await.unwrap().expect("a new name")
}

async fn sign_in(
    client: &reqwest::Client,
    app: &TestApp,
    name: &str,
    password: &str,
) -> reqwest::Response {
    client
        .post(app.url("/api/staff_sign_in"))
        .json(&json!({ "name": name, "password": password }))
        .send()
        .await
        .unwrap()
}

async fn call(
    client: &reqwest::Client,
    app: &TestApp,
    method: &str,
    path: &str,
    body: &str,
) -> reqwest::Response {
    let request = match method {
        // The console's pages as a browser asks for them.
        "GET" if path.starts_with("/admin") => {
            client.get(app.url(path)).header("accept", "text/html")
        }
        "GET" => client.get(app.url(path)),
        _ => client
            .post(app.url(path))
            .header("content-type", "application/json")
            .body(body.to_string()),
    };
    request.send().await.unwrap()
}

/// The status and error code of an answer: the REST API's `code`, or a server function's
/// `kind` in the same spelling (`StaffSignInRequired` → `STAFF_SIGN_IN_REQUIRED`).
async fn code_of(r: reqwest::Response) -> (StatusCode, String) {
    let status = r.status();
    let body: Value = r.json().await.unwrap_or(Value::Null);
    let code = match (body["code"].as_str(), body["kind"].as_str()) {
        (Some(code), _) => code.to_string(),
        (None, Some(kind)) => kind
            .chars()
            .enumerate()
            .fold(String::new(), |mut out, (i, c)| {
                if i > 0 && c.is_ascii_uppercase() {
                    out.push('_');
                }
                out.push(c.to_ascii_uppercase());
                out
            }),
        (None, None) => String::new(),
    };
    (status, code)
}

fn at(seconds: i64) -> At {
    At(chrono::DateTime::from_timestamp(1_900_000_000 + seconds, 0).unwrap())
}

async fn sessions_live_until_idle_expired_or_ended_and_guesses_wait_longer_each_time(
    backend: Backend,
) {
    let db = TestDb::new(backend).await;
    let store = &db.store;
    let kim = add_staff(&db, "kim", StaffRole::Clerk).await;
    let session = |hash: &'static str, at_s: i64, life: i64| NewStaffSession {
        token_hash: hash,
        staff_id: kim,
        at: at(at_s),
        expires_at: at(at_s + life),
        address: Some("192.0.2.7"),
        device: None,
    };
    store
        .open_staff_session(&session("a", 0, 100))
        .await
        .unwrap();
    let live = |hash: &'static str, now: i64, idle: i64| async move {
        store
            .live_staff_session(hash, at(now), at(now - idle))
            .await
            .unwrap()
            .map(|s| (s.member.name, s.member.role))
    };
    assert_eq!(
        live("a", 10, 30).await,
        Some(("kim".into(), StaffRole::Clerk))
    );
    assert_eq!(live("a", 31, 30).await, None, "idle for 31 s of 30");
    store.touch_staff_session("a", at(25)).await.unwrap();
    assert!(
        live("a", 50, 30).await.is_some(),
        "used at 25: not idle at 50"
    );
    assert_eq!(live("a", 100, 1000).await, None, "past its lifetime");
    assert_eq!(live("b", 10, 30).await, None, "no such session");
    assert!(store.end_staff_session("a", at(60)).await.unwrap());
    assert!(
        !store.end_staff_session("a", at(61)).await.unwrap(),
        "ended once"
    );
    assert_eq!(live("a", 61, 1000).await, None, "signed out");
    store
        .open_staff_session(&session("c", 0, 100))
        .await
        .unwrap();
    assert!(store.disable_staff("kim").await.unwrap());
    assert_eq!(live("c", 1, 1000).await, None, "the account is disabled");

    // Guesses: a key's first failures are free, then it waits, longer each time; an attempt
    // while it waits changes nothing; a right secret forgets the key of its address and gives
    // its try back to the key of every address.
    let lee = add_staff(&db, "lee", StaffRole::Door).await;
    let rule = ThrottleRule {
        free: 3,
        first: Duration::from_secs(1),
        max: Duration::from_secs(60),
    };
    let key = |k: &str| Throttled {
        key: k.into(),
        rule,
    };
    let tries = [key("pw:lee@192.0.2.1"), key("pw:lee@*")];
    for n in 1..=4 {
        let counted = store.throttle_attempt(&tries, at(1000)).await.unwrap();
        assert_eq!(counted, Ok(()), "try {n}");
    }
    assert_eq!(
        store.throttle_attempt(&tries, at(1000)).await.unwrap(),
        Err(at(1001).0),
        "the fourth failure makes the keys wait a second"
    );
    let failures = |k: &'static str| async move { store.throttle_failures(k).await.unwrap() };
    assert_eq!(
        failures("pw:lee@*").await,
        4,
        "a refused try is not counted"
    );
    let counted = store.throttle_attempt(&tries, at(1001)).await.unwrap();
    assert_eq!(counted, Ok(()));
    assert_eq!(
        store.throttle_attempt(&tries[..1], at(1002)).await.unwrap(),
        Err(at(1003).0),
        "the fifth waits two seconds"
    );
    let other = [key("pw:lee@198.51.100.2")];
    let counted = store.throttle_attempt(&other, at(1002)).await.unwrap();
    assert_eq!(counted, Ok(()), "another address's key is its own");
    store
        .throttle_passed(&["pw:lee@192.0.2.1".into()], &["pw:lee@*".into()])
        .await
        .unwrap();
    assert_eq!(failures("pw:lee@192.0.2.1").await, 0);
    assert_eq!(failures("pw:lee@*").await, 4);
    let cleared = store.throttle_clear(&["pw:lee@".into()]).await.unwrap();
    assert_eq!(cleared, 2, "lee's two keys left");
    assert_eq!(failures("pw:lee@*").await, 0);

    // Twenty tries at once are counted one after the other: the free ones and the one that
    // starts the wait get through, no more. (Control: spaced past each wait, every try does.)
    let burst = [key("pin:sue@*")];
    let answers =
        futures_util::future::join_all((0..20).map(|_| store.throttle_attempt(&burst, at(3000))))
            .await;
    let through = answers.iter().filter(|a| matches!(a, Ok(Ok(())))).count();
    assert_eq!(through, 4, "{answers:?}");
    assert_eq!(failures("pin:sue@*").await, 4);
    let spaced = [key("pin:sue@192.0.2.9")];
    let mut t = 4000;
    for n in 0..8 {
        assert_eq!(
            store.throttle_attempt(&spaced, at(t)).await.unwrap(),
            Ok(()),
            "try {n}"
        );
        t += rule.wait_after(n + 1).as_secs() as i64;
    }
    assert_eq!(
        store.throttle_purge(at(3500)).await.unwrap(),
        1,
        "the burst's key is old"
    );

    // The audit log, newest first.
    for (n, action) in ["sign_in", "api_token_created"].into_iter().enumerate() {
        let entry = NewAuditEntry {
            at: at(2000 + n as i64),
            staff_id: Some(lee),
            staff_name: "lee",
            action,
            detail: "d",
            // The first with facts, the second as lines were written before facts were kept.
            facts: (n == 0).then(|| r#"[{"token":7},"wrongPassword"]"#.to_string()),
            address: None,
        };
        store.record_staff_action(&entry).await.unwrap();
    }
    let lines = store.staff_audit(10).await.unwrap();
    let actions: Vec<&str> = lines.iter().map(|l| l.action.as_str()).collect();
    assert_eq!(actions, ["api_token_created", "sign_in"]);
    assert_eq!(lines[0].facts, []);
    assert_eq!(
        lines[1].facts,
        [
            app::domain::AuditFact::Token(7),
            app::domain::AuditFact::WrongPassword
        ]
    );
    assert_eq!(store.staff_audit(1).await.unwrap().len(), 1);
    db.drop_database().await;
}

const COUNTER: [StaffRole; 2] = [StaffRole::Clerk, StaffRole::Supervisor];
const DOOR: [StaffRole; 3] = [StaffRole::Door, StaffRole::Clerk, StaffRole::Supervisor];

/// Every staff action: method, path, body, the roles besides the operator that may use it.
/// The console's pages answer with the status of the server function their data comes from.
const STAFF_ACTIONS: &[(&str, &str, &str, &[StaffRole])] = &[
    ("GET", "/admin", "", &StaffRole::ALL),
    ("GET", "/admin/halls", "", &[]),
    ("GET", "/admin/sales", "", &[]),
    ("GET", "/admin/audit", "", &[]),
    ("GET", "/admin/tokens", "", &[]),
    ("GET", "/admin/bookings", "", &[StaffRole::Supervisor]),
    (
        "POST",
        "/api/find_booking",
        r#"{"query":"25 G7"}"#,
        &[StaffRole::Supervisor],
    ),
    ("POST", "/api/outgoing_mail", "{}", &[StaffRole::Supervisor]),
    (
        "POST",
        "/api/resend_ticket",
        r#"{"booking":"00000000"}"#,
        &[StaffRole::Supervisor],
    ),
    ("POST", "/api/staff_me", "{}", &StaffRole::ALL),
    ("POST", "/api/sales_figures", "{}", &[]),
    ("POST", "/api/audit_log", "{}", &[]),
    ("POST", "/api/api_tokens", "{}", &[]),
    ("POST", "/api/create_api_token", r#"{"name":"probe"}"#, &[]),
    ("POST", "/api/revoke_api_token", r#"{"id":999999}"#, &[]),
    ("POST", "/api/halls", "{}", &[]),
    ("POST", "/api/showtime_figures", "{}", &[]),
    ("POST", "/api/export_hall", r#"{"hall_id":999999}"#, &[]),
    (
        "POST",
        "/api/import_hall",
        r#"{"plan":{"name":"","categories":[],"rows":[]}}"#,
        &[],
    ),
    (
        "POST",
        "/api/schedule_showtime",
        r#"{"hall_id":999999,"title":"x","starts_at":"2099-01-01T00:00:00Z"}"#,
        &[],
    ),
    (
        "POST",
        "/api/cancel_showtime",
        r#"{"showtime_id":999999}"#,
        &[],
    ),
    (
        "POST",
        "/api/block_seats",
        r#"{"showtime_id":999999,"seats":["A1"],"block":"house"}"#,
        &[],
    ),
    // The box office: clerks and supervisors; approvals and the shifts report: supervisors.
    ("POST", "/api/box_office_shift", "{}", &COUNTER),
    ("POST", "/api/approvers", "{}", &COUNTER),
    (
        "POST",
        "/api/open_shift",
        r#"{"register":"","float":0}"#,
        &COUNTER,
    ),
    (
        "POST",
        "/api/close_shift",
        r#"{"shift_id":999999,"counted":0}"#,
        &COUNTER,
    ),
    ("POST", "/api/shifts_report", "{}", &[StaffRole::Supervisor]),
    ("POST", "/api/refunds_owed", "{}", &[StaffRole::Supervisor]),
    (
        "POST",
        "/api/clerk_hold",
        r#"{"showtime_id":999999,"seats":null,"best":{"count":1}}"#,
        &COUNTER,
    ),
    ("POST", "/api/clerk_release", "{}", &COUNTER),
    (
        "POST",
        "/api/sell_at_counter",
        r#"{"sale":{"holdId":"00000000-0001-8000-8000-000000000000","tender":"cash","tendered":1}}"#,
        &COUNTER,
    ),
    (
        "POST",
        "/api/refund_at_counter",
        r#"{"refund":{"booking":"not a booking"}}"#,
        &COUNTER,
    ),
    (
        "POST",
        "/api/exchange_at_counter",
        r#"{"exchange":{"booking":"not a booking","seats":["A1"],"holdId":"00000000-0001-8000-8000-000000000000"}}"#,
        &COUNTER,
    ),
    (
        "POST",
        "/api/print_ticket",
        r#"{"booking":"not a booking","approval":null}"#,
        &COUNTER,
    ),
    // The door: door staff, clerks and supervisors.
    (
        "POST",
        "/api/check_in_ticket",
        r#"{"code":"not a ticket","at":{}}"#,
        &DOOR,
    ),
    ("POST", "/tickets/not-a-ticket/check-in", "{}", &DOOR),
    ("GET", "/reports/sales", "", &[]),
    ("GET", "/reports/sales.csv", "", &[]),
    // A PIN that is not one: refused with 400 after the role check.
    (
        "POST",
        "/api/staff_set_pin",
        r#"{"password":"x","pin":"1"}"#,
        &StaffRole::ALL,
    ),
    (
        "POST",
        "/api/staff_unlock",
        r#"{"pin":"1234"}"#,
        &StaffRole::ALL,
    ),
    // A new password too short: refused with 400 before the current one is looked at.
    (
        "POST",
        "/api/staff_change_password",
        r#"{"current":"x","new":"short"}"#,
        &StaffRole::ALL,
    ),
    ("POST", "/api/staff_accounts", "{}", &[]),
    ("POST", "/api/waiting_room", r#"{"showtime_id":1}"#, &[]),
    (
        "POST",
        "/api/set_waiting_room",
        r#"{"showtime_id":1,"on":false,"max_active":5,"admit_per_minute":5}"#,
        &[],
    ),
    (
        "POST",
        "/api/reset_waiting_room",
        r#"{"showtime_id":1}"#,
        &[],
    ),
    (
        "POST",
        "/api/staff_reset_pin",
        r#"{"member":"nobody","pin":"1"}"#,
        &[],
    ),
    (
        "POST",
        "/api/staff_add",
        r#"{"member":"","role":"clerk","password":"short"}"#,
        &[],
    ),
    ("POST", "/api/staff_disable", r#"{"member":"nobody"}"#, &[]),
    // Last: it locks the session it is called with.
    ("POST", "/api/staff_lock", "{}", &StaffRole::ALL),
];

/// The server functions anyone may call (customers' own, and signing in and out).
const PUBLIC_SERVER_FNS: &[&str] = &[
    "/api/list_showtimes",
    "/api/get_seat_map",
    "/api/hold_seats",
    "/api/hold_best",
    "/api/cancel_hold",
    "/api/current_hold",
    "/api/checkout_hold",
    "/api/get_booking",
    "/api/my_bookings",
    "/api/get_ticket",
    "/api/lookup_booking",
    "/api/cancel_booking",
    "/api/send_booking_link",
    "/api/staff_sign_in",
    "/api/staff_sign_out",
    // Who is signed in, if anyone (the staff pages' header): nobody's answer is `null`.
    "/api/staff_whoami",
    "/api/join_queue",
    "/api/queue_status",
];

async fn every_staff_action_answers_401_without_a_session_and_403_to_other_roles(backend: Backend) {
    // A new server function must be placed in one of the two lists, so none is forgotten.
    let mut unlisted: Vec<String> = leptos::server_fn::axum::server_fn_paths()
        .map(|(path, _)| path.to_string())
        .filter(|path| {
            !PUBLIC_SERVER_FNS.contains(&path.as_str())
                && !STAFF_ACTIONS.iter().any(|(_, p, _, _)| p == path)
        })
        .collect();
    unlisted.sort();
    assert_eq!(
        unlisted,
        Vec::<String>::new(),
        "server functions in neither list"
    );
    // And every page of the console.
    let pages: Vec<String> = leptos_axum::generate_route_list(app::StaffApp)
        .iter()
        .map(|route| route.path().to_string())
        .filter(|path| {
            path.starts_with("/admin") && !STAFF_ACTIONS.iter().any(|(_, p, _, _)| p == path)
        })
        .collect();
    assert_eq!(pages, Vec::<String>::new(), "console pages not in the list");

    let db = TestDb::new(backend).await;
    let app = TestApp::spawn(&db, "600").await;
    let mut members = vec![(StaffRole::Operator, operator(&app).await)];
    for (name, role) in [
        ("sam", StaffRole::Supervisor),
        ("cho", StaffRole::Clerk),
        ("dan", StaffRole::Door),
    ] {
        add_staff(&db, name, role).await;
        members.push((role, signed_in(&app, name, &password_of(name)).await));
    }
    let anonymous = app.customer();
    // A page's body is HTML: its status is what counts.
    let expect = |(status, code): (StatusCode, String), want: (StatusCode, &str), what: String| {
        assert_eq!(status, want.0, "{what}: {code}");
        assert!(code.is_empty() || code == want.1, "{what}: {code}");
    };
    for (method, path, body, allowed) in STAFF_ACTIONS {
        let answer = code_of(call(&anonymous, &app, method, path, body).await).await;
        expect(
            answer,
            (StatusCode::UNAUTHORIZED, "STAFF_SIGN_IN_REQUIRED"),
            format!("{path} without a session"),
        );
        for (role, client) in &members {
            let (status, code) = code_of(call(client, &app, method, path, body).await).await;
            if role.may(allowed) {
                assert!(
                    status != StatusCode::UNAUTHORIZED
                        && status != StatusCode::FORBIDDEN
                        && !status.is_server_error(),
                    "{path} as {role}: {status} {code}"
                );
            } else {
                expect(
                    (status, code),
                    (StatusCode::FORBIDDEN, "STAFF_FORBIDDEN"),
                    format!("{path} as {role}"),
                );
            }
        }
    }
    db.drop_database().await;
}

async fn an_api_token_reads_the_sales_report_until_it_is_revoked_and_the_audit_log_says_who(
    backend: Backend,
) {
    let db = TestDb::new(backend).await;
    let app = TestApp::spawn(&db, "600").await;
    let operator = operator(&app).await;
    let r = call(
        &operator,
        &app,
        "POST",
        "/api/create_api_token",
        r#"{"name":"  "}"#,
    )
    .await;
    assert_eq!(
        code_of(r).await,
        (StatusCode::BAD_REQUEST, "INVALID".into())
    );
    let r = call(
        &operator,
        &app,
        "POST",
        "/api/create_api_token",
        r#"{"name":"finance export"}"#,
    )
    .await;
    assert_eq!(r.status(), StatusCode::OK);
    let created: Value = r.json().await.unwrap();
    let secret = created["secret"].as_str().unwrap().to_string();
    let id = created["token"]["id"].as_i64().unwrap();
    assert_eq!(secret.len(), 64);

    let report = |bearer: String| {
        reqwest::Client::new()
            .get(app.url("/reports/sales"))
            .bearer_auth(bearer)
            .send()
    };
    let r = report(secret.clone()).await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.json::<Value>().await.unwrap(), json!([]));
    let csv = reqwest::Client::new()
        .get(app.url("/reports/sales.csv"))
        .bearer_auth(&secret)
        .send()
        .await
        .unwrap();
    assert_eq!(csv.status(), StatusCode::OK);
    assert!(csv.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/csv"));
    assert!(
        csv.text()
            .await
            .unwrap()
            .starts_with("day,channel,showtime_id,title,"),
        "a header line"
    );
    let r = report(format!("{secret}0")).await.unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED, "not a token");
    assert!(r.headers()["www-authenticate"]
        .to_str()
        .unwrap()
        .starts_with("Bearer"));
    let listed: Value = call(&operator, &app, "POST", "/api/api_tokens", "{}")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(listed[0]["name"], "finance export");
    assert_eq!(listed[0]["createdBy"], "operator");
    assert!(!listed[0]["lastUsedAt"].is_null(), "its use is recorded");
    assert!(
        listed.to_string().find(&secret).is_none(),
        "the secret is never listed"
    );

    let revoke = format!(r#"{{"id":{id}}}"#);
    assert_eq!(
        call(&operator, &app, "POST", "/api/revoke_api_token", &revoke)
            .await
            .status(),
        StatusCode::OK
    );
    let r = call(&operator, &app, "POST", "/api/revoke_api_token", &revoke).await;
    assert_eq!(
        code_of(r).await,
        (StatusCode::NOT_FOUND, "API_TOKEN_NOT_FOUND".into())
    );
    assert_eq!(
        report(secret).await.unwrap().status(),
        StatusCode::UNAUTHORIZED,
        "revoked"
    );
    // A token stops working when the operator who made it is disabled.
    add_staff(&db, "ops2", StaffRole::Operator).await;
    let ops2 = signed_in(&app, "ops2", &password_of("ops2")).await;
    let r = call(
        &ops2,
        &app,
        "POST",
        "/api/create_api_token",
        r#"{"name":"ops2's"}"#,
    )
    .await;
    let theirs = r.json::<Value>().await.unwrap()["secret"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        report(theirs.clone()).await.unwrap().status(),
        StatusCode::OK
    );
    assert!(db.store.disable_staff("ops2").await.unwrap());
    assert_eq!(
        report(theirs).await.unwrap().status(),
        StatusCode::UNAUTHORIZED,
        "its maker is disabled"
    );

    let audit: Value = call(&operator, &app, "POST", "/api/audit_log", "{}")
        .await
        .json()
        .await
        .unwrap();
    let lines: Vec<(String, String, String)> = audit
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["staffName"] == "operator")
        .map(|l| {
            let field = |k: &str| l[k].as_str().unwrap_or_default().to_string();
            (field("staffName"), field("action"), field("address"))
        })
        .collect();
    let local = "127.0.0.1".to_string();
    assert_eq!(
        lines,
        [
            ("operator".into(), "api_token_revoked".into(), local.clone()),
            ("operator".into(), "api_token_created".into(), local.clone()),
            ("operator".into(), "sign_in".into(), local),
            ("operator".into(), "staff_added".into(), String::new()),
        ]
    );
    let created = audit
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["staffName"] == "operator" && l["action"] == "api_token_created")
        .unwrap();
    assert!(created["detail"]
        .as_str()
        .unwrap()
        .contains("finance export"));
    db.drop_database().await;
}

async fn app_with(vars: &[(&str, &str)]) -> (TestDb, TestApp) {
    let db = TestDb::new(Backend::Sqlite).await;
    let app = TestApp::spawn_with(&db, "600", vars).await;
    (db, app)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sign_in_sets_a_strict_cookie_of_its_own_and_sign_out_ends_the_session() {
    let (_db, app) = app_with(&[]).await;
    let client = app.customer();
    let r = sign_in(&client, &app, "Operator", OPERATOR_PASSWORD).await;
    assert_eq!(r.status(), StatusCode::OK, "names are not case-sensitive");
    let cookie = r
        .headers()
        .get_all("set-cookie")
        .iter()
        .map(|v| v.to_str().unwrap().to_string())
        .find(|c| c.starts_with("seats_staff="))
        .expect("the staff cookie");
    for part in [
        "; HttpOnly",
        "; SameSite=Strict",
        "; Path=/",
        "; Max-Age=43200",
    ] {
        assert!(cookie.contains(part), "{cookie}");
    }
    assert!(!cookie.contains("Secure"), "plain http: {cookie}");
    let member: Value = r.json().await.unwrap();
    assert_eq!(
        (member["name"].as_str(), member["role"].as_str()),
        (Some("operator"), Some("operator"))
    );
    let value = cookie.split(';').next().unwrap().to_string();
    let replay = || {
        reqwest::Client::new()
            .post(app.url("/api/staff_me"))
            .header("cookie", value.clone())
            .json(&json!({}))
            .send()
    };
    assert_eq!(replay().await.unwrap().status(), StatusCode::OK);
    let r = call(&client, &app, "POST", "/api/staff_sign_out", "{}").await;
    assert_eq!(r.status(), StatusCode::OK);
    assert!(r.headers()["set-cookie"]
        .to_str()
        .unwrap()
        .contains("Max-Age=0"));
    assert_eq!(
        replay().await.unwrap().status(),
        StatusCode::UNAUTHORIZED,
        "the session ended on the server"
    );

    // Behind https the cookie is Secure.
    let (_db, secure) = app_with(&[("PUBLIC_URL", "https://tickets.example.com")]).await;
    let r = sign_in(&secure.customer(), &secure, "operator", OPERATOR_PASSWORD).await;
    let cookies: Vec<String> = r
        .headers()
        .get_all("set-cookie")
        .iter()
        .map(|v| v.to_str().unwrap().to_string())
        .collect();
    assert!(
        cookies
            .iter()
            .any(|c| c.starts_with("seats_staff=") && c.contains("; Secure")),
        "{cookies:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_session_ends_when_idle_too_long_or_past_its_lifetime() {
    let (_db, idle) = app_with(&[("STAFF_IDLE_SECONDS", "1")]).await;
    let client = operator(&idle).await;
    // In use, it lives on past its idle timeout…
    let started = std::time::Instant::now();
    while started.elapsed() < Duration::from_millis(2500) {
        let r = call(&client, &idle, "POST", "/api/staff_me", "{}").await;
        assert_eq!(
            r.status(),
            StatusCode::OK,
            "in use at {:?}",
            started.elapsed()
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    // …and left alone, it ends.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let r = call(&client, &idle, "POST", "/api/staff_me", "{}").await;
    assert_eq!(
        code_of(r).await,
        (StatusCode::UNAUTHORIZED, "STAFF_SIGN_IN_REQUIRED".into())
    );

    let (_db, short) = app_with(&[("STAFF_SESSION_SECONDS", "2")]).await;
    let client = operator(&short).await;
    let started = std::time::Instant::now();
    while started.elapsed() < Duration::from_millis(1500) {
        assert_eq!(
            call(&client, &short, "POST", "/api/staff_me", "{}")
                .await
                .status(),
            StatusCode::OK,
            "busy and young"
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    tokio::time::sleep(Duration::from_millis(800)).await;
    let r = call(&client, &short, "POST", "/api/staff_me", "{}").await;
    assert_eq!(
        r.status(),
        StatusCode::UNAUTHORIZED,
        "past its lifetime, however busy"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn guessing_from_one_address_costs_work_whatever_the_names() {
    let (_db, app) = app_with(&[("TRUSTED_PROXIES", "127.0.0.1/32")]).await;
    let client = reqwest::Client::new();
    let attempt = |name: String, password: &str, from: &str| {
        client
            .post(app.url("/api/staff_sign_in"))
            .header("x-forwarded-for", from)
            .json(&json!({ "name": name, "password": password }))
            .send()
    };
    let guesser = "203.0.113.50";
    let mut statuses = Vec::new();
    for i in 0..12 {
        statuses.push(
            attempt(format!("guess{i}"), "some password", guesser)
                .await
                .unwrap()
                .status(),
        );
    }
    let failed = statuses
        .iter()
        .filter(|s| **s == StatusCode::UNAUTHORIZED)
        .count();
    assert_eq!(failed, 10, "{statuses:?}");
    // Past its allowance the address's tries need a proof of work (never a refusal: a member
    // behind the same address signs in after a moment's work).
    let r = attempt("operator".into(), OPERATOR_PASSWORD, guesser)
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::FORBIDDEN, "work asked first");
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["kind"], "ProofRequired", "{body}");
    assert!(body["detail"]["bits"].as_u64().unwrap() >= 14, "{body}");
    let (status, _, asked) = sign_in_solving(
        &app,
        &app.customer(),
        "operator",
        OPERATOR_PASSWORD,
        guesser,
    )
    .await;
    assert_eq!(
        status,
        StatusCode::OK,
        "the right password, with its work: {asked:?}"
    );
    let r = attempt("operator".into(), OPERATOR_PASSWORD, "198.51.100.9")
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK, "another address signs in");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_sign_in_from_another_site_is_refused() {
    let (_db, app) = app_with(&[]).await;
    let client = reqwest::Client::new();
    let body = json!({ "name": "operator", "password": OPERATOR_PASSWORD });
    let r = client
        .post(app.url("/api/staff_sign_in"))
        .header("origin", "https://evil.example")
        .json(&body)
        .send()
        .await
        .unwrap();
    assert!(r
        .headers()
        .get_all("set-cookie")
        .iter()
        .all(|c| !c.to_str().unwrap().starts_with("seats_staff=")));
    assert_eq!(
        code_of(r).await,
        (StatusCode::FORBIDDEN, "CROSS_SITE_REQUEST".into())
    );
    // A plain HTML form posted from anywhere is not JSON: refused before it is read.
    let r = client
        .post(app.url("/api/staff_sign_in"))
        .form(&[("name", "operator"), ("password", OPERATOR_PASSWORD)])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    let r = client
        .post(app.url("/api/staff_sign_in"))
        .header("origin", &app.base)
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK, "from this site");
}
