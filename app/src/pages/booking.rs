//! `/my-bookings/:id`: where the customer lands after the payment page. It shows the booking as
//! PENDING until the payment is settled and the ticket issued (asked again every second, without
//! reloading), then the ticket — seats, showtime, price and a QR code with a signed code,
//! printable — or why the booking failed and the refund. Back from a declined payment it returns
//! to the hold.
//! `/my-bookings`: the customer's bookings.

use crate::domain::{BookingState, BookingView};
use crate::error_text::error_text;
use crate::format::{price, showtime_when};
use crate::i18n::{use_lang, Lang};
use crate::serverfns::{cancel_booking, get_booking, get_ticket, my_bookings, send_booking_link};
use crate::tr;
use leptos::prelude::*;
use leptos_router::components::Redirect;
use leptos_router::hooks::{use_params_map, use_query_map};

#[component]
pub fn BookingPage() -> impl IntoView {
    let lang = use_lang();
    let params = use_params_map();
    let query = use_query_map();
    let id = Memo::new(move |_| params.read().get("id").unwrap_or_default());
    let declined = query.with_untracked(|q| q.get("status").as_deref() == Some("declined"));
    // Bumped every second while the booking is pending: the resource asks again.
    let tick = RwSignal::new(0u32);
    let pending = RwSignal::new(false);
    let booking = crate::codec::resource(move || (id.get(), tick.get()), |(id, _)| get_booking(id));
    let hydrated = RwSignal::new(false);
    Effect::new(move |_| {
        hydrated.set(true);
        if let Ok(handle) = set_interval_with_handle(
            move || {
                if pending.get_untracked() {
                    tick.update(|t| *t += 1);
                }
            },
            std::time::Duration::from_secs(1),
        ) {
            on_cleanup(move || handle.clear());
        }
    });
    view! {
        <section class="booking-page" data-test="booking-page" data-hydrated=move || hydrated.get().to_string()>
            <h1>{move || tr!(lang.get(), "booking.heading")}</h1>
            <Transition fallback=move || view! { <p>{tr!(lang.get_untracked(), "common.loading")}</p> }>
                {move || Suspend::new(async move {
                    match booking.await {
                        Ok(b) if declined && b.status == "PENDING" => {
                            let to = format!("/showtimes/{}?payment=declined", b.showtime_id);
                            view! { <Redirect path=to /> }.into_any()
                        }
                        Ok(b) => {
                            // Confirmed but not yet issued: the ticket consumer is a moment behind.
                            // Cancelled and paid: the refund is a moment behind too.
                            let refunding = b.showtime_cancelled
                                && b.payments.iter().any(|p| p.status == "PAID");
                            pending.set(
                                refunding
                                    || (!b.showtime_cancelled && b.status == "PENDING")
                                    || (b.status == "CONFIRMED" && b.ticket_issued_at.is_none()),
                            );
                            booking_view(b).into_any()
                        }
                        Err(e) => {
                            pending.set(false);
                            view! {
                                <p class="error" role="alert">{move || error_text(lang.get(), &e)}</p>
                                <p><a class="tap" href="/find-booking">{move || tr!(lang.get(), "find.link")}</a></p>
                            }
                                .into_any()
                        }
                    }
                })}
            </Transition>
            <p><a href="/my-bookings">{move || tr!(lang.get(), "booking.all")}</a></p>
        </section>
    }
}

/// What the page says of the booking: its one state (see [`BookingView::state`]).
fn status_text(lang: Lang, b: &BookingView) -> String {
    let refund = |key_done: bool| {
        // What was given back (a cancelled booking holds nothing any more).
        let amount = price(lang, b.refunded.max(b.amount));
        if key_done {
            tr!(lang, "booking.refunded", amount = amount)
        } else {
            tr!(lang, "booking.refund_pending", amount = amount)
        }
    };
    match b.state() {
        BookingState::Issuing => tr!(lang, "booking.issuing"),
        BookingState::Confirmed => tr!(lang, "booking.confirmed"),
        BookingState::Failed => {
            let reason = b.failure_reason.clone().unwrap_or_default();
            let paid = b
                .payments
                .iter()
                .any(|p| p.status == "PAID" || p.status == "REFUNDED");
            let refunded = b.payments.iter().any(|p| p.status == "REFUNDED");
            let mut text = tr!(lang, "booking.failed", reason = reason);
            if paid {
                text = format!("{text} {}", refund(refunded));
            }
            text
        }
        // Cancelled by the customer (or an online sale refunded at the counter): the gateway
        // gives the money back.
        BookingState::Refunded if !b.payments.is_empty() => {
            let refunded = b.payments.iter().any(|p| p.status == "REFUNDED");
            format!(
                "{} {}",
                tr!(lang, "booking.cancelled_by_customer"),
                refund(refunded)
            )
        }
        BookingState::Refunded => tr!(lang, "booking.refunded_at_counter"),
        BookingState::CancelledRefunding => tr!(lang, "booking.cancelled_refunding"),
        BookingState::CancelledRefunded => tr!(lang, "booking.cancelled_refunded"),
        BookingState::Cancelled => tr!(lang, "booking.cancelled"),
        BookingState::Pending => tr!(lang, "booking.pending"),
    }
}

fn booking_view(b: BookingView) -> impl IntoView {
    let lang = use_lang();
    let seats = crate::seating::reading_order(b.seats.iter().map(String::as_str)).join(", ");
    let when = b.starts_at;
    let state = b.state();
    let issued = state == BookingState::Confirmed;
    let id = b.booking_id.0.to_string();
    let number = b.booking_id.reference();
    let amount = b.amount;
    // What was paid: what it holds and what was given back.
    let paid = amount + b.refunded;
    let (refunded, refunded_seats) = (b.refunded, b.refunded_seats.join(", "));
    let status = b.status.clone();
    let b2 = b.clone();
    // One line says what the booking is: a cancelled showtime's booking is not "confirmed".
    let cancelled = matches!(
        state,
        BookingState::Cancelled
            | BookingState::CancelledRefunded
            | BookingState::CancelledRefunding
    );
    let notice = if cancelled || state == BookingState::Refunded {
        "notice warn "
    } else {
        ""
    };
    view! {
        <p class=format!("{notice}booking-status status-{}", status.to_ascii_lowercase())
            data-test=if cancelled { "booking-cancelled" } else { "booking-status" }
            data-status=status data-state=state.as_str() role="status" aria-live="polite">
            {move || status_text(lang.get(), &b2)}
        </p>
        <div class="booking-details">
            <h2>{b.movie_title.clone()}</h2>
            // The short number the printed ticket and the box office use; the long code is in
            // the QR code.
            <p class="booking-number" data-test="booking-number">
                {move || tr!(lang.get(), "booking.number", number = number.clone())}
            </p>
            <p class="meta">{b.hall_name.clone()} " · " {move || showtime_when(lang.get(), when)}</p>
            <p data-test="booking-seats">{move || tr!(lang.get(), "booking.seats", seats = seats.clone())}</p>
            // Each seat's ticket type and price, when any seat is not adult; and the door's check.
            {b.tickets.iter().any(|t| t.ticket_type.needs_proof()).then(|| {
                let tickets = b.tickets.clone();
                let said = move || {
                    let l = lang.get();
                    let each = tickets.iter().map(|t| {
                        let kind = crate::i18n::translate(l, t.ticket_type.name_key(), &[]);
                        format!("{} {kind} {}", t.seat, price(l, t.price))
                    });
                    each.collect::<Vec<_>>().join(" · ")
                };
                view! {
                    <p data-test="booking-tickets">{said}</p>
                    <p class="hint" data-test="check-id">{move || tr!(lang.get(), "ticket_type.check_id")}</p>
                }
            })}
            <p>{move || tr!(lang.get(), "booking.total", total = price(lang.get(), paid))}</p>
            {(!refunded_seats.is_empty()).then(|| view! {
                <p data-test="booking-refunded">
                    {move || tr!(lang.get(), "booking.refunded_seats", seats = refunded_seats.clone(), amount = price(lang.get(), refunded))}
                </p>
            })}
            {b.email.clone().map(|email| view! {
                <p class="meta" data-test="booking-email">{move || tr!(lang.get(), "booking.email", email = email.clone())}</p>
            })}
        </div>
        {b.cancel_until.map(|until| match b.cancel_needs_link {
            true => view! { <SendLink booking_id=id.clone() email=b.email.clone().unwrap_or_default() /> }.into_any(),
            false => view! { <CancelBooking booking_id=id.clone() until can=b.can_cancel amount /> }.into_any(),
        })}
        {issued.then(|| view! { <TicketView booking_id=id /> })}
    }
}

/// Cancelling one's own online booking: until the cut-off a button (pressed twice: it asks
/// first), after it why not.
#[component]
fn CancelBooking(
    booking_id: String,
    until: chrono::DateTime<chrono::Utc>,
    can: bool,
    amount: crate::domain::Won,
) -> impl IntoView {
    let lang = use_lang();
    let asking = RwSignal::new(false);
    let cancel = Action::new(move |id: &String| cancel_booking(id.clone()));
    // Cancelled: the page shows the booking as it is now.
    Effect::new(move |_| {
        if let Some(Ok(_)) = cancel.value().get() {
            let _ = window().location().reload();
        }
    });
    let time = move || crate::format::date_time(lang.get(), until);
    if !can {
        return view! {
            <p class="hint" data-test="cancel-closed">{move || tr!(lang.get(), "booking.cancel_closed", time = time())}</p>
        }
        .into_any();
    }
    view! {
        <div class="booking-cancel no-print" data-test="booking-cancel">
            <p class="hint">{move || tr!(lang.get(), "booking.cancel_until", time = time())}</p>
            <Show when=move || asking.get() fallback=move || view! {
                <button type="button" class="secondary" data-test="cancel-booking" on:click=move |_| asking.set(true)>
                    {move || tr!(lang.get(), "booking.cancel")}
                </button>
            }>
                <p role="alert">{move || tr!(lang.get(), "booking.cancel_confirm", amount = price(lang.get(), amount))}</p>
                <button type="button" class="danger" data-test="confirm-cancel-booking"
                    disabled=move || cancel.pending().get()
                    on:click={
                        let id = booking_id.clone();
                        move |_| { cancel.dispatch(id.clone()); }
                    }>
                    {move || tr!(lang.get(), "booking.cancel_yes")}
                </button>
                <button type="button" class="secondary" on:click=move |_| asking.set(false)>
                    {move || tr!(lang.get(), "booking.cancel_keep")}
                </button>
            </Show>
            {move || cancel.value().get().and_then(Result::err).map(|e| view! {
                <p class="error" role="alert" data-test="cancel-error">{move || error_text(lang.get(), &e)}</p>
            })}
        </div>
    }
    .into_any()
}

/// A booking found by its number and address: cancelling it takes the link e-mailed to its
/// address, which a button sends again.
#[component]
fn SendLink(booking_id: String, email: String) -> impl IntoView {
    let lang = use_lang();
    let send = Action::new(move |id: &String| send_booking_link(id.clone()));
    view! {
        <div class="booking-cancel no-print" data-test="cancel-needs-link">
            <p class="hint">{move || tr!(lang.get(), "booking.cancel_needs_link", email = email.clone())}</p>
            <button type="button" class="secondary" data-test="send-link"
                disabled=move || send.pending().get()
                on:click=move |_| { send.dispatch(booking_id.clone()); }>
                {move || tr!(lang.get(), "booking.send_link")}
            </button>
            {move || send.value().get().map(|sent| match sent {
                Ok(to) => view! { <p class="hint" role="status" data-test="link-sent">{move || tr!(lang.get(), "booking.link_sent", email = to.clone())}</p> }.into_any(),
                Err(e) => view! { <p class="error" role="alert">{move || error_text(lang.get(), &e)}</p> }.into_any(),
            })}
        </div>
    }
}

#[component]
fn TicketView(booking_id: String) -> impl IntoView {
    let lang = use_lang();
    let ticket = crate::codec::resource(move || booking_id.clone(), get_ticket);
    view! {
        <Suspense fallback=|| ()>
            {move || Suspend::new(async move {
                match ticket.await {
                    Ok(t) => {
                        let code = t.code.clone();
                        let seats = t.seats.clone();
                        view! {
                            <div class="ticket" data-test="ticket">
                                <div class="qr" data-test="ticket-qr" role="img"
                                    aria-label=move || tr!(lang.get(), "booking.qr_label") inner_html=t.qr_svg></div>
                                // For door staff whose scanner cannot read the QR code: folded away.
                                <details class="ticket-code-details">
                                    <summary>{move || tr!(lang.get(), "booking.ticket_code_summary")}</summary>
                                    <p class="ticket-code" data-test="ticket-code">
                                        {move || tr!(lang.get(), "booking.ticket", code = code.clone())}
                                    </p>
                                </details>
                                // One ticket per seat, for a party arriving apart.
                                {(seats.len() > 1).then(|| view! {
                                    <p class="hint">{move || tr!(lang.get(), "booking.seat_tickets")}</p>
                                    <ul class="seat-tickets" data-test="seat-tickets">
                                        {seats.into_iter().map(|st| {
                                            let seat = st.seat.clone();
                                            view! {
                                                <li data-test="seat-ticket" data-seat=st.seat.clone()>
                                                    <div class="qr" role="img" aria-label=move || tr!(lang.get(), "booking.seat_qr_label", seat = seat.clone()) inner_html=st.qr_svg></div>
                                                    <p class="ticket-seat">{st.seat.clone()}</p>
                                                    // The long code only for a scanner that cannot read the QR code.
                                                    <details class="ticket-code-details">
                                                        <summary>{move || tr!(lang.get(), "booking.ticket_code_summary")}</summary>
                                                        <p class="ticket-code" data-test="seat-ticket-code">{st.code}</p>
                                                    </details>
                                                </li>
                                            }
                                        }).collect_view()}
                                    </ul>
                                })}
                                <button type="button" class="secondary no-print" data-test="print-ticket"
                                    on:click=move |_| { let _ = window().print(); }>
                                    {move || tr!(lang.get(), "booking.print")}
                                </button>
                            </div>
                        }
                            .into_any()
                    }
                    Err(e) => view! { <p class="error" role="alert">{move || error_text(lang.get(), &e)}</p> }.into_any(),
                }
            })}
        </Suspense>
    }
}

#[component]
pub fn MyBookingsPage() -> impl IntoView {
    let lang = use_lang();
    let list = crate::codec::resource(|| (), |_| my_bookings());
    view! {
        <h1>{move || tr!(lang.get(), "booking.all")}</h1>
        <p><a class="tap" href="/find-booking" data-test="find-booking-link">{move || tr!(lang.get(), "find.link")}</a></p>
        <Suspense fallback=move || view! { <p>{tr!(lang.get_untracked(), "common.loading")}</p> }>
            {move || Suspend::new(async move {
                match list.await {
                    Ok(list) if list.is_empty() => view! { <p>{move || tr!(lang.get(), "booking.none")}</p> }.into_any(),
                    Ok(list) => view! {
                        <ul class="bookings" data-test="booking-list">
                            {list.into_iter().map(|b| {
                                let href = format!("/my-bookings/{}", b.booking_id.0);
                                let key = format!("booking.state_{}", b.state().as_str());
                                let seats = crate::seating::reading_order(b.seats.iter().map(String::as_str)).join(", ");
                                let when = b.starts_at;
                                view! {
                                    <li data-test="booking">
                                        <a href=href>{b.movie_title.clone()}</a>
                                        " · " {move || showtime_when(lang.get(), when)} " · " {seats}
                                        " · " <strong>{move || crate::i18n::translate(lang.get(), &key, &[])}</strong>
                                    </li>
                                }
                            }).collect_view()}
                        </ul>
                    }.into_any(),
                    Err(e) => view! { <p class="error" role="alert">{move || error_text(lang.get(), &e)}</p> }.into_any(),
                }
            })}
        </Suspense>
    }
}
