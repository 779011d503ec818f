//! `/door`: ticket check-in for door staff, on a phone or a kiosk with a barcode scanner. A
//! keyboard-wedge scanner types the code in a burst ending with Enter while no field has the
//! focus: the page catches the burst and checks the ticket in; the code can also be typed or
//! pasted into the field. The answer fills the screen: green to let in (with row and seat), red
//! otherwise (already in, another showtime, refunded, exchanged, not ours), naming the scanned
//! seats, the ticket's show and how many of the party are in. The gate's name and the showtime it
//! admits (by default those whose doors are open now) stay set. Where the browser reads QR codes
//! (`BarcodeDetector`), "Scan with the camera" reads tickets from the back camera.

use super::StaffRefusal;
use crate::domain::{CheckIn, CheckInResult, ScanAt, ShowtimeId, DOOR_ROLES};
use crate::error::InventoryError;
use crate::error_text::error_text;
use crate::format::{clock_time, now, showtime_when};
use crate::i18n::use_lang;
use crate::serverfns::{check_in_ticket, list_showtimes, staff_me};
use crate::tr;
use leptos::prelude::*;
use leptos::task::spawn_local;

/// A scanner types faster than this between keys (milliseconds); a person does not.
const BURST_GAP_MS: f64 = 80.0;
/// The shortest code a scan can be.
const MIN_CODE: usize = 8;

#[component]
pub fn DoorPage() -> impl IntoView {
    let lang = use_lang();
    let me = crate::codec::resource(|| (), |_| staff_me());
    let hydrated = RwSignal::new(false);
    Effect::new(move |_| hydrated.set(true));
    view! {
        <section class="door" data-test="door" data-hydrated=move || hydrated.get().to_string()>
            <Suspense fallback=move || view! { <p>{tr!(lang.get_untracked(), "common.loading")}</p> }>
                {move || Suspend::new(async move {
                    match me.await {
                        Ok(member) if member.role.may(&DOOR_ROLES) => view! { <Scanner /> }.into_any(),
                        Ok(_) => view! { <StaffRefusal error=InventoryError::StaffForbidden here="/door" /> }.into_any(),
                        Err(error) => view! { <StaffRefusal error here="/door" /> }.into_any(),
                    }
                })}
            </Suspense>
        </section>
    }
}

#[component]
fn Scanner() -> impl IntoView {
    let lang = use_lang();
    let gate = RwSignal::new(String::from("1"));
    let showtime = RwSignal::new(String::new());
    let code = RwSignal::new(String::new());
    let answer = RwSignal::new(None::<Result<CheckIn, InventoryError>>);
    // The showtimes not over yet, judged when read (the browser hydrates the server's list).
    let showtimes = crate::codec::resource(
        || (),
        |_| async {
            let now = now();
            list_showtimes().await.map(|list| {
                list.into_iter()
                    .filter(|s| !s.cancelled && s.ends_at > now)
                    .collect::<Vec<_>>()
            })
        },
    );
    let scan = move |text: String| {
        let text = text.trim().to_string();
        if text.is_empty() {
            return;
        }
        let at = ScanAt {
            gate: Some(gate.get_untracked()),
            showtime_id: ShowtimeId::parse(&showtime.get_untracked()),
        };
        spawn_local(async move {
            answer.set(Some(check_in_ticket(text, at).await));
        });
    };
    // The keyboard wedge: keys typed fast while no field has the focus, ending with Enter.
    Effect::new(move |_| {
        let buffer = StoredValue::new(String::new());
        let last = StoredValue::new(0.0f64);
        let handle = window_event_listener(leptos::ev::keydown, move |ev| {
            let focused_field = document()
                .active_element()
                .is_some_and(|e| matches!(e.tag_name().as_str(), "INPUT" | "SELECT" | "TEXTAREA"));
            if focused_field {
                return;
            }
            // When the key was pressed, not when this handler got to it (a busy page may handle
            // a burst late, but its keys keep their own times).
            let now = ev.time_stamp();
            if now - last.get_value() > BURST_GAP_MS {
                buffer.set_value(String::new());
            }
            last.set_value(now);
            let key = ev.key();
            if key == "Enter" {
                let typed = buffer.get_value();
                buffer.set_value(String::new());
                if typed.len() >= MIN_CODE {
                    ev.prevent_default();
                    scan(typed);
                }
            } else if key.chars().count() == 1 {
                buffer.update_value(|b| b.push_str(&key));
            }
        });
        on_cleanup(move || handle.remove());
    });
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        scan(code.get_untracked());
        code.set(String::new());
    };
    view! {
        <div class="door-settings">
            <label for="gate">{move || tr!(lang.get(), "door.gate")}</label>
            <input id="gate" bind:value=gate data-test="gate" />
            <label for="door-showtime">{move || tr!(lang.get(), "door.showtime")}</label>
            <select id="door-showtime" bind:value=showtime data-test="door-showtime">
                <option value="">{move || tr!(lang.get(), "door.any_showtime")}</option>
                <Suspense>
                    {move || Suspend::new(async move {
                        // In the order they start: what is on or about to begin first.
                        let mut list = showtimes.await.unwrap_or_default();
                        crate::domain::ShowtimeSummary::sort_by_start(&mut list);
                        list.into_iter().map(|s| {
                            let when = s.starts_at;
                            view! { <option value=s.id.to_string()>{s.movie_title.clone()} " · " {move || showtime_when(lang.get(), when)}</option> }
                        }).collect_view()
                    })}
                </Suspense>
            </select>
        </div>
        <form class="door-form" on:submit=submit data-test="scan-form">
            <label for="code">{move || tr!(lang.get(), "door.code")}</label>
            <input id="code" autocomplete="off" autocapitalize="none" spellcheck="false" bind:value=code data-test="code" />
            <button type="submit" class="primary" data-test="check-in">{move || tr!(lang.get(), "door.check_in")}</button>
        </form>
        <p class="hint">{move || tr!(lang.get(), "door.scanner_hint")}</p>
        <Camera scan />
        {move || answer.get().map(|a| view! { <Verdict answer=a /> })}
    }
}

#[component]
fn Verdict(answer: Result<CheckIn, InventoryError>) -> impl IntoView {
    let lang = use_lang();
    match answer {
        Ok(check) => {
            let admits = check.result.admits();
            // The seats let in now; else the seats the code is for (the one seat of a seat's
            // ticket, whatever became of it), never the booking's others.
            let shown = if check.admitted.is_empty() {
                &check.scanned
            } else {
                &check.admitted
            };
            let seats = crate::seating::reading_order(shown).join(", ");
            let (inside, total) = (check.checked_in, check.seats.len());
            let result = check.result;
            let first = check.first_scan_at.map(clock_time);
            let first_gate = check.first_scan_gate.clone().unwrap_or_default();
            // Which show the ticket is for: film, hall and time (another showtime's names its own).
            let show = check.movie_title.clone().map(|title| {
                let hall = check.hall_name.clone().unwrap_or_default();
                let starts = check.starts_at;
                move || {
                    let when = starts
                        .map(|t| showtime_when(lang.get(), t))
                        .unwrap_or_default();
                    format!("{title} · {hall} · {when}")
                }
            });
            view! {
                <output class="verdict" class:admit=admits class:refuse=!admits role="status"
                    data-test="verdict" data-result=result.as_str()>
                    <strong class="verdict-word">{move || match result {
                        CheckInResult::Ok => tr!(lang.get(), "door.ok"),
                        CheckInResult::AlreadyCheckedIn => tr!(lang.get(), "door.already", at = first.clone().unwrap_or_default(), gate = first_gate.clone()),
                        CheckInResult::WrongShowtime => tr!(lang.get(), "door.wrong_showtime"),
                        CheckInResult::Refunded => tr!(lang.get(), "door.refunded"),
                        CheckInResult::Exchanged => tr!(lang.get(), "door.exchanged"),
                        CheckInResult::Cancelled => tr!(lang.get(), "door.cancelled"),
                        CheckInResult::NotFound => tr!(lang.get(), "door.not_found"),
                    }}</strong>
                    <span class="verdict-seats" data-test="verdict-seats">{seats}</span>
                    {(total > 0 && matches!(result, CheckInResult::Ok | CheckInResult::AlreadyCheckedIn)).then(|| view! {
                        <span class="verdict-count" data-test="verdict-count">
                            {move || tr!(lang.get(), "door.admitted", inside = inside, total = total)}
                        </span>
                    })}
                    {(!check.check_id.is_empty()).then(|| {
                        let proof = check.check_id.clone();
                        view! {
                            <strong class="verdict-check-id" data-test="verdict-check-id">
                                {move || tr!(lang.get(), "door.check_id", seats = proof.iter().map(|t| format!("{} {}", t.seat, crate::i18n::translate(lang.get(), t.ticket_type.name_key(), &[]))).collect::<Vec<_>>().join(", "))}
                            </strong>
                        }
                    })}
                    {show.map(|show| view! { <span class="verdict-show" data-test="verdict-show">{show}</span> })}
                </output>
            }.into_any()
        }
        Err(e) => view! {
            <output class="verdict refuse" role="alert" data-test="verdict" data-result="ERROR">
                <strong class="verdict-word">{move || error_text(lang.get(), &e)}</strong>
            </output>
        }
        .into_any(),
    }
}

/// How often the camera's picture is searched for a QR code.
const CAMERA_EVERY_MS: u64 = 300;
/// The same code seen again within this time is the same scan, not a second one.
const SAME_SCAN_MS: f64 = 3_000.0;

/// Scanning with the camera, where the browser can read QR codes: the back camera's picture is
/// searched a few times a second, and each code found is scanned once.
#[component]
fn Camera(scan: impl Fn(String) + Copy + 'static) -> impl IntoView {
    let lang = use_lang();
    let supported = RwSignal::new(false);
    let running = RwSignal::new(false);
    let starting = RwSignal::new(false);
    let failed = RwSignal::new(false);
    let video = NodeRef::<leptos::html::Video>::new();
    Effect::new(move |_| supported.set(camera::supported()));
    // The stream lives on the video element (`srcObject`), never in the page's state: nothing
    // browser-only is kept where the server renders.
    let stop = move || {
        if let Some(element) = video.get_untracked() {
            camera::stop(&element);
        }
        running.set(false);
    };
    let start = move |_| {
        let Some(element) = video.get() else { return };
        if starting.get_untracked() {
            return;
        }
        starting.set(true);
        failed.set(false);
        spawn_local(async move {
            let started = camera::start(&element).await;
            // The page may have gone while the browser asked for the camera: then let it go.
            let here = starting.try_set(false).is_none();
            match started {
                Ok(()) if here => {
                    running.set(true);
                }
                Ok(()) => camera::stop(&element),
                Err(_) => {
                    let _ = failed.try_set(true);
                }
            }
        });
    };
    // While the camera runs: look for a code a few times a second.
    Effect::new(move |_| {
        if !running.get() {
            return;
        }
        let Some(element) = video.get_untracked() else {
            return;
        };
        let Some(detector) = camera::detector() else {
            failed.set(true);
            return;
        };
        let last = StoredValue::new((String::new(), 0.0f64));
        let busy = StoredValue::new(false);
        let look = move || {
            if busy.get_value() {
                return;
            }
            busy.set_value(true);
            let (detector, element) = (detector.clone(), element.clone());
            spawn_local(async move {
                if let Some(code) = camera::detect(&detector, &element).await {
                    let now = js_sys::Date::now();
                    let (seen, at) = last.get_value();
                    if code != seen || now - at > SAME_SCAN_MS {
                        last.set_value((code.clone(), now));
                        scan(code);
                    }
                }
                busy.set_value(false);
            });
        };
        if let Ok(handle) =
            set_interval_with_handle(look, std::time::Duration::from_millis(CAMERA_EVERY_MS))
        {
            on_cleanup(move || handle.clear());
        }
    });
    on_cleanup(stop);
    view! {
        <Show when=move || supported.get()>
            <div class="camera">
                <Show
                    when=move || running.get()
                    fallback=move || view! {
                        <button type="button" on:click=start disabled=move || starting.get() data-test="camera-start">{move || tr!(lang.get(), "door.camera_start")}</button>
                    }
                >
                    <button type="button" on:click=move |_| stop() data-test="camera-stop">{move || tr!(lang.get(), "door.camera_stop")}</button>
                </Show>
                <Show when=move || failed.get()>
                    <p class="error" role="alert">{move || tr!(lang.get(), "door.camera_failed")}</p>
                </Show>
            </div>
        </Show>
        <video node_ref=video class="camera-view" class:hidden=move || !running.get()
            muted=true autoplay=true playsinline=true data-test="camera-view"></video>
    }
}

/// The browser's camera and QR reader, through their JavaScript APIs (no web-sys features for
/// them): `navigator.mediaDevices.getUserMedia` and `BarcodeDetector`.
mod camera {
    use js_sys::{Array, Function, Object, Promise, Reflect};
    use leptos::wasm_bindgen::{JsCast, JsValue};
    use wasm_bindgen_futures::JsFuture;

    fn get(target: &JsValue, key: &str) -> Option<JsValue> {
        Reflect::get(target, &key.into())
            .ok()
            .filter(|v| !v.is_undefined() && !v.is_null())
    }

    fn call(target: &JsValue, method: &str, args: &[JsValue]) -> Option<JsValue> {
        let f: Function = get(target, method)?.dyn_into().ok()?;
        f.apply(target, &args.iter().collect::<Array>()).ok()
    }

    fn media_devices() -> Option<JsValue> {
        get(&get(&js_sys::global(), "navigator")?, "mediaDevices")
    }

    /// Whether this browser can both film and read QR codes.
    pub fn supported() -> bool {
        get(&js_sys::global(), "BarcodeDetector").is_some()
            && media_devices().is_some_and(|m| get(&m, "getUserMedia").is_some())
    }

    /// Starts the back camera into `video`.
    pub async fn start(video: &JsValue) -> Result<(), JsValue> {
        let devices = media_devices().ok_or(JsValue::NULL)?;
        // A stream already on the element (a second start) is stopped, never left running.
        stop(video);
        let constraints = Object::new();
        let wanted = Object::new();
        Reflect::set(&wanted, &"facingMode".into(), &"environment".into())?;
        Reflect::set(&constraints, &"video".into(), &wanted)?;
        let promise: Promise = call(&devices, "getUserMedia", &[constraints.into()])
            .ok_or(JsValue::NULL)?
            .dyn_into()?;
        let stream = JsFuture::from(promise).await?;
        Reflect::set(video, &"srcObject".into(), &stream)?;
        if let Some(played) = call(video, "play", &[]).and_then(|p| p.dyn_into::<Promise>().ok()) {
            JsFuture::from(played).await?;
        }
        Ok(())
    }

    /// Stops every track of the video's stream (the camera's light goes off) and lets it go.
    pub fn stop(video: &JsValue) {
        let Some(stream) = get(video, "srcObject") else {
            return;
        };
        if let Some(tracks) = call(&stream, "getTracks", &[]) {
            for track in Array::from(&tracks).iter() {
                call(&track, "stop", &[]);
            }
        }
        let _ = Reflect::set(video, &"srcObject".into(), &JsValue::NULL);
    }

    /// A QR code reader.
    pub fn detector() -> Option<JsValue> {
        let class: Function = get(&js_sys::global(), "BarcodeDetector")?.dyn_into().ok()?;
        let options = Object::new();
        let formats = Array::of1(&"qr_code".into());
        Reflect::set(&options, &"formats".into(), &formats).ok()?;
        Reflect::construct(&class, &Array::of1(&options)).ok()
    }

    /// The first QR code in the video's picture, if any.
    pub async fn detect(detector: &JsValue, video: &JsValue) -> Option<String> {
        let promise: Promise = call(detector, "detect", std::slice::from_ref(video))?
            .dyn_into()
            .ok()?;
        let found = JsFuture::from(promise).await.ok()?;
        let first = Array::from(&found).get(0);
        get(&first, "rawValue")?.as_string()
    }
}
