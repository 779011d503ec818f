//! Pages, and JSON answers over 1 KB, compressed as the request's `Accept-Encoding` allows
//! (brotli or gzip, with `Vary: Accept-Encoding`): the seat map's page is ~175 kB of HTML, ~6 kB
//! in brotli. Each part a page streams (its shell, then each suspense as it resolves) is flushed
//! through the encoder as it comes, so compression never holds the shell back until the slowest
//! part is ready. (tower-http's compression layer does hold a streamed body: its encoder never
//! flushes.) The site's files come precompressed (see `assets`) and pass as they are.

use axum::body::Body;
use axum::extract::Request;
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::Response;

/// Compresses pages and JSON answers over 1 KB as the request's `Accept-Encoding` allows, brotli
/// before gzip. Answers already encoded (the site's precompressed files), bodiless answers and
/// other types pass as they are.
pub async fn compression(req: Request, next: Next) -> Response {
    let coding = req
        .headers()
        .get(header::ACCEPT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .and_then(Coding::accepted);
    let head = req.method() == Method::HEAD;
    let response = next.run(req).await;
    let Some(coding) = coding.filter(|_| !head && compressible(&response)) else {
        return response;
    };
    let (mut parts, body) = response.into_parts();
    parts.headers.remove(header::CONTENT_LENGTH);
    parts.headers.remove(header::ACCEPT_RANGES);
    parts.headers.insert(
        header::CONTENT_ENCODING,
        HeaderValue::from_static(coding.name()),
    );
    parts
        .headers
        .append(header::VARY, HeaderValue::from_static("accept-encoding"));
    let frames = body.into_data_stream();
    let encoded =
        futures_util::stream::unfold(Some((frames, Encoder::new(coding))), |state| async move {
            let (mut frames, mut encoder) = state?;
            match futures_util::StreamExt::next(&mut frames).await {
                Some(Ok(data)) => {
                    let out = encoder.part(&data);
                    Some((out, Some((frames, encoder))))
                }
                Some(Err(e)) => Some((Err(std::io::Error::other(e)), None)),
                None => Some((encoder.finish(), None)),
            }
        });
    Response::from_parts(parts, Body::from_stream(encoded))
}

/// A page, or JSON (or text) of more than 1 KB or of unknown length, not already encoded.
fn compressible(response: &Response) -> bool {
    let headers = response.headers();
    let status = response.status();
    if headers.contains_key(header::CONTENT_ENCODING)
        || status.is_informational()
        || status == StatusCode::NO_CONTENT
        || status == StatusCode::NOT_MODIFIED
    {
        return false;
    }
    let kind = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    // The length said, or else the body's own when it is all there (a JSON answer's is).
    let length = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok())
        .or_else(|| axum::body::HttpBody::size_hint(response.body()).exact());
    let large = length.is_none_or(|n| n > 1024);
    kind.starts_with("text/html")
        || (large && (kind.starts_with("application/json") || kind.starts_with("text/plain")))
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Coding {
    Brotli,
    Gzip,
}

impl Coding {
    /// The best encoding an `Accept-Encoding` value allows (`;q=0` refuses one; `*` allows any).
    fn accepted(accept: &str) -> Option<Coding> {
        let mut any = false;
        let (mut br, mut gzip) = (None, None);
        for item in accept.split(',') {
            let mut fields = item.split(';');
            let name = fields
                .next()
                .unwrap_or_default()
                .trim()
                .to_ascii_lowercase();
            let allowed = fields
                .filter_map(|f| f.trim().strip_prefix("q="))
                .all(|q| q.trim().parse::<f32>().map_or(true, |q| q > 0.0));
            match name.as_str() {
                "br" => br = Some(allowed),
                "gzip" | "x-gzip" => gzip = Some(allowed),
                "*" => any = allowed,
                _ => {}
            }
        }
        if br.unwrap_or(any) {
            Some(Coding::Brotli)
        } else if gzip.unwrap_or(any) {
            Some(Coding::Gzip)
        } else {
            None
        }
    }

    fn name(self) -> &'static str {
        match self {
            Coding::Brotli => "br",
            Coding::Gzip => "gzip",
        }
    }
}

/// One answer's encoder: each part in, what can be sent of it out (flushed, so a streamed page's
/// shell reaches the browser before its later parts exist).
enum Encoder {
    Brotli(Box<brotli::CompressorWriter<Vec<u8>>>),
    Gzip(flate2::write::GzEncoder<Vec<u8>>),
}

impl Encoder {
    fn new(coding: Coding) -> Encoder {
        match coding {
            // Quality 5 of 11: most of brotli's gain on HTML at a fraction of its top levels'
            // time, for answers made per request (the site's files are compressed at 11 once).
            Coding::Brotli => Encoder::Brotli(Box::new(brotli::CompressorWriter::new(
                Vec::new(),
                16 * 1024,
                5,
                20,
            ))),
            Coding::Gzip => Encoder::Gzip(flate2::write::GzEncoder::new(
                Vec::new(),
                flate2::Compression::new(6),
            )),
        }
    }

    fn part(&mut self, data: &[u8]) -> std::io::Result<axum::body::Bytes> {
        use std::io::Write;
        let out = match self {
            Encoder::Brotli(w) => {
                w.write_all(data)?;
                w.flush()?;
                w.get_mut()
            }
            Encoder::Gzip(w) => {
                w.write_all(data)?;
                w.flush()?;
                w.get_mut()
            }
        };
        Ok(std::mem::take(out).into())
    }

    fn finish(self) -> std::io::Result<axum::body::Bytes> {
        Ok(match self {
            Encoder::Brotli(w) => w.into_inner(),
            Encoder::Gzip(w) => w.finish()?,
        }
        .into())
    }
}

#[cfg(test)]
mod tests {
    use super::{compression, Coding};
    use axum::body::{Body, Bytes};
    use axum::http::{header, Request};
    use axum::response::Response;
    use futures_util::StreamExt;
    use std::io::Write;

    /// A page streamed in two parts, the second only when `go` is sent, compressed as `accept`.
    fn two_part_page(
        accept: &str,
        go: tokio::sync::oneshot::Receiver<()>,
    ) -> impl std::future::Future<Output = Response> {
        let parts = futures_util::stream::unfold((0, Some(go)), |(n, go)| async move {
            match n {
                0 => Some((
                    Ok::<_, std::io::Error>(Bytes::from("<html><body><p>the shell</p>")),
                    (1, go),
                )),
                1 => {
                    go?.await.ok()?;
                    Some((Ok(Bytes::from("<p>the rest</p></body></html>")), (2, None)))
                }
                _ => None,
            }
        });
        let page = std::sync::Arc::new(std::sync::Mutex::new(Some(Body::from_stream(parts))));
        let app = axum::Router::new()
            .route(
                "/",
                axum::routing::get(move || async move {
                    let body = page.lock().unwrap().take().unwrap();
                    Response::builder()
                        .header(header::CONTENT_TYPE, "text/html; charset=utf-8")
                        .body(body)
                        .unwrap()
                }),
            )
            .layer(axum::middleware::from_fn(compression));
        let req = Request::get("/")
            .header(header::ACCEPT_ENCODING, accept)
            .body(Body::empty())
            .unwrap();
        async move { tower::ServiceExt::oneshot(app, req).await.unwrap() }
    }

    fn unbrotli(bytes: &[u8]) -> String {
        let mut out = brotli::DecompressorWriter::new(Vec::new(), 4096);
        out.write_all(bytes).unwrap();
        out.flush().unwrap();
        String::from_utf8(out.get_ref().clone()).unwrap()
    }

    #[tokio::test]
    async fn a_streamed_page_is_compressed_part_by_part() {
        let (go, wait) = tokio::sync::oneshot::channel();
        let page = two_part_page("gzip, deflate, br", wait).await;
        assert_eq!(page.headers()[header::CONTENT_ENCODING], "br");
        assert_eq!(page.headers()[header::VARY], "accept-encoding");
        let mut body = page.into_body().into_data_stream();
        // The shell arrives, readable, while the rest does not exist yet.
        let mut sent = Vec::new();
        while !unbrotli(&sent).contains("the shell") {
            let part = tokio::time::timeout(std::time::Duration::from_secs(10), body.next())
                .await
                .expect("the shell is sent before the rest exists")
                .unwrap()
                .unwrap();
            sent.extend_from_slice(&part);
        }
        go.send(()).unwrap();
        while let Some(part) = body.next().await {
            sent.extend_from_slice(&part.unwrap());
        }
        let mut whole = String::new();
        std::io::Read::read_to_string(&mut brotli::Decompressor::new(&sent[..], 4096), &mut whole)
            .unwrap();
        assert_eq!(
            whole,
            "<html><body><p>the shell</p><p>the rest</p></body></html>"
        );
    }

    #[tokio::test]
    async fn json_over_a_kilobyte_is_compressed_and_a_small_answer_is_not() {
        let app = axum::Router::new()
            .route(
                "/small",
                axum::routing::get(|| async { axum::Json(serde_json::json!({"ok": true})) }),
            )
            .route(
                "/large",
                axum::routing::get(|| async { axum::Json(vec!["seat"; 400]) }),
            )
            .layer(axum::middleware::from_fn(compression));
        for (path, encoded) in [("/small", false), ("/large", true)] {
            let req = Request::get(path)
                .header(header::ACCEPT_ENCODING, "br")
                .body(Body::empty())
                .unwrap();
            let answer = tower::ServiceExt::oneshot(app.clone(), req).await.unwrap();
            assert_eq!(
                answer.headers().contains_key(header::CONTENT_ENCODING),
                encoded,
                "{path}"
            );
        }
    }

    #[tokio::test]
    async fn gzip_when_asked_and_plain_when_nothing_is_accepted() {
        let (go, wait) = tokio::sync::oneshot::channel();
        go.send(()).unwrap();
        let page = two_part_page("gzip", wait).await;
        assert_eq!(page.headers()[header::CONTENT_ENCODING], "gzip");
        let bytes = axum::body::to_bytes(page.into_body(), 1 << 20)
            .await
            .unwrap();
        let mut whole = String::new();
        std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&bytes[..]), &mut whole)
            .unwrap();
        assert!(whole.ends_with("<p>the rest</p></body></html>"), "{whole}");
        let (go, wait) = tokio::sync::oneshot::channel();
        go.send(()).unwrap();
        let page = two_part_page("identity", wait).await;
        assert!(page.headers().get(header::CONTENT_ENCODING).is_none());
    }

    #[test]
    fn the_best_encoding_the_request_allows() {
        let best = Coding::accepted;
        assert_eq!(best("gzip, deflate, br, zstd"), Some(Coding::Brotli));
        assert_eq!(best("gzip, deflate"), Some(Coding::Gzip));
        assert_eq!(best("br;q=0, gzip;q=0.5"), Some(Coding::Gzip));
        assert_eq!(best("BR"), Some(Coding::Brotli));
        assert_eq!(best("*"), Some(Coding::Brotli));
        assert_eq!(best("*, br;q=0"), Some(Coding::Gzip));
        assert_eq!(best("identity"), None);
        assert_eq!(best("gzip;q=0, deflate"), None);
        assert_eq!(best(""), None);
    }
}
