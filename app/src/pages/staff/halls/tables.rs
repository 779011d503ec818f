//! The halls and the showtimes with their counts, as tables.

use super::*;

#[component]
pub(super) fn HallTable(
    rows: Vec<HallSummary>,
    export: impl Fn(i64) + Copy + Send + Sync + 'static,
    edit: impl Fn(i64) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let lang = use_lang();
    view! {
        <table class="tokens" data-test="halls-table">
            <thead>
                <tr>
                    <th scope="col">{move || tr!(lang.get(), "halls.hall")}</th>
                    <th scope="col">{move || tr!(lang.get(), "halls.seats")}</th>
                    <th scope="col">{move || tr!(lang.get(), "halls.plan")}</th>
                </tr>
            </thead>
            <tbody>
                {rows.into_iter().map(|h| {
                    let id = h.id;
                    view! {
                        <tr data-test="hall-row" data-hall=id.to_string()>
                            <td>{h.name}</td>
                            <td>{h.seats}</td>
                            <td>
                                <button type="button" class="secondary" on:click=move |_| export(id) data-test="hall-export-button">
                                    {move || tr!(lang.get(), "halls.export")}
                                </button>
                                " "
                                <button type="button" class="secondary" on:click=move |_| edit(id) data-test="hall-edit-button">
                                    {move || tr!(lang.get(), "halls.edit")}
                                </button>
                            </td>
                        </tr>
                    }
                }).collect_view()}
            </tbody>
        </table>
    }
}

#[component]
pub(super) fn CountsTable(
    rows: Vec<crate::domain::ShowtimeCounts>,
    confirming: RwSignal<Option<i64>>,
    cancel: impl Fn(i64) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let lang = use_lang();
    view! {
        <table class="tokens" data-test="showtime-counts">
            <thead>
                <tr>
                    <th scope="col">{move || tr!(lang.get(), "halls.when")}</th>
                    <th scope="col">{move || tr!(lang.get(), "halls.title")}</th>
                    <th scope="col">{move || tr!(lang.get(), "halls.hall")}</th>
                    <th scope="col">{move || tr!(lang.get(), "halls.on_sale")}</th>
                    <th scope="col">{move || tr!(lang.get(), "halls.sold")}</th>
                    <th scope="col">{move || tr!(lang.get(), "halls.held")}</th>
                    <th scope="col">{move || tr!(lang.get(), "halls.free")}</th>
                    <th scope="col">{move || tr!(lang.get(), "halls.off_sale")}</th>
                    <th scope="col">{move || tr!(lang.get(), "halls.checked_in")}</th>
                    <th scope="col">{move || tr!(lang.get(), "halls.state")}</th>
                </tr>
            </thead>
            <tbody>
                {rows.into_iter().map(|s| {
                    let at = s.starts_at;
                    let ends = clock_time(at + chrono::Duration::minutes(i64::from(s.duration_minutes)));
                    let sales = s.sales;
                    let hot = s.hot_sale;
                    let state = state_cell(&s, confirming, cancel);
                    view! {
                        <tr data-test="showtime-count" data-showtime=s.id.to_string()>
                            <td>{move || showtime_when(lang.get(), at)} "–" {ends.clone()}</td>
                            <td>
                                {s.movie_title}
                                {hot.then(|| view! { " " <span class="badge" data-test="hot-sale">{move || tr!(lang.get(), "halls.hot")}</span> })}
                            </td>
                            <td>{s.hall_name}</td>
                            <td data-test="count-window">
                                {move || {
                                    let l = lang.get();
                                    let from = sales.opens_at.map_or_else(|| tr!(l, "halls.now"), |o| showtime_when(l, o));
                                    format!("{from} → {}", showtime_when(l, sales.closes_at))
                                }}
                            </td>
                            <td data-test="count-sold">{s.sold}</td>
                            <td data-test="count-held">{s.held}</td>
                            <td data-test="count-free">{s.free}</td>
                            <td data-test="count-off-sale">{s.off_sale}</td>
                            <td data-test="count-checked-in">{s.checked_in}</td>
                            <td data-test="count-state">{state}</td>
                        </tr>
                    }
                }).collect_view()}
            </tbody>
        </table>
    }
}

/// A showtime's cancel button (pressed twice), or once cancelled its refunds' progress; a
/// showtime that has ended only says so.
pub(super) fn state_cell(
    s: &crate::domain::ShowtimeCounts,
    confirming: RwSignal<Option<i64>>,
    cancel: impl Fn(i64) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let lang = use_lang();
    let (id, due, refunded) = (s.id, s.refunds_due, s.refunded);
    if s.cancelled {
        return view! {
            <span data-test="refund-progress" data-due=due.to_string() data-refunded=refunded.to_string()>
                {move || tr!(lang.get(), "halls.refunds", refunded = refunded, total = due + refunded)}
            </span>
        }
        .into_any();
    }
    if s.ended {
        return view! {
            <span data-test="showtime-ended">{move || tr!(lang.get(), "halls.ended")}</span>
        }
        .into_any();
    }
    view! {
        <Show
            when=move || confirming.get() == Some(id)
            fallback=move || view! {
                <button type="button" data-test="cancel-showtime" on:click=move |_| confirming.set(Some(id))>
                    {move || tr!(lang.get(), "halls.cancel")}
                </button>
            }
        >
            <button type="button" class="danger" data-test="confirm-cancel" on:click=move |_| cancel(id)>
                {move || tr!(lang.get(), "halls.confirm_cancel")}
            </button>
        </Show>
    }
    .into_any()
}
