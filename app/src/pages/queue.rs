//! `/showtimes/:id/waiting-room`: the waiting room of a hot sale. The page takes the customer's place
//! (the same one again after a reload), then follows the room's one live frame over a
//! WebSocket: from the `served` counter it computes its own position, people ahead and the
//! wait. When its turn comes it asks for its admission and goes to the seat map. Its place is
//! kept alive while the page is connected (and by its polls when the socket is down).

use crate::domain::{QueueFrame, QueuePlace, QueueState, ShowtimeId};
use crate::error::InventoryError;
use crate::error_text::error_text;
use crate::i18n::use_lang;
use crate::tr;
use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

/// What the page knows of its place.
#[derive(Clone, Copy)]
#[cfg_attr(feature = "ssr", allow(dead_code))]
struct Room {
    showtime: ShowtimeId,
    place: RwSignal<Option<QueuePlace>>,
    frame: RwSignal<Option<QueueFrame>>,
    error: RwSignal<Option<InventoryError>>,
    stopped: StoredValue<bool>,
    /// The live connection (closed when the page goes away).
    socket: StoredValue<Option<web_sys::WebSocket>, LocalStorage>,
    /// Bumped by each join: the socket and poll loop of an older place stop.
    generation: StoredValue<u64>,
}

impl Room {
    /// Position now: the frame's view of it once there is one (it never moves back).
    fn position(self) -> Option<u64> {
        let place = self.place.get()?;
        if place.state == QueueState::Admitted {
            return Some(0);
        }
        let from_frame = self.frame.get().map(|f| f.position(place.number));
        Some(from_frame.map_or(place.position, |p| p.min(place.position)))
    }

    fn wait_minutes(self) -> Option<f64> {
        let position = self.position()?;
        let rate = self.frame.get().and_then(|f| f.per_minute).or_else(|| {
            let p = self.place.get()?;
            p.wait_minutes.map(|m| p.position as f64 / m.max(1e-9))
        });
        crate::domain::wait_minutes(position, rate)
    }

    /// What the page says of the wait: measured from the room's pace once there is one, until
    /// then the longest it can be (and the longest stay inside, which bounds it).
    fn wait_text(self, lang: crate::i18n::Lang) -> String {
        let longest = || {
            let frame = self.frame.get()?;
            Some((frame.longest_wait(self.position()?)?, frame.stay_minutes))
        };
        match (self.wait_minutes(), longest()) {
            (Some(m), _) if m < 1.0 => tr!(lang, "queue.wait_soon"),
            (Some(m), _) => tr!(lang, "queue.wait_minutes", minutes = m.ceil() as u64),
            (None, Some((minutes, stay))) => {
                tr!(lang, "queue.wait_at_most", minutes = minutes, stay = stay)
            }
            (None, None) => tr!(lang, "queue.wait_unknown"),
        }
    }
}

#[component]
pub fn QueuePage() -> impl IntoView {
    let lang = use_lang();
    let params = use_params_map();
    let showtime = params
        .read_untracked()
        .get("id")
        .and_then(|id| ShowtimeId::parse(&id));
    let hydrated = RwSignal::new(false);
    Effect::new(move |_| hydrated.set(true));
    let Some(showtime) = showtime else {
        return view! { <p class="error" role="alert">{move || tr!(lang.get(), "error.showtime_not_found")}</p> }
            .into_any();
    };
    let room = Room {
        showtime,
        place: RwSignal::new(None),
        frame: RwSignal::new(None),
        error: RwSignal::new(None),
        stopped: StoredValue::new(false),
        socket: StoredValue::new_local(None),
        generation: StoredValue::new(0),
    };
    Effect::new(move |_| browser::start(room));
    on_cleanup(move || {
        room.stopped.set_value(true);
        if let Some(ws) = room.socket.try_update_value(Option::take).flatten() {
            ws.set_onclose(None);
            let _ = ws.close();
        }
    });
    let position = move || room.position();
    let pending = move || {
        room.place.with(|p| {
            p.as_ref()
                .and_then(|p| p.draw.as_ref())
                .is_some_and(|d| d.pending)
        })
    };
    let drawn = move || {
        let draw = room.place.get()?.draw?;
        Some((draw.arrival?, draw.entrants, draw.seed?))
    };
    let admitted = move || {
        room.place
            .get()
            .is_some_and(|p| p.state == QueueState::Admitted)
    };
    view! {
        <section class="queue-page" data-test="queue-page" data-hydrated=move || hydrated.get().to_string()
            data-state=move || match room.place.get().map(|p| p.state) {
                Some(QueueState::Admitted) => "admitted",
                Some(QueueState::Waiting) => "waiting",
                None => "joining",
            }>
            <h1>{move || tr!(lang.get(), "queue.heading")}</h1>
            <p class="queue-explain">{move || tr!(lang.get(), "queue.explain")}</p>
            // The proof of work is a step of joining, not a failure.
            {move || room.error.get().map(|e| {
                let (class, role, test) = match e {
                    InventoryError::ProofRequired { .. } => ("notice info", "status", "queue-proof"),
                    _ => ("error", "alert", "queue-error"),
                };
                view! { <p class=class role=role data-test=test>{error_text(lang.get(), &e)}</p> }
            })}
            {move || room.frame.get().filter(|f| !f.message.is_empty()).map(|f| view! {
                <p class="notice" role="status" data-test="queue-message">{f.message}</p>
            })}
            <Show when=move || room.place.with(Option::is_some) fallback=move || view! {
                <p role="status">{move || tr!(lang.get(), "queue.joining")}</p>
            }>
                <Show when=admitted fallback=move || view! {
                    <Show when=move || !pending() fallback=move || view! {
                        <div class="queue-place" role="status" data-test="queue-draw-pending">
                            <p>{move || tr!(lang.get(), "queue.draw_pending")}</p>
                            <p class="hint">{move || tr!(lang.get(), "queue.keep_open")}</p>
                        </div>
                    }>
                    <div class="queue-place" role="status" aria-live="polite">
                        <p class="queue-position">
                            {move || tr!(lang.get(), "queue.position")}
                            " "
                            <strong data-test="queue-position">{move || position().unwrap_or(0)}</strong>
                        </p>
                        <p>
                            {move || tr!(lang.get(), "queue.ahead")}
                            " "
                            <strong data-test="queue-ahead">{move || position().unwrap_or(1).saturating_sub(1)}</strong>
                        </p>
                        <p data-test="queue-wait">{move || room.wait_text(lang.get())}</p>
                        {move || room.frame.get().filter(|f| f.full()).map(|f| view! {
                            <p data-test="queue-full">{tr!(lang.get(), "queue.full", inside = f.inside, max = f.max_inside)}</p>
                        })}
                        {move || room.frame.get().filter(|f| f.paused).map(|_| view! {
                            <p class="notice" data-test="queue-paused">{tr!(lang.get(), "queue.paused")}</p>
                        })}
                        <p class="hint">{move || tr!(lang.get(), "queue.keep_open")}</p>
                        {move || drawn().map(|(arrival, entrants, seed)| view! {
                            <p class="hint" data-test="queue-drawn">
                                {tr!(lang.get(), "queue.drawn", arrival = arrival, entrants = entrants, seed = seed)}
                            </p>
                        })}
                    </div>
                    </Show>
                }>
                    <p class="notice" role="status" data-test="queue-admitted">{move || tr!(lang.get(), "queue.admitted")}</p>
                </Show>
            </Show>
            {move || room.frame.get().filter(|f| !f.left.is_empty()).map(|f| view! {
                <h2>{tr!(lang.get(), "queue.left")}</h2>
                <ul class="queue-left" aria-live="polite">
                    {f.left.into_iter().map(|c| view! {
                        <li data-test="queue-left" data-category=c.code data-free=c.free.to_string()>
                            {c.name} " " {crate::format::price(lang.get(), c.price)} ": "
                            <strong>{match c.free {
                                0 => tr!(lang.get(), "queue.sold_out"),
                                n => tr!(lang.get(), "queue.left_count", count = n),
                            }}</strong>
                        </li>
                    }).collect_view()}
                </ul>
            })}
        </section>
    }
    .into_any()
}

#[cfg(feature = "ssr")]
mod browser {
    pub(super) fn start(_room: super::Room) {}
}

#[cfg(not(feature = "ssr"))]
mod browser {
    use super::*;
    use crate::domain::QueueProof;
    use crate::serverfns::{join_queue, queue_status};
    use leptos::task::spawn_local;
    use leptos::wasm_bindgen::closure::Closure;
    use leptos::wasm_bindgen::JsCast;

    pub(super) fn start(room: Room) {
        spawn_local(async move { join(room).await });
    }

    fn running(room: Room) -> bool {
        room.stopped.try_get_value() == Some(false)
    }

    /// Still the page's current place (no newer join).
    fn current(room: Room, generation: u64) -> bool {
        running(room) && room.generation.try_get_value() == Some(generation)
    }

    fn close_socket(room: Room) {
        if let Some(ws) = room.socket.try_update_value(Option::take).flatten() {
            ws.set_onclose(None);
            ws.set_onmessage(None);
            let _ = ws.close();
        }
    }

    /// Takes the place: with a proof of work first when the room asks one for a new place.
    async fn join(room: Room) {
        let mut proof = None;
        let answer = loop {
            match join_queue(room.showtime, proof.take()).await {
                Err(InventoryError::ProofRequired { challenge, bits }) if running(room) => {
                    room.error.try_set(Some(InventoryError::ProofRequired {
                        challenge: challenge.clone(),
                        bits,
                    }));
                    let nonce = crate::components::proof::solve(&challenge, bits).await;
                    proof = Some(QueueProof { challenge, nonce });
                }
                answer => break answer,
            }
        };
        match answer {
            Ok(place) => {
                room.error.try_set(None);
                room.frame.try_set(None);
                let ticket = place.ticket.clone();
                let poll = place.poll_after_ms;
                let admitted = place.state == QueueState::Admitted;
                room.place.try_set(Some(place));
                if admitted {
                    enter(room);
                    return;
                }
                // One socket and one poll loop, for this place only.
                close_socket(room);
                let generation = room.generation.try_update_value(|g| {
                    *g += 1;
                    *g
                });
                let Some(generation) = generation else { return };
                connect(room, ticket, generation);
                schedule_poll(room, poll, generation);
            }
            Err(InventoryError::NoWaitingRoom) => enter(room),
            Err(e) => {
                let retry = e.retry_after().unwrap_or(5);
                room.error.try_set(Some(e));
                set_timeout(
                    move || {
                        if running(room) {
                            spawn_local(async move { join(room).await });
                        }
                    },
                    std::time::Duration::from_secs(retry),
                );
            }
        }
    }

    /// To the seat map: admitted, or the room is off.
    fn enter(room: Room) {
        room.stopped.try_set_value(true);
        let _ = window()
            .location()
            .set_href(&format!("/showtimes/{}", room.showtime));
    }

    /// Asks for the place now: admitted → the seat map; gone → join again.
    async fn ask(room: Room) {
        if !running(room) {
            return;
        }
        match queue_status(room.showtime).await {
            Ok(Some(place)) if place.state == QueueState::Admitted => {
                room.place.try_set(Some(place));
                enter(room);
            }
            Ok(Some(place)) => {
                room.place.try_set(Some(place));
            }
            Ok(None) => enter(room),
            Err(InventoryError::QueuePlaceNotFound) => join(room).await,
            Err(_) => {} // too soon, or the network: the next poll asks again
        }
    }

    fn schedule_poll(room: Room, every_ms: u64, generation: u64) {
        set_timeout(
            move || {
                if current(room, generation) {
                    spawn_local(async move {
                        ask(room).await;
                        schedule_poll(room, every_ms, generation);
                    });
                }
            },
            std::time::Duration::from_millis(every_ms.max(1000)),
        );
    }

    fn connect(room: Room, ticket: String, generation: u64) {
        if !current(room, generation) {
            return;
        }
        let location = window().location();
        let scheme = if location.protocol().as_deref() == Ok("https:") {
            "wss"
        } else {
            "ws"
        };
        let host = location.host().unwrap_or_default();
        let url = format!(
            "{scheme}://{host}/showtimes/{}/queue/live?ticket={ticket}",
            room.showtime
        );
        let Ok(ws) = web_sys::WebSocket::new(&url) else {
            return;
        };
        let first_epoch = StoredValue::new(None::<u64>);
        let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(
            move |event: web_sys::MessageEvent| {
                let Some(frame) = event
                    .data()
                    .as_string()
                    .and_then(|t| crate::codec::read::<QueueFrame>(&t).ok())
                else {
                    return;
                };
                if !frame.open {
                    enter(room);
                    return;
                }
                let epoch = first_epoch.get_value().unwrap_or(frame.epoch);
                first_epoch.set_value(Some(epoch));
                if frame.epoch != epoch {
                    // The room was reset: every place is gone; the poll joins again.
                    first_epoch.set_value(Some(frame.epoch));
                    spawn_local(async move { ask(room).await });
                    return;
                }
                let number = room
                    .place
                    .get_untracked()
                    .map(|p| p.number)
                    .unwrap_or(u64::MAX);
                let turn = frame.position(number) == 0;
                room.frame.try_set(Some(frame));
                if turn {
                    spawn_local(async move { ask(room).await });
                }
            },
        );
        let retry_ticket = ticket.clone();
        let on_close =
            Closure::<dyn FnMut(web_sys::CloseEvent)>::new(move |_: web_sys::CloseEvent| {
                let ticket = retry_ticket.clone();
                set_timeout(
                    move || connect(room, ticket, generation),
                    std::time::Duration::from_secs(2),
                );
            });
        ws.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        ws.set_onclose(Some(on_close.as_ref().unchecked_ref()));
        on_message.forget();
        on_close.forget();
        room.socket.try_set_value(Some(ws));
    }
}
