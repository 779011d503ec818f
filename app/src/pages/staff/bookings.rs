//! `/admin/bookings`: a booking found by its number, a ticket's code, a sold seat (`25 G7`) or
//! the customer's e-mail address (the newest, with the numbers of the address's others), for
//! operators and supervisors: its state, seats and amount, the seats checked in, its
//! payments and its events. The search is the page's address (`?q=`), so a result can be
//! linked and reloaded. Below it, the newest messages to customers and how each went.

use super::{AdminNav, StaffRefusal};
use crate::domain::BookingFound;
use crate::format::{date_time, price, showtime_when};
use crate::i18n::{translate, use_lang, Lang};
use crate::serverfns::{find_booking, outgoing_mail};
use crate::tr;
use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

#[component]
pub fn BookingsPage() -> impl IntoView {
    let lang = use_lang();
    let query = use_query_map();
    let asked = Memo::new(move |_| {
        query
            .with(|q| q.get("q"))
            .map(|q| q.trim().to_string())
            .filter(|q| !q.is_empty())
    });
    // Without a search, the member's role is checked alone (an empty query finds nothing).
    let found = crate::codec::resource(
        move || asked.get(),
        |asked| find_booking(asked.unwrap_or_default()),
    );
    // Awaited with the search, in one suspense: a suspense inside another hydrated differently
    // from what the server sent when the two answers came in another order.
    let mail = crate::codec::resource(|| (), |_| outgoing_mail());
    view! {
        <section class="bookings-page" data-test="bookings-page">
            <h1>{move || tr!(lang.get(), "bookings.heading")}</h1>
            <Suspense fallback=move || view! { <p>{tr!(lang.get_untracked(), "common.loading")}</p> }>
                {move || Suspend::new(async move {
                    let answer = found.await;
                    let mail = mail.await;
                    let refusal = matches!(
                        answer,
                        Err(crate::error::InventoryError::StaffSignInRequired
                            | crate::error::InventoryError::StaffForbidden)
                    );
                    if refusal {
                        let error = answer.err().unwrap_or(crate::error::InventoryError::Unavailable);
                        return view! { <StaffRefusal error here="/admin/bookings" /> }.into_any();
                    }
                    view! {
                        <AdminNav />
                        <form method="get" action="/admin/bookings" class="booking-search" data-test="booking-search">
                            <label for="booking-query">{move || tr!(lang.get(), "bookings.query")}</label>
                            <input id="booking-query" name="q" required maxlength="200" autocomplete="off"
                                autocapitalize="characters" value=asked.get_untracked().unwrap_or_default()
                                placeholder="21D6B008 · 25 G7" data-test="booking-query" />
                            <button type="submit" class="primary" data-test="booking-find">{move || tr!(lang.get(), "bookings.find")}</button>
                        </form>
                        {match answer {
                            Ok(Some(found)) => view! { <Found found /> }.into_any(),
                            Ok(None) => ().into_any(),
                            Err(e) => view! {
                                <p class="error" role="alert" data-test="booking-search-error">{move || crate::error_text::error_text(lang.get(), &e)}</p>
                            }.into_any(),
                        }}
                        <OutgoingMailList mail />
                    }.into_any()
                })}
            </Suspense>
        </section>
    }
}

/// An event's type said in `lang` (one the locale does not know: as the topic has it).
fn event_name(lang: Lang, event: &str) -> String {
    let key = format!("bookings.event.{event}");
    let said = translate(lang, &key, &[]);
    if said.ends_with(&key) {
        event.to_string()
    } else {
        said
    }
}

fn payment_status(lang: Lang, status: &str) -> String {
    let key = format!("bookings.payment.{status}");
    let said = translate(lang, &key, &[]);
    if said.ends_with(&key) {
        status.to_string()
    } else {
        said
    }
}

#[component]
fn Found(found: BookingFound) -> impl IntoView {
    let lang = use_lang();
    let b = found.booking;
    let state = b.state();
    let (amount_key, no_payments_key) = amount_words(state);
    // Paid: what it holds and what was given back.
    let (starts, paid, created) = (b.starts_at, b.amount + b.refunded, b.created_at);
    let refunded =
        (b.refunded > crate::domain::Won::ZERO).then(|| (b.refunded, b.refunded_seats.join(", ")));
    let seats = match crate::domain::seats_text(&crate::seating::reading_order(&b.seats)) {
        none if none.is_empty() => "—".to_string(),
        seats => seats,
    };
    let checked_in = found.checked_in.join(", ");
    let number = found.number.clone();
    let others = found.others;
    let (title, hall, showtime) = (b.movie_title.clone(), b.hall_name.clone(), b.showtime_id);
    view! {
        <article class="booking-found" data-test="booking-found" data-booking=b.booking_id.0.to_string() data-state=state.as_str()>
            <h2>{move || tr!(lang.get(), "booking.number", number = number.clone())}</h2>
            <p class="booking-state" data-test="booking-found-state">
                {move || translate(lang.get(), &format!("booking.state_{}", state.as_str()), &[])}
            </p>
            {(!others.is_empty()).then(|| view! {
                <p class="booking-others" data-test="booking-others">
                    {move || tr!(lang.get(), "bookings.others")} " " {others.join(", ")}
                </p>
            })}
            <dl class="booking-facts">
                <dt>{move || tr!(lang.get(), "bookings.showtime")}</dt>
                <dd>{title} " · " {hall} " · " {move || showtime_when(lang.get(), starts)} " (" {showtime.get()} ")"</dd>
                <dt>{move || tr!(lang.get(), "bookings.seats")}</dt>
                <dd data-test="booking-found-seats">{seats}</dd>
                <dt>{move || translate(lang.get(), amount_key, &[])}</dt>
                <dd>{move || price(lang.get(), paid)}</dd>
                {refunded.map(|(amount, seats)| view! {
                    <dt>{move || tr!(lang.get(), "booking.state_REFUNDED")}</dt>
                    <dd data-test="booking-found-refunded">{move || price(lang.get(), amount)} " " {seats.clone()}</dd>
                })}
                <dt>{move || tr!(lang.get(), "bookings.made")}</dt>
                <dd>{move || date_time(lang.get(), created)}</dd>
                <dt>{move || tr!(lang.get(), "bookings.checked_in")}</dt>
                <dd data-test="booking-found-in">{if checked_in.is_empty() { "—".to_string() } else { checked_in }}</dd>
                <dt>{move || tr!(lang.get(), "bookings.prints")}</dt>
                <dd>{found.prints}</dd>
            </dl>
            <h3>{move || tr!(lang.get(), "bookings.payments")}</h3>
            {if b.payments.is_empty() {
                view! { <p class="hint">{move || translate(lang.get(), no_payments_key, &[])}</p> }.into_any()
            } else {
                view! {
                    <table class="audit" data-test="booking-payments">
                        <thead><tr>
                            <th scope="col">{move || tr!(lang.get(), "bookings.payment_status")}</th>
                            <th scope="col">{move || tr!(lang.get(), "bookings.amount")}</th>
                            <th scope="col">{move || tr!(lang.get(), "bookings.updated")}</th>
                        </tr></thead>
                        <tbody>
                            {b.payments.into_iter().map(|p| {
                                let (status, amount, at) = (p.status.clone(), p.amount, p.updated_at);
                                view! {
                                    <tr data-test="booking-payment" data-status=p.status>
                                        <td>{move || payment_status(lang.get(), &status)}</td>
                                        <td>{move || price(lang.get(), amount)}</td>
                                        <td>{move || date_time(lang.get(), at)}</td>
                                    </tr>
                                }
                            }).collect_view()}
                        </tbody>
                    </table>
                }.into_any()
            }}
            <h3>{move || tr!(lang.get(), "bookings.events")}</h3>
            <table class="audit" data-test="booking-events">
                <thead><tr>
                    <th scope="col">{move || tr!(lang.get(), "bookings.event")}</th>
                    <th scope="col">{move || tr!(lang.get(), "bookings.written")}</th>
                    <th scope="col">{move || tr!(lang.get(), "bookings.published")}</th>
                </tr></thead>
                <tbody>
                    {found.events.into_iter().map(|e| {
                        let (kind, at, published) = (e.event_type.clone(), e.at, e.published_at);
                        view! {
                            <tr data-test="booking-event" data-type=e.event_type>
                                <td>{move || event_name(lang.get(), &kind)}</td>
                                <td>{move || date_time(lang.get(), at)}</td>
                                <td>{move || published.map_or_else(|| tr!(lang.get(), "bookings.not_yet"), |at| date_time(lang.get(), at))}</td>
                            </tr>
                        }
                    }).collect_view()}
                </tbody>
            </table>
            // A customer who lost the e-mail: the ticket again, to the address given at checkout.
            {(state == crate::domain::BookingState::Confirmed).then_some(()).and(b.email.clone()).map(|email| {
                let id = b.booking_id.0.to_string();
                let sent = RwSignal::new(None::<Result<(), crate::error::InventoryError>>);
                let resend = move |_| {
                    let id = id.clone();
                    leptos::task::spawn_local(async move {
                        sent.set(Some(crate::serverfns::resend_ticket(id).await));
                    });
                };
                view! {
                    <p>
                        <button type="button" class="secondary" data-test="resend-ticket" on:click=resend
                            disabled=move || sent.with(|s| matches!(s, Some(Ok(()))))>
                            {move || tr!(lang.get(), "bookings.resend", email = email.clone())}
                        </button>
                    </p>
                    {move || sent.get().map(|outcome| match outcome {
                        Ok(()) => view! { <p class="notice" role="status" data-test="resend-done">{move || tr!(lang.get(), "bookings.resent")}</p> }.into_any(),
                        Err(e) => view! { <p class="error" role="alert">{move || crate::error_text::error_text(lang.get(), &e)}</p> }.into_any(),
                    })}
                }
            })}
            // Giving money back happens where it is counted: at a register, with a supervisor.
            <p class="hint" data-test="booking-refund-hint">{move || tr!(lang.get(), "bookings.refund_hint")}</p>
        </article>
    }
}

/// What the amount and an empty payment list are called for a booking in `state`: one waiting
/// for its payment (or whose payment failed) has paid nothing yet.
fn amount_words(state: crate::domain::BookingState) -> (&'static str, &'static str) {
    use crate::domain::BookingState as S;
    match state {
        S::Pending | S::Failed => ("bookings.amount_unpaid", "bookings.no_payments_yet"),
        _ => ("bookings.amount", "bookings.no_payments"),
    }
}

/// The newest messages to customers: what each was, how it went, why the last try failed.
#[component]
fn OutgoingMailList(
    mail: Result<Vec<crate::domain::CustomerMessage>, crate::error::InventoryError>,
) -> impl IntoView {
    let lang = use_lang();
    let said = move |key: String| translate(lang.get(), &key, &[]);
    view! {
        <section class="outgoing-mail" data-test="outgoing-mail">
            <h2>{move || tr!(lang.get(), "mail.heading")}</h2>
            {match mail {
                        Ok(list) if list.is_empty() => view! {
                            <p class="hint">{move || tr!(lang.get(), "mail.none")}</p>
                        }.into_any(),
                        Ok(list) => view! {
                            <table class="audit">
                                <thead><tr>
                                    <th scope="col">{move || tr!(lang.get(), "mail.booking")}</th>
                                    <th scope="col">{move || tr!(lang.get(), "mail.kind")}</th>
                                    <th scope="col">{move || tr!(lang.get(), "mail.status")}</th>
                                    <th scope="col">{move || tr!(lang.get(), "mail.queued_at")}</th>
                                    <th scope="col">{move || tr!(lang.get(), "mail.outcome")}</th>
                                </tr></thead>
                                <tbody>
                                    {list.into_iter().map(|m| {
                                        let (kind, status) = (format!("mail.kind_{}", m.kind), format!("mail.status_{}", m.status));
                                        let (at, sent, attempts) = (m.created_at, m.sent_at, m.attempts);
                                        let error = m.last_error.unwrap_or_default();
                                        let href = format!("/admin/bookings?q={}", m.reference);
                                        view! {
                                            <tr data-test="outgoing-mail-row" data-status=m.status data-kind=m.kind>
                                                <td><a href=href>{m.reference}</a></td>
                                                <td>{move || said(kind.clone())}</td>
                                                <td>{move || said(status.clone())}</td>
                                                <td>{move || date_time(lang.get(), at)}</td>
                                                <td>{move || match sent {
                                                    Some(sent) => date_time(lang.get(), sent),
                                                    None => tr!(lang.get(), "mail.tries", n = attempts.to_string()) + " " + &error,
                                                }}</td>
                                            </tr>
                                        }
                                    }).collect_view()}
                                </tbody>
                            </table>
                        }.into_any(),
                        Err(e) => view! {
                            <p class="error" role="alert">{move || crate::error_text::error_text(lang.get(), &e)}</p>
                        }.into_any(),
            }}
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::BookingState as S;

    #[test]
    fn a_booking_not_paid_is_not_called_paid() {
        let said = |state| {
            let (amount, none) = amount_words(state);
            (
                translate(Lang::En, amount, &[]),
                translate(Lang::En, none, &[]),
            )
        };
        assert_eq!(
            said(S::Pending),
            (
                "To pay (not paid)".into(),
                "No payment at the gateway yet.".into()
            )
        );
        assert_eq!(said(S::Failed).0, "To pay (not paid)");
        assert_eq!(said(S::Confirmed).0, "Paid");
        assert_eq!(said(S::Refunded).0, "Paid");
    }
}
