//! A row of the editor as the plan has it and back: its seats, aisles and offset, and the
//! numbers as the clerk types them.

use super::*;

/// One row of seats numbered from 1, `offset` empty columns in, with an aisle (one empty
/// column) after each seat of `aisles` that is not the last.
pub fn row_plan(
    label: &str,
    offset: u32,
    seats: u32,
    category: &str,
    aisles: &[u32],
    marked: Marked,
) -> RowPlan {
    let mut plan = Vec::new();
    if offset > 0 {
        plan.push(SeatPlan::Gap { gap: offset });
    }
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
        label: label.trim().to_ascii_uppercase(),
        seats: plan,
    }
}

/// How many columns a row of `seats` seats with aisles after `aisles` spans.
pub fn row_width(seats: u32, aisles: &[u32]) -> u32 {
    seats + aisles.iter().filter(|a| **a >= 1 && **a < seats).count() as u32
}

/// The offset of each row that centres it under the widest (rows that cannot be read: `None`).
pub fn centred_offsets(widths: &[Option<u32>]) -> Vec<Option<u32>> {
    let widest = widths.iter().flatten().copied().max().unwrap_or(0);
    widths
        .iter()
        .map(|w| w.map(|w| ((widest - w) / 2).min(MAX_OFFSET)))
        .collect()
}

/// A row as the editor's fields hold it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowFields {
    pub offset: u32,
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
    let offset = match row.seats.first() {
        Some(SeatPlan::Gap { gap }) if *gap <= MAX_OFFSET => *gap,
        _ => 0,
    };
    for item in row.seats.iter().skip(usize::from(offset > 0)) {
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
        offset,
        seats,
        category: category?,
        aisles,
        wheelchair,
        companion,
    })
}

pub(super) fn listed(numbers: &[u32]) -> String {
    numbers
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}
