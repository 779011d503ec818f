//! The layout editor on `/admin/halls`: a hall built row by row — seats per row, the row's
//! price category, aisles after given seats, wheelchair places and companion seats — with its price categories,
//! previewed live by the seat map customers see, and made with the same check as an imported
//! plan (or turned into its JSON to adjust and import).

use crate::domain::{HallPlan, PriceCategory, RowPlan, SeatMap, SeatPlan, SeatStatus, ShowtimeId};
use crate::i18n::use_lang;
use crate::pages::seat_map::PlanPreview;
use crate::tr;
use leptos::prelude::*;

/// Seats in one row of the editor, at most.
const MAX_ROW_SEATS: u32 = 100;

#[derive(Clone, Copy)]
struct CategoryDraft {
    id: usize,
    code: RwSignal<String>,
    name: RwSignal<String>,
    price: RwSignal<String>,
}

#[derive(Clone, Copy)]
struct RowDraft {
    id: usize,
    label: RwSignal<String>,
    seats: RwSignal<String>,
    category: RwSignal<String>,
    /// Seat numbers an aisle follows: "4, 10".
    aisles: RwSignal<String>,
    /// Wheelchair places by seat number: "1, 2".
    wheelchair: RwSignal<String>,
    /// Companion seats by seat number.
    companion: RwSignal<String>,
}

fn category(id: usize, code: &str, name: &str, price: i64) -> CategoryDraft {
    CategoryDraft {
        id,
        code: RwSignal::new(code.into()),
        name: RwSignal::new(name.into()),
        price: RwSignal::new(price.to_string()),
    }
}

fn row(id: usize, label: &str, seats: u32, category: &str, aisles: &str) -> RowDraft {
    RowDraft {
        id,
        label: RwSignal::new(label.into()),
        seats: RwSignal::new(seats.to_string()),
        category: RwSignal::new(category.into()),
        aisles: RwSignal::new(aisles.into()),
        wheelchair: RwSignal::new(String::new()),
        companion: RwSignal::new(String::new()),
    }
}

/// Seat numbers written as "4, 10" (spaces and commas between them).
pub fn seat_numbers(text: &str) -> Result<Vec<u32>, String> {
    text.split(|c: char| c == ',' || c.is_whitespace())
        .filter(|part| !part.is_empty())
        .map(|part| {
            part.parse::<u32>()
                .map_err(|_| format!("{part:?} is not a seat number"))
        })
        .collect()
}

/// Every seat number typed for a row of `seats` seats is kept or named here: none is dropped
/// for being past the row (or 0), and an aisle after the last seat would be past it too.
pub fn past_the_row(
    label: &str,
    seats: u32,
    aisles: &[u32],
    wheelchair: &[u32],
    companion: &[u32],
) -> Vec<String> {
    let mut problems = Vec::new();
    for (what, list) in [
        ("an aisle after seat", aisles),
        ("wheelchair place", wheelchair),
        ("companion seat", companion),
    ] {
        for n in list.iter().filter(|n| **n == 0 || **n > seats) {
            problems.push(format!(
                "row {label}: {what} {n} is not one of its {seats} seats"
            ));
        }
    }
    if seats > 0 && aisles.contains(&seats) {
        problems.push(format!(
            "row {label}: an aisle after seat {seats}, the last, would be past the row"
        ));
    }
    problems
}

/// Seat numbers of a row with a mark: wheelchair places and companion seats.
pub struct Marked<'a> {
    pub wheelchair: &'a [u32],
    pub companion: &'a [u32],
}

/// One row of seats numbered from 1, with an aisle (one empty column) after each seat of
/// `aisles` that is not the last.
pub fn row_plan(
    label: &str,
    seats: u32,
    category: &str,
    aisles: &[u32],
    marked: Marked,
) -> RowPlan {
    let mut plan = Vec::new();
    for number in 1..=seats {
        plan.push(SeatPlan::Seat {
            number,
            category: category.to_string(),
            wheelchair: marked.wheelchair.contains(&number),
            companion: marked.companion.contains(&number),
        });
        if aisles.contains(&number) && number < seats {
            plan.push(SeatPlan::Gap { gap: 1 });
        }
    }
    RowPlan {
        label: label.trim().to_uppercase(),
        seats: plan,
    }
}

/// A row as the editor's fields hold it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowFields {
    pub seats: u32,
    pub category: String,
    pub aisles: Vec<u32>,
    pub wheelchair: Vec<u32>,
    pub companion: Vec<u32>,
}

/// A row of a plan as the editor writes rows: seats numbered from 1 in one category, with
/// one-column aisles; `None` for a row the editor cannot show (edit its JSON instead).
pub fn row_fields(row: &RowPlan) -> Option<RowFields> {
    let (mut seats, mut category) = (0u32, None::<String>);
    let (mut aisles, mut wheelchair, mut companion) = (Vec::new(), Vec::new(), Vec::new());
    for item in &row.seats {
        match item {
            SeatPlan::Gap { gap: 1 } if seats > 0 => aisles.push(seats),
            SeatPlan::Gap { .. } => return None,
            SeatPlan::Seat {
                number,
                category: c,
                wheelchair: w,
                companion: m,
            } => {
                seats += 1;
                if *number != seats || category.get_or_insert_with(|| c.clone()) != c {
                    return None;
                }
                if *w {
                    wheelchair.push(seats);
                }
                if *m {
                    companion.push(seats);
                }
            }
        }
    }
    if seats == 0 || aisles.last() == Some(&seats) {
        return None;
    }
    Some(RowFields {
        seats,
        category: category?,
        aisles,
        wheelchair,
        companion,
    })
}

fn listed(numbers: &[u32]) -> String {
    numbers
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The plan the drafts describe, or what is wrong with them (the plan's own check follows).
fn plan_of(
    name: &str,
    categories: &[CategoryDraft],
    rows: &[RowDraft],
) -> Result<HallPlan, Vec<String>> {
    let mut problems = Vec::new();
    let categories: Vec<PriceCategory> = categories
        .iter()
        .map(|c| {
            let code = c.code.get().trim().to_uppercase();
            let price = c.price.get().trim().parse::<i64>().unwrap_or_else(|_| {
                problems.push(format!("the price of {code} is not a whole number of won"));
                0
            });
            PriceCategory {
                code,
                name: c.name.get().trim().to_string(),
                price,
            }
        })
        .collect();
    let rows: Vec<RowPlan> = rows
        .iter()
        .map(|r| {
            let label = r.label.get();
            let seats = match r.seats.get().trim().parse::<u32>() {
                Ok(n) if (1..=MAX_ROW_SEATS).contains(&n) => n,
                _ => {
                    problems.push(format!("row {label}: 1 to {MAX_ROW_SEATS} seats"));
                    0
                }
            };
            let mut numbers = |text: String| {
                seat_numbers(&text).unwrap_or_else(|e| {
                    problems.push(format!("row {label}: {e}"));
                    Vec::new()
                })
            };
            let aisles = numbers(r.aisles.get());
            let wheelchair = numbers(r.wheelchair.get());
            let companion = numbers(r.companion.get());
            problems.extend(past_the_row(
                &label,
                seats,
                &aisles,
                &wheelchair,
                &companion,
            ));
            let marked = Marked {
                wheelchair: &wheelchair,
                companion: &companion,
            };
            row_plan(&label, seats, r.category.get().trim(), &aisles, marked)
        })
        .collect();
    let plan = HallPlan {
        name: name.trim().to_string(),
        categories,
        rows,
        best_seat: None,
    };
    match (problems.is_empty(), plan.check()) {
        (true, Ok(_)) => Ok(plan),
        (_, Err(more)) => {
            problems.extend(more);
            Err(problems)
        }
        (false, Ok(_)) => Err(problems),
    }
}

/// The plan drawn as a showtime's seat map with every seat free.
fn preview_map(plan: &HallPlan) -> Option<SeatMap> {
    let placed = plan.check().ok()?;
    let price = |code: &str| {
        plan.categories
            .iter()
            .find(|c| c.code == code)
            .map_or(0, |c| c.price)
    };
    Some(SeatMap {
        showtime_id: ShowtimeId::try_from(1).ok()?,
        movie_title: String::new(),
        hall_name: plan.name.clone(),
        starts_at: chrono::DateTime::UNIX_EPOCH,
        categories: plan.categories.clone(),
        seats: placed
            .iter()
            .map(|s| s.on_map(price(&s.category), SeatStatus::Available, 0))
            .collect(),
        sales_open: true,
        sales_opens_at: None,
        cancelled: false,

        seat_rules: Default::default(),
        accessible_released: false,
    })
}

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
mod tests {
    use super::*;

    #[test]
    fn a_wheelchair_place_or_aisle_past_the_row_is_named_not_dropped() {
        assert_eq!(
            super::past_the_row("A", 12, &[4], &[12], &[11]),
            Vec::<String>::new()
        );
        let problems = super::past_the_row("A", 12, &[12], &[14], &[0]);
        assert_eq!(problems.len(), 3, "{problems:?}");
        assert!(
            problems.iter().any(|p| p.contains("wheelchair place 14")),
            "{problems:?}"
        );
        assert!(
            problems.iter().any(|p| p.contains("companion seat 0")),
            "{problems:?}"
        );
        assert!(
            problems
                .iter()
                .any(|p| p.contains("after seat 12, the last")),
            "{problems:?}"
        );
    }

    #[test]
    fn a_row_gets_its_aisles_after_the_named_seats_and_its_wheelchair_places() {
        let marked = Marked {
            wheelchair: &[1],
            companion: &[2],
        };
        let row = row_plan(" b ", 5, "STANDARD", &[2, 5], marked);
        assert_eq!(row.label, "B");
        let shape: Vec<String> = row
            .seats
            .iter()
            .map(|s| match s {
                SeatPlan::Gap { gap } => format!("_{gap}"),
                SeatPlan::Seat {
                    number,
                    wheelchair,
                    companion,
                    ..
                } => format!(
                    "{number}{}{}",
                    if *wheelchair { "w" } else { "" },
                    if *companion { "c" } else { "" }
                ),
            })
            .collect();
        assert_eq!(
            shape,
            ["1w", "2c", "_1", "3", "4", "5"],
            "no aisle after the last seat"
        );
        assert_eq!(
            row_fields(&row),
            Some(RowFields {
                seats: 5,
                category: "STANDARD".into(),
                aisles: vec![2],
                wheelchair: vec![1],
                companion: vec![2],
            }),
            "read back as the editor wrote it"
        );
        let mut mixed = row.clone();
        mixed.seats[0] = SeatPlan::Seat {
            number: 1,
            category: "VIP".into(),
            wheelchair: false,
            companion: false,
        };
        assert_eq!(row_fields(&mixed), None, "two categories in a row");
        let mut wide = row.clone();
        wide.seats[2] = SeatPlan::Gap { gap: 3 };
        assert_eq!(row_fields(&wide), None, "an aisle wider than one column");
        assert_eq!(seat_numbers("4, 10 12"), Ok(vec![4, 10, 12]));
        assert!(seat_numbers("4, x").is_err());
    }
}
