//! The layout editor on `/admin/halls`: a hall built row by row — seats per row, the row's
//! price category, aisles after given seats, wheelchair places and companion seats — with its price categories,
//! previewed live by the seat map customers see, and made with the same check as an imported
//! plan (or turned into its JSON to adjust and import).

use crate::domain::{HallPlan, PriceCategory, RowPlan, SeatMap, SeatPlan, SeatStatus, ShowtimeId};
use crate::i18n::{translate, use_lang};
use crate::pages::seat_map::PlanPreview;
use crate::tr;
use leptos::prelude::*;

mod plan;
mod problems;
mod rows;

pub use plan::*;
use problems::{problem_text, shown};
pub use rows::*;
use std::collections::HashSet;

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
        category(0, "STANDARD", "Standard", 12_000, Default::default()),
        category(1, "PREMIUM", "Premium", 15_000, Default::default()),
    ]);
    let rows = RwSignal::new(vec![
        row(2, "A", 8, "STANDARD", "4"),
        row(3, "B", 8, "STANDARD", "4"),
        row(4, "C", 8, "PREMIUM", "4"),
    ]);
    let plan = Memo::new(move |_| plan_of(&name.get(), &categories.get(), &rows.get()));
    // The fields the operator has been in ("name", "cat:<id>", "row:<id>"), and whether they
    // asked to make the hall: only their problems are shown.
    let touched = RwSignal::new(HashSet::<String>::new());
    let all_touched = RwSignal::new(false);
    let touch = move |key: String| {
        if !touched.with_untracked(|t| t.contains(&key)) {
            touched.update(|t| {
                t.insert(key);
            });
        }
    };
    let is_touched = move |source: &Source| {
        if all_touched.get() {
            return true;
        }
        let t = touched.get();
        let normal = |s: String| s.trim().to_ascii_uppercase();
        match source {
            Source::Name => t.contains("name"),
            Source::Hall => true,
            Source::Categories => t.iter().any(|k| k.starts_with("cat:")),
            Source::Category(code) => categories.with(|list| {
                list.iter()
                    .any(|c| normal(c.code.get()) == *code && t.contains(&format!("cat:{}", c.id)))
            }),
            Source::Row(label) => rows.with(|list| {
                list.iter().any(|r| {
                    normal(r.label.get()) == *label && t.contains(&format!("row:{}", r.id))
                })
            }),
        }
    };
    let problems = Memo::new(move |_| match plan.get() {
        Ok(_) => (Vec::new(), 0),
        Err(all) => {
            let count = all.len();
            let visible: Vec<DraftProblem> =
                all.into_iter().filter(|p| shown(p, is_touched)).collect();
            (visible, count)
        }
    });
    // Each row starts where it centres under the widest (short rows in the middle).
    let centre_rows = move |_| {
        rows.with_untracked(|list| {
            let widths: Vec<Option<u32>> = list
                .iter()
                .map(|r| {
                    let seats = r.seats.get_untracked().trim().parse::<u32>().ok()?;
                    let aisles = seat_numbers(&r.aisles.get_untracked()).ok()?;
                    Some(row_width(seats, &aisles))
                })
                .collect();
            for (r, offset) in list.iter().zip(centred_offsets(&widths)) {
                if let Some(offset) = offset {
                    r.offset.set(if offset == 0 {
                        String::new()
                    } else {
                        offset.to_string()
                    });
                }
            }
        });
    };
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
                .map(|c| category(fresh(), &c.code, &c.name, c.price.get(), c.ticket_prices))
                .collect(),
        );
        rows.set(
            hall.rows
                .iter()
                .zip(fields)
                .map(|(r, f)| {
                    let draft = row(fresh(), &r.label, f.seats, &f.category, &listed(&f.aisles));
                    if f.offset > 0 {
                        draft.offset.set(f.offset.to_string());
                    }
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
        categories.update(|list| list.push(category(id, "", "", 10_000, Default::default())));
    };
    view! {
        <section class="layout-editor" data-test="layout-editor">
            <h2>{move || tr!(lang.get(), "editor.heading")}</h2>
            <label for="editor-name">{move || tr!(lang.get(), "editor.name")}</label>
            <input id="editor-name" required maxlength="80" bind:value=name data-test="editor-name"
                on:focusout=move |_| touch("name".into()) />
            <h3>{move || tr!(lang.get(), "editor.categories")}</h3>
            <table class="editor-table">
                <thead>
                    <tr>
                        <th scope="col">{move || tr!(lang.get(), "editor.code")}</th>
                        <th scope="col">{move || tr!(lang.get(), "editor.category_name")}</th>
                        <th scope="col">{move || tr!(lang.get(), "editor.price")}</th>
                        {TYPES.map(|t| view! { <th scope="col">{move || translate(lang.get(), t.name_key(), &[])}</th> })}
                        <th scope="col"><span class="visually-hidden">{move || tr!(lang.get(), "editor.remove")}</span></th>
                    </tr>
                </thead>
                <tbody>
                    <For each=move || categories.get() key=|c| c.id let:c>
                        <tr data-test="editor-category" on:focusout=move |_| touch(format!("cat:{}", c.id))>
                            <td><input aria-label=move || tr!(lang.get(), "editor.code") bind:value=c.code data-test="category-code" /></td>
                            <td><input aria-label=move || tr!(lang.get(), "editor.category_name") bind:value=c.name data-test="category-name" /></td>
                            <td><input aria-label=move || tr!(lang.get(), "editor.price") type="number" min="0" bind:value=c.price data-test="category-price" /></td>
                            // A ticket type's price in this category; empty, the type is not sold.
                            {TYPES.into_iter().zip(c.types).map(|(t, typed)| view! {
                                <td><input aria-label=move || translate(lang.get(), t.name_key(), &[])
                                    type="number" min="0" placeholder="—" bind:value=typed data-test="category-type-price" data-type=t.as_str() /></td>
                            }).collect_view()}
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
                        <th scope="col"><abbr title=move || tr!(lang.get(), "editor.offset_hint")>{move || tr!(lang.get(), "editor.offset")}</abbr></th>
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
                        <tr data-test="editor-row" on:focusout=move |_| touch(format!("row:{}", r.id))>
                            <td><input aria-label=move || tr!(lang.get(), "editor.row") maxlength="2" size="2" bind:value=r.label data-test="row-label" /></td>
                            <td><input aria-label=move || tr!(lang.get(), "editor.offset_hint") type="number" min="0" max=MAX_OFFSET
                                placeholder="0" bind:value=r.offset data-test="row-offset" /></td>
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
            <div class="editor-row-actions">
                <button type="button" on:click=add_row data-test="add-row">{move || tr!(lang.get(), "editor.add_row")}</button>
                <button type="button" on:click=centre_rows data-test="centre-rows">{move || tr!(lang.get(), "editor.centre_rows")}</button>
            </div>
            <h3>{move || tr!(lang.get(), "editor.preview")}</h3>
            {move || preview.get().map(|map| {
                let seats = map.seats.len();
                view! {
                    <p role="status" data-test="editor-count">{move || tr!(lang.get(), "editor.count", seats = seats)}</p>
                    <PlanPreview map />
                }
            })}
            {move || {
                let (visible, count) = problems.get();
                (!visible.is_empty()).then(|| view! {
                    <div role="alert">
                        <ul class="error" data-test="editor-problems">
                            {visible.into_iter().map(|p| view! { <li>{move || problem_text(lang.get(), &p)}</li> }).collect_view()}
                        </ul>
                    </div>
                }).or_else(|| (count > 0).then(|| view! {
                    <div role="alert">
                        <p class="hint" data-test="editor-unfinished">{move || tr!(lang.get(), "editor.problems_hidden")}</p>
                    </div>
                }))
            }}
            <div class="editor-actions">
                // With problems, making the hall shows them all (including fields not yet visited).
                <button type="button" class="primary" data-test="editor-create"
                    on:click=move |_| match plan.get_untracked() {
                        Ok(plan) => {
                            create(plan);
                            all_touched.set(false);
                        }
                        Err(_) => all_touched.set(true),
                    }>
                    {move || tr!(lang.get(), "editor.create")}
                </button>
                <button type="button" data-test="editor-json" disabled=move || plan.with(Result::is_err)
                    on:click=move |_| if let Ok(plan) = plan.get_untracked() { to_json(plan) }>
                    {move || tr!(lang.get(), "editor.json")}
                </button>
            </div>
        </section>
    }
}

#[cfg(test)]
mod tests;
