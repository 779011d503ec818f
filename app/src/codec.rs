//! One JSON reader for everything the browser decodes. Leptos reads a resource's server-sent
//! value with `serde_json::from_str` and a server function's answer with `from_slice`: two
//! readers, so every type read both ways had its decoder compiled twice into the bundles. Here
//! resources read their value as bytes too (as do the live map's and the waiting room's
//! frames), so each type has one decoder.

use leptos::server::codee::{Decoder, Encoder};
use serde::{de::DeserializeOwned, Serialize};

/// JSON, written as text and read as bytes.
pub struct Json;

impl<T: Serialize> Encoder<T> for Json {
    type Error = serde_json::Error;
    type Encoded = String;

    fn encode(value: &T) -> Result<String, serde_json::Error> {
        serde_json::to_string(value)
    }
}

impl<T: DeserializeOwned> Decoder<T> for Json {
    type Error = serde_json::Error;
    type Encoded = str;

    fn decode(text: &str) -> Result<T, serde_json::Error> {
        read(text)
    }
}

/// Reads JSON text the way every answer is read.
pub fn read<T: DeserializeOwned>(text: &str) -> Result<T, serde_json::Error> {
    serde_json::from_slice(text.as_bytes())
}

/// Compact JSON text laid out as `serde_json::to_string_pretty` lays it out (two spaces, one
/// member or element per line). Re-laying the text the browser already writes for a server
/// function spares each type a second serializer, compiled for the pretty formatter.
pub fn pretty(json: &str) -> String {
    let mut out = String::with_capacity(json.len() * 2);
    let mut depth = 0usize;
    let (mut in_string, mut escaped) = (false, false);
    let mut chars = json.chars().peekable();
    let line = |out: &mut String, depth: usize| {
        out.push('\n');
        out.extend(std::iter::repeat_n("  ", depth));
    };
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '{' | '[' => {
                out.push(c);
                if matches!(chars.peek(), Some('}' | ']')) {
                    out.extend(chars.next());
                } else {
                    depth += 1;
                    line(&mut out, depth);
                }
            }
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                line(&mut out, depth);
                out.push(c);
            }
            ',' => {
                out.push(c);
                line(&mut out, depth);
            }
            ':' => out.push_str(": "),
            c if c.is_whitespace() => {}
            c => out.push(c),
        }
    }
    out
}

/// A resource whose server-sent value is read with [`read`].
pub type Resource<T> = leptos::prelude::Resource<T, Json>;

/// [`Resource::new`](leptos::prelude::Resource::new), read with [`read`].
#[track_caller]
pub fn resource<S, T, Fut>(
    source: impl Fn() -> S + Send + Sync + 'static,
    fetcher: impl Fn(S) -> Fut + Send + Sync + 'static,
) -> Resource<T>
where
    S: PartialEq + Clone + Send + Sync + 'static,
    T: Serialize + DeserializeOwned + Send + Sync + 'static,
    Fut: std::future::Future<Output = T> + Send + 'static,
{
    leptos::prelude::Resource::new_with_options(source, fetcher, false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{QueueFrame, SeatsLeft, Won};

    #[test]
    fn what_is_written_as_text_reads_back_as_bytes() {
        let left = vec![SeatsLeft {
            code: "VIP".into(),
            name: "VIP 석".into(),
            price: Won::new(25_000),
            free: 3,
        }];
        let text = <Json as Encoder<Vec<SeatsLeft>>>::encode(&left).unwrap();
        let back: Vec<SeatsLeft> = <Json as Decoder<Vec<SeatsLeft>>>::decode(&text).unwrap();
        assert_eq!(back, left);
        assert!(read::<QueueFrame>("{\"served\": 1}").is_err());
    }

    #[test]
    fn pretty_lays_out_json_as_serde_json_does() {
        let value = serde_json::json!({
            "name": "Hall \"1\", {A}: [x]\\",
            "rows": [{"label": "A", "seats": [{"number": 1}, {"gap": 2}]}, {"empty": []}],
            "none": {},
            "price": -12.5,
            "flag": null
        });
        let compact = serde_json::to_string(&value).unwrap();
        assert_eq!(
            pretty(&compact),
            serde_json::to_string_pretty(&value).unwrap()
        );
    }
}
