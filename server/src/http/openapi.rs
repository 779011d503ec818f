//! The REST API's OpenAPI 3.1 description, built from the handlers' own attributes and types
//! (each router module has its `Api` part), served as `GET /openapi.json` and as a page for
//! people at `GET /docs/api` (rendered here from the same document, without scripts).
//!
//! A test (`api::every_rest_route_is_described`) fails when a route of this folder is missing
//! from the document, and when the document names a path the server does not route.

use super::error::ErrorBody;
use super::AppState;
use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use std::sync::LazyLock;
use utoipa::openapi::path::Operation;
use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::{RefOr, ResponseBuilder};
use utoipa::{OpenApi, PartialSchema, ToSchema};

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/openapi.json", get(openapi_json))
        .route("/docs/api", get(api_docs))
}

/// The document's frame: what it is, the staff's two ways in, and its own two routes.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "Seats",
        description = "Reserved seats for cinemas and concerts: the programme, seat maps, holds, checkout, bookings, the waiting room, the door and the reports.\n\nA customer is a session: the first answer sets the `seats_session` cookie, and a client that keeps it is the same customer from then on (its holds, its bookings). Every error answer is JSON: `{error, code}` and, for some codes, more (the `ErrorBody` schema). Requests that change something and carry a body carry JSON.",
        license(name = "Proprietary")
    ),
    paths(openapi_json, api_docs),
    tags(
        (name = "showtimes", description = "The programme and the seat maps"),
        (name = "holds", description = "Holding seats, and paying for them"),
        (name = "bookings", description = "A customer's bookings"),
        (name = "waiting room", description = "The queue of a hot sale"),
        (name = "door", description = "Tickets and check-in"),
        (name = "reports", description = "The operator's figures"),
        (name = "payments", description = "The payment gateway's reports"),
        (name = "operations", description = "Health, metrics, the icon, this description")
    )
)]
struct Frame;

/// The whole description.
pub fn document() -> utoipa::openapi::OpenApi {
    let mut doc = Frame::openapi();
    for part in [
        super::showtimes::Api::openapi(),
        super::queue::Api::openapi(),
        super::holds::Api::openapi(),
        super::bookings::Api::openapi(),
        super::booking_link::Api::openapi(),
        super::payments::Api::openapi(),
        super::reports::Api::openapi(),
        super::ops::Api::openapi(),
    ] {
        doc.merge(part);
    }
    let components = doc.components.get_or_insert_with(Default::default);
    components.add_security_scheme(
        "staff_session",
        SecurityScheme::ApiKey(ApiKey::Cookie(ApiKeyValue::with_description(
            super::staff::COOKIE_NAME,
            "A signed-in member of staff (the staff sign-in page)",
        ))),
    );
    components.add_security_scheme(
        "staff_token",
        SecurityScheme::Http(
            HttpBuilder::new()
                .scheme(HttpAuthScheme::Bearer)
                .description(Some("An API token an operator created"))
                .build(),
        ),
    );
    components
        .schemas
        .entry(ErrorBody::name().into_owned())
        .or_insert_with(ErrorBody::schema);
    for item in doc.paths.paths.values_mut() {
        let writes = [
            &mut item.post,
            &mut item.put,
            &mut item.patch,
            &mut item.delete,
        ];
        for operation in writes.into_iter().flatten() {
            add_stack_answers(operation, true);
        }
        for operation in [&mut item.get].into_iter().flatten() {
            add_stack_answers(operation, false);
        }
    }
    doc
}

/// The answers the stack in front of every handler may give (`guard.rs`, the timeouts), added
/// where the operation does not describe that status already.
fn add_stack_answers(operation: &mut Operation, writes: bool) {
    let mut stack = vec![
        (
            "408",
            "The request took longer than `HTTP_REQUEST_TIMEOUT_SECONDS`",
        ),
        ("414", "The request target is over 8 KB"),
        ("431", "The request's headers are over 32 KB"),
        ("503", "`TOO_MANY_CONNECTIONS`: over the connection cap"),
    ];
    if writes {
        stack.extend([
            ("403", "`CROSS_SITE_REQUEST`: from a page of another site"),
            (
                "413",
                "The body is over the endpoint's limit (16 KB for JSON)",
            ),
            ("415", "A body that is not `application/json`"),
        ]);
    }
    for (status, description) in stack {
        operation
            .responses
            .responses
            .entry(status.to_string())
            .or_insert_with(|| {
                RefOr::T(
                    ResponseBuilder::new()
                        .description(description)
                        .content(
                            "application/json",
                            utoipa::openapi::ContentBuilder::new()
                                .schema(Some(utoipa::openapi::Ref::from_schema_name(
                                    ErrorBody::name(),
                                )))
                                .build(),
                        )
                        .build(),
                )
            });
    }
}

/// The document as JSON.
fn document_json() -> serde_json::Value {
    let mut doc = serde_json::to_value(document()).expect("the description serialises");
    // utoipa 5.5 writes a link's fields in snake case; OpenAPI spells them in camel case.
    let links = doc["paths"]
        .as_object_mut()
        .into_iter()
        .flat_map(|paths| paths.values_mut())
        .filter_map(|item| item.as_object_mut())
        .flat_map(|item| item.values_mut())
        .filter_map(|op| op.get_mut("responses")?.as_object_mut())
        .flat_map(|responses| responses.values_mut())
        .filter_map(|response| response.get_mut("links")?.as_object_mut())
        .flat_map(|links| links.values_mut())
        .filter_map(serde_json::Value::as_object_mut);
    for link in links {
        for (snake, camel) in [
            ("operation_id", "operationId"),
            ("operation_ref", "operationRef"),
            ("request_body", "requestBody"),
        ] {
            if let Some(value) = link.remove(snake) {
                link.insert(camel.into(), value);
            }
        }
    }
    doc
}

/// The document as JSON, made once.
static JSON: LazyLock<String> = LazyLock::new(|| {
    serde_json::to_string_pretty(&document_json()).expect("the description serialises")
});

/// The document as a page, made once.
static PAGE: LazyLock<String> = LazyLock::new(|| super::openapi_page::render(&document_json()));

/// This description (OpenAPI 3.1, JSON).
#[utoipa::path(get, path = "/openapi.json", tag = "operations",
    responses((status = 200, description = "The OpenAPI document", content_type = "application/json", body = Object)))]
async fn openapi_json() -> Response {
    (
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::CACHE_CONTROL, "public, max-age=300"),
        ],
        JSON.as_str(),
    )
        .into_response()
}

/// This description as a page for people.
#[utoipa::path(get, path = "/docs/api", tag = "operations",
    responses((status = 200, description = "HTML", content_type = "text/html", body = String)))]
async fn api_docs() -> Response {
    let mut response = (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "public, max-age=300"),
        ],
        PAGE.as_str(),
    )
        .into_response();
    // Its own styles, and nothing else: no scripts, no frames, no requests elsewhere.
    response.headers_mut().insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
        ),
    );
    response
}
