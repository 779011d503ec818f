//! `GET /docs/api`: the OpenAPI document as one plain page — every operation with its
//! parameters, body and answers, then every schema — escaped, styled inline, without scripts.

use crate::mail::compose::escape;
use serde_json::Value;
use std::fmt::Write;

const STYLE: &str = "body{font:15px/1.5 system-ui,sans-serif;max-width:70rem;margin:2rem auto;padding:0 1rem;color:#1b1d21}\
code{font:13px ui-monospace,monospace;background:#f1f2f4;padding:0 .25rem;border-radius:3px}\
table{border-collapse:collapse;width:100%;margin:.5rem 0 1rem}th,td{text-align:left;vertical-align:top;border-bottom:1px solid #dde;padding:.3rem .5rem}\
.op{border-top:2px solid #15171b;margin-top:2rem}.method{font-weight:700;text-transform:uppercase;margin-right:.5rem}\
nav li{list-style:none}a{color:#0b57d0}";

/// The page for `doc` (an OpenAPI document as JSON).
pub fn render(doc: &Value) -> String {
    let title = text(&doc["info"]["title"]);
    let mut out = format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{} API</title><style>{STYLE}</style></head><body><h1>{} API <small>(OpenAPI {}, <a href=\"/openapi.json\">/openapi.json</a>)</small></h1>{}",
        escape(&title),
        escape(&title),
        escape(&text(&doc["openapi"])),
        prose(&text(&doc["info"]["description"])),
    );
    let operations = operations(doc);
    out.push_str("<nav><h2>Operations</h2><ul>");
    for (anchor, method, path, op) in &operations {
        let _ = write!(
            out,
            "<li><a href=\"#{anchor}\"><span class=\"method\">{method}</span><code>{}</code></a> {}</li>",
            escape(path),
            escape(&text(&op["summary"]))
        );
    }
    out.push_str("</ul></nav>");
    for (anchor, method, path, op) in &operations {
        operation(&mut out, anchor, method, path, op);
    }
    out.push_str("<h2 id=\"schemas\">Schemas</h2>");
    if let Some(schemas) = doc["components"]["schemas"].as_object() {
        for (name, schema) in schemas {
            schema_section(&mut out, name, schema);
        }
    }
    out.push_str("</body></html>");
    out
}

/// Every operation: (anchor, method, path, operation), by path and then method.
fn operations(doc: &Value) -> Vec<(String, &'static str, String, &Value)> {
    let mut list = Vec::new();
    for (path, item) in doc["paths"].as_object().into_iter().flatten() {
        for method in ["get", "post", "put", "patch", "delete"] {
            if let Some(op) = item.get(method) {
                let anchor = text(&op["operationId"]);
                list.push((anchor, method, path.clone(), op));
            }
        }
    }
    list
}

fn operation(out: &mut String, anchor: &str, method: &str, path: &str, op: &Value) {
    let _ = write!(
        out,
        "<section class=\"op\" id=\"{}\"><h3><span class=\"method\">{method}</span><code>{}</code></h3>{}",
        escape(anchor),
        escape(path),
        prose(&text(&op["description"]).if_empty(text(&op["summary"])))
    );
    if let Some(security) = op["security"].as_array() {
        let ways: Vec<String> = security
            .iter()
            .filter_map(|s| s.as_object()?.keys().next().cloned())
            .collect();
        let _ = write!(out, "<p>For staff: {}.</p>", escape(&ways.join(" or ")));
    }
    if let Some(params) = op["parameters"].as_array() {
        out.push_str(
            "<table><tr><th>parameter</th><th>in</th><th>type</th><th>description</th></tr>",
        );
        for p in params {
            let required = if p["required"] == true {
                " (required)"
            } else {
                ""
            };
            let _ = write!(
                out,
                "<tr><td><code>{}</code>{required}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                escape(&text(&p["name"])),
                escape(&text(&p["in"])),
                type_of(&p["schema"]),
                prose_inline(&text(&p["description"]))
            );
        }
        out.push_str("</table>");
    }
    if let Some(content) = op["requestBody"]["content"].as_object() {
        for (kind, media) in content {
            let _ = write!(
                out,
                "<p>Body ({}): {} {}</p>",
                escape(kind),
                type_of(&media["schema"]),
                prose_inline(&text(&op["requestBody"]["description"]))
            );
        }
    }
    out.push_str("<table><tr><th>answer</th><th>body</th><th>when</th></tr>");
    for (status, answer) in op["responses"].as_object().into_iter().flatten() {
        let body = answer["content"]
            .as_object()
            .and_then(|c| c.values().next())
            .map_or(String::new(), |media| type_of(&media["schema"]));
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{body}</td><td>{}</td></tr>",
            escape(status),
            prose_inline(&text(&answer["description"]))
        );
    }
    out.push_str("</table></section>");
}

fn schema_section(out: &mut String, name: &str, schema: &Value) {
    let _ = write!(
        out,
        "<section id=\"schema-{0}\"><h3>{0}</h3>{1}",
        escape(name),
        prose(&text(&schema["description"]))
    );
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut parts = vec![schema];
    parts.extend(schema["allOf"].as_array().into_iter().flatten());
    let mut rows = String::new();
    for part in parts {
        if let Some(reference) = part["$ref"].as_str() {
            let _ = write!(
                rows,
                "<tr><td colspan=\"3\">every field of {}</td></tr>",
                link(reference)
            );
        }
        for (field, property) in part["properties"].as_object().into_iter().flatten() {
            let required = part["required"]
                .as_array()
                .is_some_and(|r| r.iter().any(|f| f == field.as_str()))
                || required.contains(&field.as_str());
            let _ = write!(
                rows,
                "<tr><td><code>{}</code>{}</td><td>{}</td><td>{}</td></tr>",
                escape(field),
                if required { " (always)" } else { "" },
                type_of(property),
                prose_inline(&text(&property["description"]))
            );
        }
    }
    if rows.is_empty() {
        let _ = write!(out, "<p>{}</p>", type_of(schema));
    } else {
        let _ = write!(
            out,
            "<table><tr><th>field</th><th>type</th><th>description</th></tr>{rows}</table>"
        );
    }
    out.push_str("</section>");
}

/// A schema's type in a few words, with links to named schemas.
fn type_of(schema: &Value) -> String {
    if let Some(reference) = schema["$ref"].as_str() {
        return link(reference);
    }
    for combined in ["oneOf", "anyOf", "allOf"] {
        if let Some(list) = schema[combined].as_array() {
            let names: Vec<String> = list.iter().map(type_of).collect();
            return names.join(" or ");
        }
    }
    let kinds: Vec<String> = match &schema["type"] {
        Value::String(kind) => vec![kind.clone()],
        Value::Array(kinds) => kinds.iter().map(text).collect(),
        _ => vec![],
    };
    let mut words = Vec::new();
    for kind in kinds {
        words.push(match kind.as_str() {
            "array" => format!("array of {}", type_of(&schema["items"])),
            other => match schema["format"].as_str() {
                Some(format) => format!("{} ({})", escape(other), escape(format)),
                None => escape(other),
            },
        });
    }
    if let Some(values) = schema["enum"].as_array() {
        let values: Vec<String> = values
            .iter()
            .map(|v| format!("<code>{}</code>", escape(&v.to_string())))
            .collect();
        words.push(format!("one of {}", values.join(", ")));
    }
    if words.is_empty() {
        "any".into()
    } else {
        words.join(" or ")
    }
}

fn link(reference: &str) -> String {
    let name = reference.rsplit('/').next().unwrap_or(reference);
    format!("<a href=\"#schema-{0}\">{0}</a>", escape(name))
}

fn text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

trait IfEmpty {
    fn if_empty(self, other: String) -> String;
}

impl IfEmpty for String {
    fn if_empty(self, other: String) -> String {
        if self.is_empty() {
            other
        } else {
            self
        }
    }
}

/// Paragraphs, with `code` spans.
fn prose(text: &str) -> String {
    text.split("\n\n")
        .filter(|p| !p.trim().is_empty())
        .map(|p| format!("<p>{}</p>", prose_inline(p)))
        .collect()
}

/// One run of text with its `code` spans.
fn prose_inline(text: &str) -> String {
    let mut out = String::new();
    for (i, piece) in text.split('`').enumerate() {
        if i % 2 == 1 {
            let _ = write!(out, "<code>{}</code>", escape(piece));
        } else {
            out.push_str(&escape(piece));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_escapes_what_the_document_says() {
        let doc = serde_json::json!({
            "openapi": "3.1.0",
            "info": {"title": "T<script>", "description": "a `<b>` b"},
            "paths": {"/x/{id}": {"get": {"operationId": "x", "summary": "s\"", "responses": {
                "200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Thing"}}}}
            }}}},
            "components": {"schemas": {"Thing": {"type": "object", "required": ["a"], "properties": {
                "a": {"type": ["string", "null"], "description": "<i>"}
            }}}}
        });
        let page = render(&doc);
        assert!(!page.contains("<script>") && !page.contains("<i>") && !page.contains("<b>"));
        assert!(page.contains("T&lt;script&gt;"));
        assert!(page.contains("<code>&lt;b&gt;</code>"));
        assert!(page.contains("<a href=\"#schema-Thing\">Thing</a>"));
        assert!(page.contains("<code>a</code> (always)</td><td>string or null</td>"));
    }
}
