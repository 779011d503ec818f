//! Messages of the live seat map (`GET /showtimes/{id}/live`, a WebSocket): a snapshot on
//! connect, then one message per committed change. Every seat carries its version, so a client
//! applies only what is newer than what it has, whatever order messages arrive in.

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
            | Self::SeatsBlocked { seats, .. } => seats,
            Self::ShowtimeCancelled { .. } | Self::Ping => &[],
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
}
