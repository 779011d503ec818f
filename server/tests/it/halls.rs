//! The operator's halls and schedule over HTTP, on both stores: a hall imported from its JSON
//! plan, listed, exported and imported again alike; bad plans refused with every problem named
//! and nothing made; a showtime scheduled in the new hall and sold to a customer.

use crate::support::*;
use reqwest::StatusCode;
use serde_json::{json, Value};

on_both_backends!(a_hall_from_its_plan_is_listed_exported_alike_scheduled_and_sold,);

fn plan(name: &str) -> Value {
    json!({
        "name": name,
        "categories": [ { "code": "STANDARD", "name": "Standard", "price": 11000 },
                        { "code": "VIP", "name": "VIP", "price": 20000 } ],
        "rows": [
            { "label": "A", "seats": [ { "number": 1, "category": "STANDARD" },
                                       { "number": 2, "category": "STANDARD" },
                                       { "gap": 1 },
                                       { "number": 3, "category": "STANDARD", "wheelchair": true } ] },
            { "label": "", "seats": [] },
            { "label": "B", "seats": [ { "number": 1, "category": "VIP" },
                                       { "number": 2, "category": "VIP", "companion": true } ] }
        ],
        "bestSeat": "A2"
    })
}

async fn a_hall_from_its_plan_is_listed_exported_alike_scheduled_and_sold(backend: Backend) {
    let db = TestDb::new(backend).await;
    let app = TestApp::spawn(&db, "600").await;
    let operator = operator(&app).await;
    let (_, before) = operator.halls(json!({})).await;

    // A plan with problems: all of them named, nothing made.
    let mut bad = plan("Studio");
    bad["rows"][0]["seats"][1]["category"] = json!("BALCONY");
    bad["categories"][1]["price"] = json!(-5);
    bad["bestSeat"] = json!("C9");
    let (status, body) = operator.import_hall(json!({ "plan": bad })).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    // Every reason, each a key of the locale with its arguments (the pages say them in the
    // customer's language).
    let reasons = body["detail"].as_array().unwrap();
    let reason = |key: &str| {
        reasons
            .iter()
            .find(|r| r["key"] == key)
            .map(|r| r["args"].to_string())
            .unwrap_or_default()
    };
    assert_eq!(body["kind"], "Invalid", "{body}");
    assert!(
        reason("editor.problem.unknown_category").contains("BALCONY"),
        "{body}"
    );
    assert!(
        reason("editor.problem.unknown_category").contains("A2"),
        "{body}"
    );
    assert!(
        reason("editor.problem.category_price").contains("VIP"),
        "{body}"
    );
    assert!(reason("editor.problem.best_seat").contains("C9"), "{body}");
    assert_eq!(operator.halls(json!({})).await.1, before, "nothing made");

    let (status, hall) = operator
        .import_hall(json!({ "plan": plan("Studio") }))
        .await;
    assert_eq!(status, StatusCode::OK, "{hall}");
    assert_eq!(
        (hall["name"].as_str(), hall["seats"].as_i64()),
        (Some("Studio"), Some(5))
    );
    let hall_id = hall["id"].as_i64().unwrap();
    let (status, body) = operator
        .import_hall(json!({ "plan": plan("Studio") }))
        .await;
    assert_eq!(
        (status, body["kind"].as_str()),
        (StatusCode::CONFLICT, Some("HallNameTaken")),
        "a layout never changes in place"
    );
    let (_, listed) = operator.halls(json!({})).await;
    assert!(
        listed
            .as_array()
            .unwrap()
            .iter()
            .any(|h| h["id"] == hall_id && h["seats"] == 5),
        "{listed}"
    );

    // Exported, the plan is the one imported; imported under another name, it makes the same hall.
    let (status, exported) = operator.export_hall(json!({ "hall_id": hall_id })).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(exported, plan("Studio"));
    let mut copy = exported.clone();
    copy["name"] = json!("Studio copy");
    let (status, again) = operator.import_hall(json!({ "plan": copy })).await;
    assert_eq!((status, again["seats"].as_i64()), (StatusCode::OK, Some(5)));
    let (status, body) = operator.export_hall(json!({ "hall_id": 999_999 })).await;
    assert_eq!(
        (status, body["kind"].as_str()),
        (StatusCode::NOT_FOUND, Some("HallNotFound"))
    );

    // Scheduled, the showtime is on sale in the new hall.
    let schedule = |hall: i64, title: &str, at: String| json!({ "hall_id": hall, "title": title, "starts_at": at });
    let soon = (chrono::Utc::now() + chrono::Duration::days(2)).to_rfc3339();
    for (body, status) in [
        (
            schedule(hall_id, "Past", "2020-01-01T10:00:00+09:00".into()),
            StatusCode::BAD_REQUEST,
        ),
        (
            schedule(hall_id, "Bad time", "tomorrow at 7".into()),
            StatusCode::BAD_REQUEST,
        ),
        (
            schedule(hall_id, " ", soon.clone()),
            StatusCode::BAD_REQUEST,
        ),
        (
            schedule(999_999, "Nowhere", soon.clone()),
            StatusCode::NOT_FOUND,
        ),
    ] {
        assert_eq!(
            operator.schedule_showtime(body.clone()).await.0,
            status,
            "{body}"
        );
    }
    // Its own prices: only of the hall's categories.
    let mut priced = schedule(hall_id, "Premiere", soon.clone());
    priced["prices"] = json!({ "VIP": 25000, "GOLD": 1 });
    let (status, refused) = operator.schedule_showtime(priced.clone()).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(
        refused["detail"][0],
        json!({ "key": "invalid.no_category_in_hall", "args": [["categories", "GOLD"]] }),
        "{refused}"
    );
    priced["prices"] = json!({ "VIP": 25000 });
    let (status, showtime) = operator.schedule_showtime(priced).await;
    assert_eq!(status, StatusCode::OK, "{showtime}");
    let showtime = showtime.as_i64().unwrap();
    // Its seat map sells VIP at its price and STANDARD at the hall's; the hall's own showtime
    // scheduled without prices sells both at the hall's.
    let (status, plain) = operator
        .schedule_showtime(schedule(hall_id, "Plain", soon))
        .await;
    assert_eq!(status, StatusCode::OK, "{plain}");
    for (id, vip) in [(showtime, 25000), (plain.as_i64().unwrap(), 20000)] {
        let map: Value = reqwest::get(app.url(&format!("/showtimes/{id}/seats")))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let price = |code: &str| seat(&map, code)["price"].as_i64();
        assert_eq!(
            (price("B1"), price("A1")),
            (Some(vip), Some(11000)),
            "showtime {id}"
        );
        let flag = |code: &str, key: &str| seat(&map, code)[key].as_bool();
        assert_eq!(
            (
                flag("B2", "companion"),
                flag("B1", "companion"),
                flag("A3", "accessible")
            ),
            (Some(true), Some(false), Some(true)),
            "the layout's companion seat and wheelchair place"
        );
    }
    let listed: Value = reqwest::get(app.url("/showtimes"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let ours = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == showtime)
        .expect("listed");
    assert_eq!(
        (ours["hallName"].as_str(), ours["seatsTotal"].as_i64()),
        (Some("Studio"), Some(5))
    );
    let customer = app.customer();
    let hold = |seats: Value| {
        customer
            .post(app.url(&format!("/showtimes/{showtime}/holds")))
            .json(&json!({ "seats": seats }))
            .send()
    };
    // A companion seat comes with a wheelchair place.
    let r = hold(json!(["B1", "B2"])).await.unwrap();
    assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["code"], "COMPANION_NEEDS_WHEELCHAIR", "{body}");
    let r = hold(json!(["A3", "B2"])).await.unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    // The console counts the new showtime's seats: two held, three free.
    let (status, counts) = operator.showtime_figures(json!({})).await;
    assert_eq!(status, StatusCode::OK);
    let ours = counts
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == showtime)
        .expect("counted");
    let figures = |s: &Value| (s["sold"].as_i64(), s["held"].as_i64(), s["free"].as_i64());
    assert_eq!(figures(ours), (Some(0), Some(2), Some(3)), "{ours}");
    assert_eq!(ours["hallName"], "Studio");

    // A sales window: refused when it ends after the start, is backwards or the running time is
    // off, with every problem named.
    let days = |n: i64| (chrono::Utc::now() + chrono::Duration::days(n)).to_rfc3339();
    let (status, refused) = operator
        .schedule_showtime(
            json!({ "hall_id": hall_id, "title": "Preview", "starts_at": days(3),
                "duration_minutes": 0, "sales_open_at": days(5), "sales_close_at": days(4) }),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{refused}");
    let detail = refused["detail"].to_string();
    for problem in [
        "invalid.showtime.duration",
        "invalid.showtime.closes_after_start",
        "invalid.showtime.opens_after_close",
    ] {
        assert!(detail.contains(problem), "{detail}");
    }
    // On sale from tomorrow: listed with its opening, and holds are refused until then.
    let (status, preview) = operator
        .schedule_showtime(
            json!({ "hall_id": hall_id, "title": "Preview", "starts_at": days(3),
                "duration_minutes": 95, "sales_open_at": days(1), "sales_close_at": "",
                "hot_sale": true }),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{preview}");
    let r = customer
        .post(app.url(&format!("/showtimes/{preview}/holds")))
        .json(&json!({ "seats": ["B1"] }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CONFLICT);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["code"], "SALES_NOT_OPEN", "{body}");
    assert!(body["error"]
        .as_str()
        .unwrap()
        .starts_with("sales for this showtime open at "));
    let map: Value = reqwest::get(app.url(&format!("/showtimes/{preview}/seats")))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(map["salesOpen"], false);
    assert!(map["salesOpensAt"].is_string(), "{}", map["salesOpensAt"]);

    let audit: Value = operator.audit_log(json!({})).await.1;
    let actions: Vec<&str> = audit
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["action"].as_str().unwrap())
        .take(5)
        .collect();
    assert_eq!(
        actions,
        [
            "showtime_scheduled",
            "showtime_scheduled",
            "showtime_scheduled",
            "hall_created",
            "hall_created"
        ]
    );
    let premiere = audit[2]["detail"].as_str().unwrap();
    assert!(premiere.ends_with("; prices VIP 25000"), "{premiere}");
    let detail = audit[0]["detail"].as_str().unwrap();
    assert!(
        detail.contains("Preview") && detail.contains("for 95 min") && detail.ends_with("hot sale"),
        "{detail}"
    );
    db.drop_database().await;
}

/// The venue's time zone is a setting of the server (one venue each): a server in New York
/// (`-05:00`) schedules its demo showtimes at its own local times and tells the browser its
/// offset. A process of its own, since the setting is the whole process's.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_venue_time_zone_is_a_setting_of_the_server() {
    let db = TestDb::new(Backend::Sqlite).await;
    let extra = [("VENUE_UTC_OFFSET", "-05:00")];
    let (_server, base) = server_process(&db.url, &redis_url(), "600", &extra).await;
    let list: Value = get_json(format!("{base}/showtimes")).await;
    let times: std::collections::BTreeSet<String> = list
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["movieTitle"] == "Sea of Stars")
        .map(|s| s["startsAt"].as_str().unwrap()[11..16].to_string())
        .collect();
    // 10:30, 14:00 and 19:30 in New York (today's earlier ones may be over).
    assert!(!times.is_empty());
    let new_york: std::collections::BTreeSet<String> =
        ["15:30", "19:00", "00:30"].map(String::from).into();
    assert!(times.is_subset(&new_york), "{times:?}");
    let page = get_text(format!("{base}/")).await;
    assert!(
        page.contains(r#"<meta name="venue-utc-offset" content="-05:00""#),
        "the page tells the browser"
    );
    db.drop_database().await;
}
