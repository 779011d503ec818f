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
}
