//! Solving a proof of work in the browser (the waiting room's new place, a staff sign-in that
//! the server asks one of): the first nonce whose SHA-256 with the challenge starts with the
//! bits asked for, a slice at a time so the page stays live.

/// The first nonce that solves `challenge` at `bits`.
#[cfg(not(feature = "ssr"))]
pub async fn solve(challenge: &str, bits: u8) -> u64 {
    use crate::domain::QueueProof;
    use leptos::prelude::window;
    const SLICE: u64 = 20_000;
    let mut start = 0;
    loop {
        if let Some(nonce) = QueueProof::search(challenge, bits, start, SLICE) {
            return nonce;
        }
        start += SLICE;
        let pause = js_sys::Promise::new(&mut |resolve, _| {
            let _ = window().set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0);
        });
        let _ = wasm_bindgen_futures::JsFuture::from(pause).await;
    }
}

/// The server never solves one (its pages' handlers run in the browser).
#[cfg(feature = "ssr")]
pub async fn solve(challenge: &str, bits: u8) -> u64 {
    crate::domain::QueueProof::search(challenge, bits, 0, u64::MAX).unwrap_or(0)
}
