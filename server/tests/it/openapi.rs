//! The REST API's description: `/openapi.json` (OpenAPI 3.1) names every route the server's
//! routers declare, with their methods, and every path it names is routed; `/docs/api` shows
//! each of them to people.

use crate::support::*;
use reqwest::StatusCode;
use serde_json::Value;
use std::collections::BTreeSet;

/// Every `.route("path", method(…)…)` in `server/src/http`: (METHOD, path) pairs, read from
/// the source, so that a route added to a router is seen here without being listed again.
fn declared_routes() -> BTreeSet<(String, String)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/http");
    let mut routes = BTreeSet::new();
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    files.sort();
    for file in files {
        let source = std::fs::read_to_string(&file).unwrap();
        routes.extend(routes_in(&source));
    }
    routes
}

/// The (METHOD, path) pairs of the `.route(…)` calls in `source`.
fn routes_in(source: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for (at, _) in source.match_indices(".route(") {
        let rest = &source[at + ".route(".len()..];
        let Some(open) = rest.find('"') else { continue };
        let Some(close) = rest[open + 1..].find('"') else {
            continue;
        };
        let path = &rest[open + 1..open + 1 + close];
        // The method router: up to the `.route(`'s closing parenthesis.
        let mut depth = 1;
        let mut end = rest.len();
        for (i, c) in rest.char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        end = i;
                        break;
                    }
                }
                _ => {}
            }
        }
        let methods = &rest[open + 1 + close + 1..end];
        for method in ["get", "post", "put", "patch", "delete"] {
            let calls = methods.match_indices(&format!("{method}(")).any(|(i, _)| {
                i == 0
                    || !methods[..i]
                        .ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ':')
            });
            if calls {
                found.push((method.to_uppercase(), path.to_string()));
            }
        }
    }
    found
}

#[test]
fn the_route_reader_sees_each_method_of_a_route() {
    let source = r#"
        Router::new()
            .route("/a/{id}", get(place).post(join))
            .route(
                "/b",
                post(lookup).layer(DefaultBodyLimit::max(MAX_JSON_BODY)),
            )
            .route("/c", get(super::live::live))
            .route("/d", delete(cancel_hold))
    "#;
    let routes = routes_in(source);
    assert_eq!(
        routes,
        [
            ("GET", "/a/{id}"),
            ("POST", "/a/{id}"),
            ("POST", "/b"),
            ("GET", "/c"),
            ("DELETE", "/d")
        ]
        .map(|(m, p)| (m.to_string(), p.to_string()))
    );
}

/// The document's (METHOD, path) pairs.
fn described(doc: &Value) -> BTreeSet<(String, String)> {
    let mut pairs = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for method in ["get", "post", "put", "patch", "delete"] {
            if item.get(method).is_some() {
                pairs.insert((method.to_uppercase(), path.clone()));
            }
        }
    }
    pairs
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_rest_route_is_described_and_every_described_route_is_served() {
    let db = TestDb::new(Backend::Sqlite).await;
    let app = TestApp::spawn(&db, "600").await;
    let answer = reqwest::get(app.url("/openapi.json")).await.unwrap();
    assert_eq!(answer.status(), StatusCode::OK);
    assert_eq!(answer.headers()["content-type"], "application/json");
    let doc: Value = answer.json().await.unwrap();
    assert_eq!(doc["openapi"], "3.1.0");

    let declared = declared_routes();
    assert!(
        declared.len() >= 20,
        "the routers declare the REST API: {declared:?}"
    );
    let described = described(&doc);
    let missing: Vec<_> = declared.difference(&described).collect();
    assert!(
        missing.is_empty(),
        "routes the OpenAPI document does not describe: {missing:?}"
    );
    let unrouted: Vec<_> = described.difference(&declared).collect();
    assert!(
        unrouted.is_empty(),
        "operations no router declares: {unrouted:?}"
    );

    // Each described operation is served: whatever it answers (a missing id, no sign-in, no
    // signature), it is not the router's "no such resource" or "method not allowed".
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    for (method, path) in &described {
        let url = app.url(&path.replace(['{', '}'], "x"));
        let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let answer = client.request(method.clone(), &url).send().await.unwrap();
        let status = answer.status();
        let body = answer.text().await.unwrap();
        assert_ne!(status, StatusCode::METHOD_NOT_ALLOWED, "{method} {path}");
        if status == StatusCode::NOT_FOUND {
            // A handler's own 404 (no such showtime, hold, ticket), never the router's.
            let code = serde_json::from_str::<Value>(&body).map(|b| b["code"].clone());
            assert!(
                code.as_ref()
                    .is_ok_and(|c| c.is_string() && c != "NOT_FOUND"),
                "{method} {path} is not routed: {body}"
            );
        }
    }

    // Every operation answers with its own statuses, each with a description, and each JSON
    // body names a schema the document has.
    let schemas = doc["components"]["schemas"].as_object().unwrap();
    for (method, path) in &described {
        let op = &doc["paths"][path][method.to_lowercase()];
        let responses = op["responses"].as_object().unwrap();
        assert!(responses
            .keys()
            .any(|s| s.starts_with('2') || s == "101" || s == "303"));
        for (status, answer) in responses {
            assert!(
                answer["description"]
                    .as_str()
                    .is_some_and(|d| !d.is_empty()),
                "{method} {path} {status}"
            );
            if let Some(reference) =
                answer["content"]["application/json"]["schema"]["$ref"].as_str()
            {
                let name = reference.trim_start_matches("#/components/schemas/");
                assert!(
                    schemas.contains_key(name),
                    "{method} {path} {status}: {name}"
                );
            }
        }
    }
    assert!(schemas.contains_key("ErrorBody") && schemas.contains_key("SeatMap"));

    // The links a client (or a fuzzer) follows from a hold to its checkout and on to the
    // booking name operations the document has, in OpenAPI's own spelling.
    let operation_ids: BTreeSet<String> = described
        .iter()
        .map(|(m, p)| {
            doc["paths"][p][m.to_lowercase()]["operationId"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    let hold = &doc["paths"]["/showtimes/{id}/holds"]["post"]["responses"]["201"]["links"];
    let checkout = &doc["paths"]["/holds/{hold_id}/checkout"]["post"]["responses"]["201"]["links"];
    for (name, link) in hold
        .as_object()
        .unwrap()
        .iter()
        .chain(checkout.as_object().unwrap())
    {
        let target = link["operationId"].as_str().unwrap_or_default();
        assert!(operation_ids.contains(target), "link {name}: {link}");
    }
    assert_eq!(
        hold["checkout"]["parameters"]["hold_id"],
        "$response.body#/holdId"
    );

    // The page for people shows every path, escaped, with no script.
    let page = reqwest::get(app.url("/docs/api")).await.unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    assert!(page.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/html"));
    let csp = page.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(csp.contains("default-src 'none'"), "{csp}");
    let html = page.text().await.unwrap();
    assert!(!html.contains("<script"));
    for (_, path) in &described {
        assert!(html.contains(&format!("<code>{path}</code>")), "{path}");
    }
    assert!(html.contains("id=\"schema-BookingView\""));
    db.drop_database().await;
}

/// Amounts are whole won: the description says the integers they are on the wire, with no
/// schema of their own to look up.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn amounts_are_described_as_integers() {
    let db = TestDb::new(Backend::Sqlite).await;
    let app = TestApp::spawn(&db, "600").await;
    let doc: Value = get_json(app.url("/openapi.json")).await;
    let schemas = &doc["components"]["schemas"];
    let amounts = [
        ("Seat", "price"),
        ("PriceCategory", "price"),
        ("SoldSeat", "price"),
        ("Checkout", "amount"),
        ("BookingView", "amount"),
        ("PaymentView", "amount"),
        ("SalesFigure", "revenue"),
        ("SalesFigure", "refunded"),
        ("CallbackEvent", "amount"),
        ("TicketPrices", "YOUTH"),
        ("TicketPrices", "SENIOR"),
        ("TicketPrices", "DISABLED"),
    ];
    for (schema, field) in amounts {
        let property = &schemas[schema]["properties"][field];
        assert!(
            property["type"].to_string().contains("integer"),
            "{schema}.{field} is described as {property}"
        );
    }
    assert!(schemas.get("Won").is_none(), "{}", schemas["Won"]);
}
