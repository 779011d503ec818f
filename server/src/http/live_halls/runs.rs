//! A batch of bus items as the frames a hall's viewers are sent.

use super::super::page_frames::text_frame;
use crate::live_bus::BusItem;
use app::domain::{LiveMessage, SeatChange, ShowtimeId};
use axum::body::Bytes;
use std::sync::Arc;

/// A batch of changes that waited together, as the frames that say them: each run of seat
/// changes as one frame (a change alone keeps the frame the bus made), with the seats it
/// carries for a busy viewer's pending set; a cancellation as its own frame.
pub(super) struct Run {
    pub(super) frame: Bytes,
    pub(super) seats: Vec<SeatChange>,
    pub(super) cancels: bool,
}

pub(super) fn runs(showtime: ShowtimeId, batch: &[Arc<BusItem>]) -> Vec<Run> {
    let mut runs = Vec::new();
    let mut seats: Vec<&LiveMessage> = Vec::new();
    let flush = |seats: &mut Vec<&LiveMessage>, runs: &mut Vec<Run>, alone: Option<&str>| {
        match (seats.len(), alone) {
            (0, _) => {}
            (1, Some(json)) => runs.push(Run {
                frame: Bytes::from(text_frame(json)),
                seats: seats[0].seats().to_vec(),
                cancels: false,
            }),
            _ => {
                let merged = LiveMessage::merged(showtime, seats.iter().copied());
                if let Ok(json) = serde_json::to_string(&merged) {
                    runs.push(Run {
                        frame: Bytes::from(text_frame(&json)),
                        seats: merged.seats().to_vec(),
                        cancels: false,
                    });
                }
            }
        }
        seats.clear();
    };
    let mut last_json: Option<&str> = None;
    for item in batch {
        let BusItem::Event(message, json) = &**item else {
            continue;
        };
        if message.seats().is_empty() {
            flush(&mut seats, &mut runs, last_json);
            if matches!(message, LiveMessage::ShowtimeCancelled { .. }) {
                runs.push(Run {
                    frame: Bytes::from(text_frame(json)),
                    seats: Vec::new(),
                    cancels: true,
                });
            }
        } else {
            seats.push(message);
            last_json = Some(json.as_str());
        }
    }
    flush(&mut seats, &mut runs, last_json);
    runs
}
