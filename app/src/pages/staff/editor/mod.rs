//! The layout editor on `/admin/halls`: a hall built row by row — seats per row, the row's
//! price category, aisles after given seats, wheelchair places and companion seats — with its price categories,
//! previewed live by the seat map customers see, and made with the same check as an imported
//! plan (or turned into its JSON to adjust and import).

use crate::domain::{HallPlan, PriceCategory, RowPlan, SeatMap, SeatPlan, SeatStatus, ShowtimeId};
use crate::i18n::use_lang;
use crate::pages::seat_map::PlanPreview;
use crate::tr;
use leptos::prelude::*;

mod plan;

pub use plan::*;

#[component]
pub fn LayoutEditor(
    /// Makes the hall.
    create: impl Fn(HallPlan) + Copy + Send + Sync + 'static,
    /// Puts the plan's JSON where it can be changed and imported.
    to_json: impl Fn(HallPlan) + Copy + Send + Sync + 'static,
    /// A hall's plan to edit as a new hall (a hall in use never changes under its showtimes).
    load: RwSignal<Option<HallPlan>>,
) -> impl IntoView {
    let lang = use_lang();
    let next = StoredValue::new(10usize);
    let fresh = move || {
        next.update_value(|n| *n += 1);
        next.get_value()
    };
    let name = RwSignal::new(String::new());
    let categories = RwSignal::new(vec![
        category(0, "STANDARD", "Standard", 12_000),
        category(1, "PREMIUM", "Premium", 15_000),
    ]);
    let rows = RwSignal::new(vec![
        row(2, "A", 8, "STANDARD", "4"),
        row(3, "B", 8, "STANDARD", "4"),
        row(4, "C", 8, "PREMIUM", "4"),
    ]);
    let plan = Memo::new(move |_| plan_of(&name.get(), &categories.get(), &rows.get()));
    // A hall to edit: its rows and categories into the drafts, under a new name; a hall the
    // editor cannot show row by row goes to the JSON box instead.
    Effect::new(move |_| {
        let Some(hall) = load.get() else { return };
        let fields: Option<Vec<_>> = hall.rows.iter().map(row_fields).collect();
        let Some(fields) = fields.filter(|_| hall.rows.iter().all(|r| !r.label.is_empty())) else {
            to_json(hall);
            return;
        };
        name.set(format!("{} (2)", hall.name));
        categories.set(
            hall.categories
                .iter()
                .map(|c| category(fresh(), &c.code, &c.name, c.price))
                .collect(),
        );
        rows.set(
            hall.rows
                .iter()
                .zip(fields)
                .map(|(r, f)| {
                    let draft = row(fresh(), &r.label, f.seats, &f.category, &listed(&f.aisles));
                    draft.wheelchair.set(listed(&f.wheelchair));
                    draft.companion.set(listed(&f.companion));
                    draft
                })
                .collect(),
        );
    });
    // Drawn as soon as the rows and categories make sense, named or not.
    let preview = Memo::new(move |_| {
        let named = Some(name.get()).filter(|n| !n.trim().is_empty());
        let name = named.unwrap_or_else(|| "—".into());
        plan_of(&name, &categories.get(), &rows.get())
            .ok()
            .and_then(|plan| preview_map(&plan))
    });
    let add_row = move |_| {
        let id = fresh();
        rows.update(|list| {
            let (label, seats, cat) = list.last().map_or(
                ("A".to_string(), "8".to_string(), "STANDARD".to_string()),
                |last| {
                    let label = last.label.get_untracked();
                    let next = label
                        .chars()
                        .last()
                        .and_then(|c| char::from_u32(c as u32 + 1))
                        .filter(char::is_ascii_uppercase);
                    (
                        next.map(String::from).unwrap_or_default(),
                        last.seats.get_untracked(),
                        last.category.get_untracked(),
                    )
                },
            );
            let seats = seats.parse().unwrap_or(8);
            list.push(row(id, &label, seats, &cat, ""));
        });
    };
    let add_category = move |_| {
        let id = fresh();
        categories.update(|list| list.push(category(id, "", "", 10_000)));
    };
    view! {
        <section class="layout-editor" data-test="layout-editor">
            <h2>{move || tr!(lang.get(), "editor.heading")}</h2>
            <label for="editor-name">{move || tr!(lang.get(), "editor.name")}</label>
            <input id="editor-name" required maxlength="80" bind:value=name data-test="editor-name" />
            <h3>{move || tr!(lang.get(), "editor.categories")}</h3>
            <table class="editor-table">
                <thead>
                    <tr>
                        <th scope="col">{move || tr!(lang.get(), "editor.code")}</th>
                        <th scope="col">{move || tr!(lang.get(), "editor.category_name")}</th>
                        <th scope="col">{move || tr!(lang.get(), "editor.price")}</th>
                        <th scope="col"><span class="visually-hidden">{move || tr!(lang.get(), "editor.remove")}</span></th>
                    </tr>
                </thead>
                <tbody>
                    <For each=move || categories.get() key=|c| c.id let:c>
                        <tr data-test="editor-category">
                            <td><input aria-label=move || tr!(lang.get(), "editor.code") bind:value=c.code data-test="category-code" /></td>
                            <td><input aria-label=move || tr!(lang.get(), "editor.category_name") bind:value=c.name data-test="category-name" /></td>
                            <td><input aria-label=move || tr!(lang.get(), "editor.price") type="number" min="0" bind:value=c.price data-test="category-price" /></td>
                            <td>
                                <button type="button" on:click=move |_| categories.update(|list| list.retain(|x| x.id != c.id))>
                                    {move || tr!(lang.get(), "editor.remove")}
                                </button>
                            </td>
                        </tr>
                    </For>
                </tbody>
            </table>
            <button type="button" on:click=add_category data-test="add-category">{move || tr!(lang.get(), "editor.add_category")}</button>
            <h3>{move || tr!(lang.get(), "editor.rows")}</h3>
            <table class="editor-table">
                <thead>
                    <tr>
                        <th scope="col">{move || tr!(lang.get(), "editor.row")}</th>
                        <th scope="col">{move || tr!(lang.get(), "editor.seats")}</th>
                        <th scope="col">{move || tr!(lang.get(), "editor.category")}</th>
                        <th scope="col">{move || tr!(lang.get(), "editor.aisles")}</th>
                        <th scope="col">{move || tr!(lang.get(), "editor.wheelchair")}</th>
                        <th scope="col">{move || tr!(lang.get(), "editor.companion")}</th>
                        <th scope="col"><span class="visually-hidden">{move || tr!(lang.get(), "editor.remove")}</span></th>
                    </tr>
                </thead>
                <tbody>
                    <For each=move || rows.get() key=|r| r.id let:r>
                        <tr data-test="editor-row">
                            <td><input aria-label=move || tr!(lang.get(), "editor.row") maxlength="2" size="2" bind:value=r.label data-test="row-label" /></td>
                            <td><input aria-label=move || tr!(lang.get(), "editor.seats") type="number" min="1" max=MAX_ROW_SEATS bind:value=r.seats data-test="row-seats" /></td>
                            <td><input aria-label=move || tr!(lang.get(), "editor.category") bind:value=r.category data-test="row-category" /></td>
                            <td><input aria-label=move || tr!(lang.get(), "editor.aisles") bind:value=r.aisles data-test="row-aisles" /></td>
                            <td><input aria-label=move || tr!(lang.get(), "editor.wheelchair") bind:value=r.wheelchair data-test="row-wheelchair" /></td>
                            <td><input aria-label=move || tr!(lang.get(), "editor.companion") bind:value=r.companion data-test="row-companion" /></td>
                            <td>
                                <button type="button" on:click=move |_| rows.update(|list| list.retain(|x| x.id != r.id))>
                                    {move || tr!(lang.get(), "editor.remove")}
                                </button>
                            </td>
                        </tr>
                    </For>
                </tbody>
            </table>
            <button type="button" on:click=add_row data-test="add-row">{move || tr!(lang.get(), "editor.add_row")}</button>
            <h3>{move || tr!(lang.get(), "editor.preview")}</h3>
            {move || preview.get().map(|map| {
                let seats = map.seats.len();
                view! {
                    <p role="status" data-test="editor-count">{move || tr!(lang.get(), "editor.count", seats = seats)}</p>
                    <PlanPreview map />
                }
            })}
            {move || match plan.get() {
                Ok(plan) => {
                    let json = plan.clone();
                    view! {
                        <div class="editor-actions">
                            <button type="button" class="primary" data-test="editor-create" on:click=move |_| create(plan.clone())>
                                {move || tr!(lang.get(), "editor.create")}
                            </button>
                            <button type="button" data-test="editor-json" on:click=move |_| to_json(json.clone())>
                                {move || tr!(lang.get(), "editor.json")}
                            </button>
                        </div>
                    }
                    .into_any()
                }
                Err(problems) => view! {
                    <div role="alert">
                        <ul class="error" data-test="editor-problems">
                            {problems.into_iter().map(|p| view! { <li>{p}</li> }).collect_view()}
                        </ul>
                    </div>
                }
                .into_any(),
            }}
        </section>
    }
}

#[cfg(test)]
mod tests;
