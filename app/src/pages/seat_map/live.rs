//! The browser's end of the live seat map: a WebSocket to `/showtimes/{id}/live` whose snapshot
//! and updates are merged into the picker by seat version. When the connection drops it
//! reconnects with exponential backoff (0.5 s doubling to 10 s) and resyncs from the new
//! connection's snapshot. Closed when the page goes away.

use super::picker::Picker;
#[cfg(not(feature = "ssr"))]
use crate::domain::LiveMessage;
use leptos::prelude::*;

/// Starts the live connection once the page runs in a browser.
pub fn run(picker: Picker) {
    Effect::new(move |_| connect(picker));
}

#[cfg(feature = "ssr")]
fn connect(_picker: Picker) {}

#[cfg(not(feature = "ssr"))]
fn connect(picker: Picker) {
    let socket = StoredValue::new_local(None::<web_sys::WebSocket>);
    let failures = StoredValue::new(0u32);
    let stopped = StoredValue::new(false);
    open(picker, socket, failures, stopped);
    on_cleanup(move || {
        stopped.set_value(true);
        socket.with_value(|s| {
            if let Some(s) = s {
                s.set_onclose(None);
                s.set_onmessage(None);
                let _ = s.close();
            }
        });
    });
}

#[cfg(not(feature = "ssr"))]
type LocalSocket = StoredValue<Option<web_sys::WebSocket>, LocalStorage>;

#[cfg(not(feature = "ssr"))]
fn open(
    picker: Picker,
    socket: LocalSocket,
    failures: StoredValue<u32>,
    stopped: StoredValue<bool>,
) {
    use leptos::wasm_bindgen::closure::Closure;
    use leptos::wasm_bindgen::JsCast;

    if stopped.try_get_value() != Some(false) {
        return;
    }
    let location = window().location();
    let scheme = if location.protocol().as_deref() == Ok("https:") {
        "wss"
    } else {
        "ws"
    };
    let url = format!(
        "{scheme}://{}/showtimes/{}/live",
        location.host().unwrap_or_default(),
        picker.showtime
    );
    let Ok(ws) = web_sys::WebSocket::new(&url) else {
        retry(picker, socket, failures, stopped);
        return;
    };
    let on_message =
        Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
            let Some(text) = event.data().as_string() else {
                return;
            };
            match serde_json::from_str::<LiveMessage>(&text) {
                Ok(message @ LiveMessage::Snapshot { .. }) => {
                    failures.try_set_value(0);
                    picker.apply(message.seats(), true);
                }
                Ok(message) => picker.apply(message.seats(), false),
                Err(_) => {}
            }
        });
    let on_close = Closure::<dyn FnMut(web_sys::CloseEvent)>::new(move |_: web_sys::CloseEvent| {
        retry(picker, socket, failures, stopped);
    });
    ws.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    ws.set_onclose(Some(on_close.as_ref().unchecked_ref()));
    // The socket owns its handlers for its whole life; they are small and one per connection.
    on_message.forget();
    on_close.forget();
    socket.try_set_value(Some(ws));
}

#[cfg(not(feature = "ssr"))]
fn retry(
    picker: Picker,
    socket: LocalSocket,
    failures: StoredValue<u32>,
    stopped: StoredValue<bool>,
) {
    if stopped.try_get_value() != Some(false) {
        return;
    }
    let n = failures.try_get_value().unwrap_or(0);
    failures.try_set_value(n.saturating_add(1));
    let delay = std::time::Duration::from_millis((500u64 << n.min(5)).min(10_000));
    set_timeout(move || open(picker, socket, failures, stopped), delay);
}
