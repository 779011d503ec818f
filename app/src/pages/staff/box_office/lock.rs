//! The kiosk's lock: idle time, the network's state, the lock screen a PIN opens.

use super::*;

/// Locks the kiosk after `seconds` without a touch, a click or a key.
pub(super) fn watch_idle(seconds: u32, locked: RwSignal<bool>, sale_round: RwSignal<u32>) {
    Effect::new(move |_| {
        let last = StoredValue::new(js_sys::Date::now());
        let touched = move |_| last.set_value(js_sys::Date::now());
        let handles = [
            window_event_listener(leptos::ev::pointerdown, touched),
            window_event_listener(leptos::ev::keydown, move |_| {
                last.set_value(js_sys::Date::now())
            }),
        ];
        let check = move || {
            if locked.get_untracked() {
                last.set_value(js_sys::Date::now());
                return;
            }
            if js_sys::Date::now() - last.get_value() >= f64::from(seconds) * 1000.0 {
                last.set_value(js_sys::Date::now());
                spawn_local(async move {
                    if staff_lock().await.is_ok() {
                        locked.set(true);
                        sale_round.update(|r| *r += 1);
                    }
                });
            }
        };
        let interval = set_interval_with_handle(check, std::time::Duration::from_millis(500));
        on_cleanup(move || {
            for h in handles {
                h.remove();
            }
            if let Ok(i) = interval {
                i.clear();
            }
        });
    });
}

/// Follows the browser's own view of the network (`online`/`offline` events).
pub(super) fn watch_network(online: RwSignal<bool>) {
    Effect::new(move |_| {
        // `navigator.onLine`, read without another web-sys feature.
        let navigator = js_sys::Reflect::get(&window(), &"navigator".into()).ok();
        let on_line = navigator.and_then(|n| js_sys::Reflect::get(&n, &"onLine".into()).ok());
        online.set(on_line.and_then(|v| v.as_bool()).unwrap_or(true));
        let handles = [
            window_event_listener(leptos::ev::online, move |_| online.set(true)),
            window_event_listener(leptos::ev::offline, move |_| online.set(false)),
        ];
        on_cleanup(move || {
            for h in handles {
                h.remove();
            }
        });
    });
}

#[component]
pub(super) fn LockScreen(locked: RwSignal<bool>) -> impl IntoView {
    let lang = use_lang();
    let pin = RwSignal::new(String::new());
    let error = RwSignal::new(None::<InventoryError>);
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let given = pin.get_untracked();
        spawn_local(async move {
            match staff_unlock(given).await {
                Ok(()) => {
                    pin.set(String::new());
                    error.set(None);
                    locked.set(false);
                }
                Err(InventoryError::StaffSignInRequired) => {
                    let _ = window()
                        .location()
                        .set_href("/staff/sign-in?next=/box-office");
                }
                Err(e) => error.set(Some(e)),
            }
        });
    };
    let sign_out = move |_| {
        spawn_local(async move {
            let _ = staff_sign_out().await;
            let _ = window()
                .location()
                .set_href("/staff/sign-in?next=/box-office");
        });
    };
    view! {
        <div class="lock-screen" role="dialog" aria-modal="true" aria-labelledby="lock-title" data-test="lock-screen">
            <form class="kiosk-card" on:submit=submit>
                <h1 id="lock-title">{move || tr!(lang.get(), "kiosk.locked")}</h1>
                <label for="unlock-pin">{move || tr!(lang.get(), "kiosk.your_pin")}</label>
                <input id="unlock-pin" type="password" inputmode="numeric" autocomplete="off" bind:value=pin data-test="unlock-pin" />
                <button type="submit" class="primary" data-test="unlock">{move || tr!(lang.get(), "kiosk.unlock")}</button>
                {error_line(lang, error)}
                // Signing out releases the clerk's picks; the next clerk signs in.
                <button type="button" class="secondary" on:click=sign_out data-test="lock-sign-out">
                    {move || tr!(lang.get(), "staff.sign_out")}
                </button>
                <p><a href="/staff/sign-in?next=/box-office" rel="external">{move || tr!(lang.get(), "kiosk.other_clerk")}</a></p>
            </form>
        </div>
    }
}
