//! Messages of the live seat map (`GET /showtimes/{id}/live`, a WebSocket): a snapshot on
//! connect, then one message per committed change — or, for a viewer whose connection is still
//! busy when more changes come, one [`LiveMessage::SeatsChanged`] for all that came meanwhile.
//! Every seat carries its version, so a client applies only what is newer than what it has,
//! whatever order messages arrive in; that is also what makes merging safe.

use super::{SeatChange, ShowtimeId};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum LiveMessage {
    /// Every seat's current state; sent first on each connection.
    Snapshot {
        showtime_id: ShowtimeId,
        seats: Vec<SeatChange>,
    },
    SeatsHeld {
        showtime_id: ShowtimeId,
        seats: Vec<SeatChange>,
    },
    SeatsReleased {
        showtime_id: ShowtimeId,
        seats: Vec<SeatChange>,
    },
    SeatsBooked {
        showtime_id: ShowtimeId,
        seats: Vec<SeatChange>,
    },
    /// Seats taken off public sale (`HOUSE`, `KILLED`) or put back on sale (`AVAILABLE`).
    SeatsBlocked {
        showtime_id: ShowtimeId,
        seats: Vec<SeatChange>,
    },
    /// Several changes merged into one message (see [`LiveMessage::merged`]): each seat once,
    /// at the newest of its versions among them.
    SeatsChanged {
        showtime_id: ShowtimeId,
        seats: Vec<SeatChange>,
    },
    /// The showtime was cancelled: nothing of it is sold any more.
    ShowtimeCancelled { showtime_id: ShowtimeId },
    /// Sent every few seconds so that clients (and proxies) know the connection is alive.
    Ping,
}

impl LiveMessage {
    /// The seat changes the message carries (none for a ping).
    pub fn seats(&self) -> &[SeatChange] {
        match self {
            Self::Snapshot { seats, .. }
            | Self::SeatsHeld { seats, .. }
            | Self::SeatsReleased { seats, .. }
            | Self::SeatsBooked { seats, .. }
            | Self::SeatsBlocked { seats, .. }
            | Self::SeatsChanged { seats, .. } => seats,
            Self::ShowtimeCancelled { .. } | Self::Ping => &[],
        }
    }

    /// The showtime the message is about (none for a ping).
    pub fn showtime(&self) -> Option<ShowtimeId> {
        match self {
            Self::Snapshot { showtime_id, .. }
            | Self::SeatsHeld { showtime_id, .. }
            | Self::SeatsReleased { showtime_id, .. }
            | Self::SeatsBooked { showtime_id, .. }
            | Self::SeatsBlocked { showtime_id, .. }
            | Self::SeatsChanged { showtime_id, .. }
            | Self::ShowtimeCancelled { showtime_id } => Some(*showtime_id),
            Self::Ping => None,
        }
    }

    /// The seat changes of `messages` as one message: each seat once, at its newest version
    /// (a client that applied them one by one ends with the same map). Messages without seats
    /// add nothing; the merge stops at none of them, so a caller keeps those apart.
    pub fn merged<'a>(
        showtime_id: ShowtimeId,
        messages: impl IntoIterator<Item = &'a LiveMessage>,
    ) -> LiveMessage {
        let mut newest: std::collections::BTreeMap<&str, &SeatChange> = Default::default();
        for change in messages.into_iter().flat_map(LiveMessage::seats) {
            let kept = newest.entry(change.code.as_str()).or_insert(change);
            if change.version > kept.version {
                *kept = change;
            }
        }
        LiveMessage::SeatsChanged {
            showtime_id,
            seats: newest.into_values().cloned().collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{SeatCode, SeatStatus};

    #[test]
    fn messages_are_tagged_camel_case_json() {
        let m = LiveMessage::SeatsHeld {
            showtime_id: ShowtimeId::try_from(7).unwrap(),
            seats: vec![SeatChange {
                code: SeatCode::parse("F5").unwrap(),
                status: SeatStatus::Held,
                version: 3,
            }],
        };
        let json = serde_json::to_value(&m).unwrap();
        assert_eq!(json["type"], "seatsHeld");
        assert_eq!(json["showtimeId"], 7);
        assert_eq!(json["seats"][0]["code"], "F5");
        assert_eq!(serde_json::from_value::<LiveMessage>(json).unwrap(), m);
        assert_eq!(
            serde_json::to_value(LiveMessage::Ping).unwrap()["type"],
            "ping"
        );
    }

    #[test]
    fn merged_changes_keep_each_seat_once_at_its_newest_version() {
        let s = ShowtimeId::try_from(7).unwrap();
        let change = |code: &str, status, version| SeatChange {
            code: SeatCode::parse(code).unwrap(),
            status,
            version,
        };
        let messages = [
            LiveMessage::SeatsHeld {
                showtime_id: s,
                seats: vec![
                    change("A1", SeatStatus::Held, 4),
                    change("A2", SeatStatus::Held, 2),
                ],
            },
            LiveMessage::SeatsReleased {
                showtime_id: s,
                seats: vec![change("A1", SeatStatus::Available, 5)],
            },
            // Arrived late (another process's older change): the newer version stays.
            LiveMessage::SeatsHeld {
                showtime_id: s,
                seats: vec![change("A2", SeatStatus::Held, 1)],
            },
            LiveMessage::Ping,
        ];
        let merged = LiveMessage::merged(s, &messages);
        assert_eq!(
            merged,
            LiveMessage::SeatsChanged {
                showtime_id: s,
                seats: vec![
                    change("A1", SeatStatus::Available, 5),
                    change("A2", SeatStatus::Held, 2)
                ],
            }
        );
        assert_eq!(
            serde_json::to_value(&merged).unwrap()["type"],
            "seatsChanged"
        );
    }
}
