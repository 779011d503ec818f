//! The browser's end of the live seat map: a WebSocket to `/showtimes/{id}/live` whose snapshot
//! and updates are merged into the picker by seat version. When the connection drops it
//! reconnects with exponential backoff (0.5 s doubling to 10 s) and resyncs from the new
//! connection's snapshot. A connection that has said nothing, not even its 15-second ping, for
//! `SILENCE_LIMIT_MS` (45 s) counts as dead and is replaced. Closed when the page goes away.

use super::picker::Picker;
#[cfg(not(feature = "ssr"))]
use crate::domain::LiveMessage;
use leptos::prelude::*;

/// How long a connection may stay silent before the browser gives up on it (three pings).
#[cfg(not(feature = "ssr"))]
pub const SILENCE_LIMIT_MS: f64 = 45_000.0;

/// Starts the live connection once the page runs in a browser.
pub fn run(picker: Picker) {
    Effect::new(move |_| connect(picker));
}

#[cfg(feature = "ssr")]
fn connect(_picker: Picker) {}

/// One page's live connection and what it remembers between reconnections.
#[cfg(not(feature = "ssr"))]
#[derive(Clone, Copy)]
struct Live {
    picker: Picker,
    socket: StoredValue<Option<web_sys::WebSocket>, LocalStorage>,
    failures: StoredValue<u32>,
    stopped: StoredValue<bool>,
    last_heard: StoredValue<f64>,
}

#[cfg(not(feature = "ssr"))]
fn connect(picker: Picker) {
    let live = Live {
        picker,
        socket: StoredValue::new_local(None),
        failures: StoredValue::new(0),
        stopped: StoredValue::new(false),
        last_heard: StoredValue::new(js_sys::Date::now()),
    };
    live.open();
    // A silent connection is closed; its close handler reconnects and resyncs.
    let watchdog = set_interval_with_handle(
        move || {
            let silent_for = js_sys::Date::now() - live.last_heard.try_get_value().unwrap_or(0.0);
            if silent_for > SILENCE_LIMIT_MS {
                live.last_heard.try_set_value(js_sys::Date::now());
                live.close_socket();
            }
        },
        std::time::Duration::from_secs(5),
    );
    on_cleanup(move || {
        if let Ok(watchdog) = watchdog {
            watchdog.clear();
        }
        live.stopped.set_value(true);
        live.socket.with_value(|s| {
            if let Some(s) = s {
                s.set_onclose(None);
                s.set_onmessage(None);
            }
        });
        live.close_socket();
    });
}

#[cfg(not(feature = "ssr"))]
impl Live {
    fn running(self) -> bool {
        self.stopped.try_get_value() == Some(false)
    }

    fn close_socket(self) {
        self.socket.try_with_value(|s| {
            if let Some(s) = s {
                let _ = s.close();
            }
        });
    }

    fn open(self) {
        use leptos::wasm_bindgen::closure::Closure;
        use leptos::wasm_bindgen::JsCast;

        if !self.running() {
            return;
        }
        let location = window().location();
        let scheme = if location.protocol().as_deref() == Ok("https:") {
            "wss"
        } else {
            "ws"
        };
        let host = location.host().unwrap_or_default();
        let url = format!("{scheme}://{host}/showtimes/{}/live", self.picker.showtime);
        let Ok(ws) = web_sys::WebSocket::new(&url) else {
            self.retry();
            return;
        };
        let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(
            move |event: web_sys::MessageEvent| {
                self.last_heard.try_set_value(js_sys::Date::now());
                let Some(text) = event.data().as_string() else {
                    return;
                };
                match crate::codec::read::<LiveMessage>(&text) {
                    Ok(message @ LiveMessage::Snapshot { .. }) => {
                        self.failures.try_set_value(0);
                        self.picker.apply(message.seats(), true);
                        self.picker.online.try_set(true);
                    }
                    Ok(LiveMessage::ShowtimeCancelled { .. }) => {
                        self.picker.cancelled.try_set(true);
                    }
                    Ok(message) => self.picker.apply(message.seats(), false),
                    Err(_) => {}
                }
            },
        );
        let on_close =
            Closure::<dyn FnMut(web_sys::CloseEvent)>::new(move |_: web_sys::CloseEvent| {
                self.picker.online.try_set(false);
                self.retry()
            });
        ws.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        ws.set_onclose(Some(on_close.as_ref().unchecked_ref()));
        // The socket owns its handlers for its whole life; they are small and one per connection.
        on_message.forget();
        on_close.forget();
        self.socket.try_set_value(Some(ws));
    }

    fn retry(self) {
        if !self.running() {
            return;
        }
        let n = self.failures.try_get_value().unwrap_or(0);
        self.failures.try_set_value(n.saturating_add(1));
        let delay = std::time::Duration::from_millis((500u64 << n.min(5)).min(10_000));
        set_timeout(move || self.open(), delay);
    }
}
