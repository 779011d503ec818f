//! `/admin/sales`: the operator's sales figures per day and showtime — confirmed bookings,
//! seats, revenue, refunds — as the sales consumer keeps them from booking events (operators
//! only: the server function checks).

use super::chart::{revenue_by_day, RevenueChart};
use super::{AdminNav, StaffRefusal};
use crate::domain::{SalesFigure, Won};
use crate::format::{price, showtime_when, signed_price, thousands};
use crate::i18n::use_lang;
use crate::serverfns::{close_shift, refunds_owed, sales_figures, shifts_report};
use crate::tr;
use leptos::prelude::*;

#[component]
pub fn SalesPage() -> impl IntoView {
    let lang = use_lang();
    let figures = crate::codec::resource(|| (), |_| sales_figures());
    view! {
        <section class="sales-page" data-test="sales-page">
            <h1>{move || tr!(lang.get(), "sales.heading")}</h1>
            <Suspense fallback=move || view! { <p>{tr!(lang.get_untracked(), "common.loading")}</p> }>
                {move || Suspend::new(async move {
                    match figures.await {
                        Ok(rows) if rows.is_empty() => {
                            view! { <AdminNav /><p data-test="sales-empty">{move || tr!(lang.get(), "sales.none")}</p> }.into_any()
                        }
                        Ok(rows) => {
                            let total = |f: fn(&SalesFigure) -> i64| rows.iter().map(f).sum::<i64>();
                            let money = |f: fn(&SalesFigure) -> Won| rows.iter().map(f).sum::<Won>();
                            let (bookings, seats, revenue, refunds, refunded) = (
                                total(|r| r.bookings),
                                total(|r| r.seats),
                                money(|r| r.revenue),
                                total(|r| r.refunds),
                                money(|r| r.refunded),
                            );
                            let by_type = [
                                total(|r| r.adult_seats),
                                total(|r| r.youth_seats),
                                total(|r| r.senior_seats),
                                total(|r| r.disabled_seats),
                            ];
                            let days = revenue_by_day(&rows);
                            view! {
                                <AdminNav />
                                <RevenueChart days />
                                <p>
                                    <a href="/reports/sales.csv" rel="external" download="sales.csv" data-test="sales-csv">
                                        {move || tr!(lang.get(), "sales.csv")}
                                    </a>
                                </p>
                                <table class="sales" data-test="sales-table">
                                    <thead>
                                        <tr>
                                            <th scope="col">{move || tr!(lang.get(), "sales.day")}</th>
                                            <th scope="col">{move || tr!(lang.get(), "sales.showtime")}</th>
                                            <th scope="col">{move || tr!(lang.get(), "sales.channel")}</th>
                                            <th scope="col" class="num">{move || tr!(lang.get(), "sales.bookings")}</th>
                                            <th scope="col" class="num">{move || tr!(lang.get(), "sales.seats")}</th>
                                            <th scope="col">{move || tr!(lang.get(), "sales.types")}</th>
                                            <th scope="col" class="num">{move || tr!(lang.get(), "sales.revenue")}</th>
                                            <th scope="col" class="num">{move || tr!(lang.get(), "sales.refunds")}</th>
                                        </tr>
                                    </thead>
                                    <tbody>
                                        {rows.into_iter().map(|r| {
                                            let when = r.starts_at;
                                            view! {
                                                <tr data-test="sales-row" data-showtime=r.showtime_id.to_string() data-channel=r.channel.as_str()>
                                                    <td>{r.day.clone()}</td>
                                                    <td>{r.movie_title.clone()} " · " {move || showtime_when(lang.get(), when)}</td>
                                                    <td data-test="sales-channel">{move || channel_name(lang.get(), r.channel)}</td>
                                                    <td class="num" data-test="sales-bookings">{thousands(r.bookings)}</td>
                                                    <td class="num" data-test="sales-seats">{thousands(r.seats)}</td>
                                                    <td data-test="sales-types">{move || types_text(lang.get(), [r.adult_seats, r.youth_seats, r.senior_seats, r.disabled_seats])}</td>
                                                    <td class="num" data-test="sales-revenue">{move || price(lang.get(), r.revenue)}</td>
                                                    <td class="num">{thousands(r.refunds)} " · " {move || price(lang.get(), r.refunded)}</td>
                                                </tr>
                                            }
                                        }).collect_view()}
                                    </tbody>
                                    <tfoot>
                                        <tr>
                                            <th scope="row" colspan="3">{move || tr!(lang.get(), "sales.total")}</th>
                                            <td class="num">{thousands(bookings)}</td>
                                            <td class="num">{thousands(seats)}</td>
                                            <td>{move || types_text(lang.get(), by_type)}</td>
                                            <td class="num">{move || price(lang.get(), revenue)}</td>
                                            <td class="num">{thousands(refunds)} " · " {move || price(lang.get(), refunded)}</td>
                                        </tr>
                                    </tfoot>
                                </table>
                            }.into_any()
                        }
                        Err(error) => view! { <StaffRefusal error=error here="/admin/sales" /> }.into_any(),
                    }
                })}
            </Suspense>
            <Shifts />
            <RefundsOwed />
        </section>
    }
}

/// Counter sales of cancelled showtimes still to be given back at the counter (scan the ticket
/// or type its booking number in the kiosk's Refund tab).
#[component]
fn RefundsOwed() -> impl IntoView {
    let lang = use_lang();
    let owed = crate::codec::resource(|| (), |_| refunds_owed());
    view! {
        <Suspense>
            {move || Suspend::new(async move {
                owed.await.ok().filter(|o| !o.is_empty()).map(|rows| view! {
                    <h2>{move || tr!(lang.get(), "sales.owed")}</h2>
                    <p>{move || tr!(lang.get(), "sales.owed_explain")}</p>
                    <table class="sales" data-test="owed-table">
                        <thead>
                            <tr>
                                <th scope="col">{move || tr!(lang.get(), "kiosk.reference")}</th>
                                <th scope="col">{move || tr!(lang.get(), "sales.showtime")}</th>
                                <th scope="col">{move || tr!(lang.get(), "sales.shift_clerk")}</th>
                                <th scope="col">{move || tr!(lang.get(), "kiosk.tender")}</th>
                                <th scope="col" class="num">{move || tr!(lang.get(), "kiosk.total")}</th>
                            </tr>
                        </thead>
                        <tbody>
                            {rows.into_iter().map(|o| {
                                let (when, amount) = (o.starts_at, o.amount);
                                let cash = o.method == "cash";
                                view! {
                                    <tr data-test="owed-row" data-booking=o.booking_id.0.to_string()>
                                        <td><code>{o.booking_id.reference()}</code></td>
                                        <td>{o.movie_title.clone()} " · " {move || showtime_when(lang.get(), when)}</td>
                                        <td>{o.clerk.clone()}</td>
                                        <td>{move || if cash { tr!(lang.get(), "kiosk.cash") } else { tr!(lang.get(), "kiosk.card") }}</td>
                                        <td class="num">{move || price(lang.get(), amount)}</td>
                                    </tr>
                                }
                            }).collect_view()}
                        </tbody>
                    </table>
                })
            })}
        </Suspense>
    }
}

/// The box office's shifts, newest first: per clerk, their sales per tender, refunds and cash.
#[component]
fn Shifts() -> impl IntoView {
    let lang = use_lang();
    let shifts = crate::codec::resource(|| (), |_| shifts_report());
    view! {
        <Suspense>
            {move || Suspend::new(async move {
                shifts.await.ok().filter(|s| !s.is_empty()).map(|rows| view! {
                    // Its own part of the page: the mark says it hydrated (its forms act then).
                    <crate::components::HydratedMark />
                    <h2>{move || tr!(lang.get(), "sales.shifts")}</h2>
                    <table class="sales" data-test="shifts-table">
                        <thead>
                            <tr>
                                <th scope="col">{move || tr!(lang.get(), "sales.shift_clerk")}</th>
                                <th scope="col">{move || tr!(lang.get(), "kiosk.register")}</th>
                                <th scope="col">{move || tr!(lang.get(), "sales.shift_opened")}</th>
                                <th scope="col" class="num">{move || tr!(lang.get(), "kiosk.cash_sales")}</th>
                                <th scope="col" class="num">{move || tr!(lang.get(), "kiosk.card_sales")}</th>
                                <th scope="col" class="num">{move || tr!(lang.get(), "kiosk.comps")}</th>
                                <th scope="col" class="num">{move || tr!(lang.get(), "kiosk.cash_refunds")}</th>
                                <th scope="col" class="num">{move || tr!(lang.get(), "kiosk.expected_cash")}</th>
                                <th scope="col" class="num">{move || tr!(lang.get(), "kiosk.variance")}</th>
                                <th scope="col" class="num">{move || tr!(lang.get(), "sales.owed_short")}</th>
                                <th scope="col">{move || tr!(lang.get(), "sales.shift_close")}</th>
                            </tr>
                        </thead>
                        <tbody>
                            {rows.into_iter().map(|s| {
                                let (opened, expected, variance, f) = (s.opened_at, s.expected_cash(), s.variance(), s.figures.clone());
                                view! {
                                    <tr data-test="shift-row">
                                        <td>{s.clerk.clone()}</td>
                                        <td>{s.register.clone()}</td>
                                        <td>{move || showtime_when(lang.get(), opened)}</td>
                                        <td class="num">{thousands(f.cash_sales)} " · " {move || price(lang.get(), f.cash_amount)}</td>
                                        <td class="num">{thousands(f.card_sales)} " · " {move || price(lang.get(), f.card_amount)}</td>
                                        <td class="num">{thousands(f.comp_sales)} " · " {thousands(f.comp_seats)}</td>
                                        <td class="num">{thousands(f.cash_refunds)} " · " {move || price(lang.get(), f.cash_refunded)}</td>
                                        <td class="num">{move || price(lang.get(), expected)}</td>
                                        <td class="num">{move || variance.map(|v| signed_price(lang.get(), v)).unwrap_or_else(|| "—".into())}</td>
                                        <td class="num" data-test="shift-owed">{thousands(f.owed_refunds)} " · " {move || price(lang.get(), f.owed_amount)}</td>
                                        <td>{s.closed_at.is_none().then(|| view! { <CloseOther id=s.id shifts /> })}</td>
                                    </tr>
                                }
                            }).collect_view()}
                        </tbody>
                    </table>
                })
            })}
        </Suspense>
    }
}

/// A sales channel's name in `lang`.
fn channel_name(lang: crate::i18n::Lang, channel: crate::domain::SalesChannel) -> String {
    use crate::domain::SalesChannel as C;
    match channel {
        C::Online => tr!(lang, "sales.channel_online"),
        C::BoxOffice => tr!(lang, "sales.channel_box_office"),
        C::Complimentary => tr!(lang, "sales.channel_complimentary"),
    }
}

/// A supervisor closes a clerk's open shift (the clerk gone without closing it) with the cash
/// counted in its drawer.
#[component]
fn CloseOther(
    id: i64,
    shifts: crate::codec::Resource<Result<Vec<crate::domain::Shift>, crate::error::InventoryError>>,
) -> impl IntoView {
    let lang = use_lang();
    let counted = RwSignal::new(String::new());
    let error = RwSignal::new(None::<crate::error::InventoryError>);
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let Some(amount) = Won::parse(&counted.get_untracked()) else {
            error.set(Some(crate::error::InventoryError::InvalidRequest(tr!(
                lang.get_untracked(),
                "kiosk.counted_number"
            ))));
            return;
        };
        leptos::task::spawn_local(async move {
            match close_shift(Some(id), amount).await {
                Ok(_) => shifts.refetch(),
                Err(e) => error.set(Some(e)),
            }
        });
    };
    view! {
        <form class="close-other" on:submit=submit data-test="close-other">
            <label class="visually-hidden" for=format!("counted-{id}")>{move || tr!(lang.get(), "kiosk.counted")}</label>
            <input id=format!("counted-{id}") inputmode="numeric" size="8" bind:value=counted
                placeholder=move || tr!(lang.get(), "kiosk.counted") />
            <button type="submit">{move || tr!(lang.get(), "sales.shift_close")}</button>
            {move || error.get().map(|e| view! { <span class="error" role="alert">{crate::error_text::error_text(lang.get(), &e)}</span> })}
        </form>
    }
}

/// Seats per ticket type, the types sold only (`Adult 3 · Youth 1`).
fn types_text(lang: crate::i18n::Lang, counts: [i64; 4]) -> String {
    crate::domain::TicketType::ALL
        .into_iter()
        .zip(counts)
        .filter(|(_, n)| *n > 0)
        .map(|(t, n)| {
            format!(
                "{} {}",
                crate::i18n::translate(lang, t.name_key(), &[]),
                thousands(n)
            )
        })
        .collect::<Vec<_>>()
        .join(" · ")
}
