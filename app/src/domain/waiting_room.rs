//! The waiting room of a hot sale: the operator's settings, a customer's place in the queue,
//! the one frame every waiter of a showtime is sent, and the figures the console shows.

use serde::{Deserialize, Serialize};

/// Seats one admission may hold in all (its holds, cancels and holds again counted together).
pub const SEATS_PER_ADMISSION: usize = super::MAX_SEATS_PER_HOLD;

/// How an operator runs a showtime's waiting room. `on` is the showtime's hot-sale flag.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WaitingRoomSettings {
    /// While on, every customer passes the room before holding (staff never do).
    pub on: bool,
    /// Admissions stop while paused; the queue keeps its order.
    #[serde(default)]
    pub paused: bool,
    /// Shoppers inside (admitted, or holding seats) at once, at most.
    pub max_active: u32,
    /// New admissions in any minute, at most.
    pub admit_per_minute: u32,
    /// Shown to everyone waiting (empty: none).
    #[serde(default)]
    pub message: String,
    /// Everyone who joined before sales open is put in a random order when they open (the
    /// seed is published once drawn); later arrivals queue behind them.
    #[serde(default)]
    pub shuffle: bool,
    /// A new place costs a proof of work of this many bits (0: none): the page's WebAssembly
    /// solves it, a script minting thousands of places pays thousands of times.
    #[serde(default)]
    pub proof_bits: u8,
}

/// Upper bound of `proof_bits` (each bit doubles the work: 24 bits is minutes on a phone).
pub const MAX_PROOF_BITS: u8 = 24;

/// Upper bound of `max_active` and `admit_per_minute`.
pub const MAX_ROOM_RATE: u32 = 100_000;

impl Default for WaitingRoomSettings {
    fn default() -> Self {
        Self {
            on: false,
            paused: false,
            max_active: 100,
            admit_per_minute: 100,
            message: String::new(),
            shuffle: false,
            proof_bits: 0,
        }
    }
}

impl WaitingRoomSettings {
    /// What is wrong with the settings, one line each (nothing: they are fine).
    pub fn problems(&self) -> Vec<crate::error::Reason> {
        use crate::error::Reason;
        let mut problems = Vec::new();
        let rate = ("max", MAX_ROOM_RATE.to_string());
        if !(1..=MAX_ROOM_RATE).contains(&self.max_active) {
            problems.push(Reason::new(
                "invalid.room.max_active",
                std::slice::from_ref(&rate),
            ));
        }
        if !(1..=MAX_ROOM_RATE).contains(&self.admit_per_minute) {
            problems.push(Reason::new("invalid.room.admit_per_minute", &[rate]));
        }
        if self.proof_bits > MAX_PROOF_BITS {
            let max = ("max", MAX_PROOF_BITS.to_string());
            problems.push(Reason::new("invalid.room.proof_bits", &[max]));
        }
        if !self.message.is_empty() {
            if let Some(p) = super::name_problem("invalid.what.room_message", &self.message, 500) {
                problems.push(p);
            }
        }
        problems
    }
}

/// Where a customer stands in a showtime's queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub enum QueueState {
    Waiting,
    Admitted,
}

/// A customer's place, as `POST`/`GET /showtimes/{id}/queue` answer it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct QueuePlace {
    /// The place's ticket (API clients send it back as `Queue-Ticket`).
    pub ticket: String,
    /// The place's number in the order of arrival (1 is the first who joined).
    pub number: u64,
    /// 1 when next; 0 once admitted.
    pub position: u64,
    /// People ahead: never grows, unless an operator resets the room.
    pub ahead: u64,
    pub state: QueueState,
    /// When to ask again, in milliseconds (asking sooner answers 429; the place is kept).
    pub poll_after_ms: u64,
    /// Minutes until admission at the measured rate; none until there is enough history.
    pub wait_minutes: Option<f64>,
    /// The admission (while admitted): send it as `Admission-Token` with a hold.
    pub admission: Option<Admission>,
    /// The operator's message to the room (empty: none).
    pub message: String,
    /// Admissions are paused.
    pub paused: bool,
    /// The opening draw, when the room shuffles who joined before sales opened.
    #[serde(default)]
    pub draw: Option<QueueDraw>,
}

/// A room's opening draw: everyone who joined before sales opened, put in a random order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct QueueDraw {
    /// Not drawn yet (sales have not opened): `number`, `position` and `ahead` are by arrival
    /// until then, and change once, at the draw.
    pub pending: bool,
    /// Published once drawn: with it anyone can repeat the draw (docs/api.md says how).
    pub seed: Option<String>,
    /// Places in the draw.
    pub entrants: u64,
    /// This place's rank by arrival among them (1: the first who joined), if it was in it.
    pub arrival: Option<u64>,
    /// When it was drawn (RFC 3339).
    pub drawn_at: Option<String>,
}

/// A place's proof of work: SHA-256 of `"{challenge}:{nonce}"` starts with `bits` zero bits.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QueueProof {
    pub challenge: String,
    pub nonce: u64,
}

impl QueueProof {
    /// Whether the proof does the work `bits` asks for.
    pub fn solves(challenge: &str, nonce: u64, bits: u8) -> bool {
        use sha2::{Digest, Sha256};
        let digest = Sha256::new()
            .chain_update(challenge.as_bytes())
            .chain_update(b":")
            .chain_update(nonce.to_string().as_bytes())
            .finalize();
        leading_zero_bits(&digest) >= u32::from(bits)
    }

    /// The first nonce from `start` (trying `tries` of them) that solves the challenge.
    pub fn search(challenge: &str, bits: u8, start: u64, tries: u64) -> Option<u64> {
        (start..start.saturating_add(tries)).find(|n| Self::solves(challenge, *n, bits))
    }
}

fn leading_zero_bits(bytes: &[u8]) -> u32 {
    let mut bits = 0;
    for b in bytes {
        if *b == 0 {
            bits += 8;
        } else {
            return bits + b.leading_zeros();
        }
    }
    bits
}

/// A signed admission: showtime, customer and expiry, checked by the hold endpoint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Admission {
    pub token: String,
    /// Hold before then (RFC 3339), or the place goes to the next person.
    pub hold_by: String,
}

/// The frame every waiter of a showtime is sent (the same bytes for each): from `served` and
/// its own number each page computes its position.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QueueFrame {
    /// Every place numbered up to this one has left the queue (admitted, or gone).
    pub served: u64,
    /// Measured admissions per minute (none until there is enough history).
    pub per_minute: Option<f64>,
    pub paused: bool,
    pub message: String,
    /// Bumped by a reset (places of an older epoch are gone: join again) and by the opening
    /// draw (every place was given a new number): ask for the place again.
    pub epoch: u64,
    /// The room was turned off: go to the seat map.
    pub open: bool,
    /// When the server made this frame (ms since the epoch, the server's clock).
    #[serde(default)]
    pub at: i64,
    /// Shoppers inside now (admitted, choosing or paying), and how many the room lets in at
    /// once (0: the room is off).
    #[serde(default)]
    pub inside: u64,
    #[serde(default)]
    pub max_inside: u32,
    /// New admissions a minute, at most (the operator's setting).
    #[serde(default)]
    pub admit_per_minute: u32,
    /// The longest one shopper stays inside (the time to hold, then one hold), in minutes.
    #[serde(default)]
    pub stay_minutes: u32,
    /// Each price category: its price and how many of its seats are free now.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub left: Vec<SeatsLeft>,
}

/// A price category's seats still on sale, as a waiting page shows them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SeatsLeft {
    pub code: String,
    pub name: String,
    /// The adult price.
    pub price: super::Won,
    pub free: u32,
}

impl QueueFrame {
    /// Everyone the room lets in at once is inside: the next person waits for one to leave.
    pub fn full(&self) -> bool {
        self.max_inside > 0 && self.inside >= u64::from(self.max_inside)
    }

    /// The longest wait of `position`, in minutes, without a measured pace: the room's free
    /// places are taken first, each place inside frees up within one stay, and the room admits
    /// at most its rate.
    pub fn longest_wait(&self, position: u64) -> Option<u64> {
        if self.max_inside == 0 || self.stay_minutes == 0 {
            return None;
        }
        let free = u64::from(self.max_inside).saturating_sub(self.inside);
        let turns = position
            .saturating_sub(free)
            .div_ceil(u64::from(self.max_inside));
        let by_rate = match self.admit_per_minute {
            0 => 0,
            rate => position.div_ceil(u64::from(rate)),
        };
        Some((turns * u64::from(self.stay_minutes)).max(by_rate))
    }

    /// The position of place `number` (1: next; 0: its turn has come).
    pub fn position(&self, number: u64) -> u64 {
        number.saturating_sub(self.served)
    }

    /// Minutes to wait for place `number`, at the measured rate.
    pub fn wait_minutes(&self, number: u64) -> Option<f64> {
        wait_minutes(self.position(number), self.per_minute)
    }
}

/// Minutes until `position` is admitted at `per_minute`.
pub fn wait_minutes(position: u64, per_minute: Option<f64>) -> Option<f64> {
    per_minute
        .filter(|rate| *rate > 0.0)
        .map(|rate| position as f64 / rate)
}

/// What the console shows of a room.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WaitingRoomView {
    pub showtime_id: super::ShowtimeId,
    pub settings: WaitingRoomSettings,
    /// In the queue now.
    pub waiting: u64,
    /// Admitted or holding now.
    pub inside: u64,
    /// Since the last reset: admitted, admissions that ended unused or with their hold, and
    /// places given up (left for longer than the grace period).
    pub admitted: u64,
    pub expired: u64,
    pub abandoned: u64,
    pub per_minute: Option<f64>,
    /// The room's state could not be read (Redis unreachable).
    pub unavailable: bool,
    /// The opening draw, once made.
    #[serde(default)]
    pub draw: Option<QueueDraw>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_out_of_range_say_what_is_wrong() {
        let s = WaitingRoomSettings {
            max_active: 0,
            admit_per_minute: MAX_ROOM_RATE + 1,
            message: "\u{202e}x".into(),
            ..Default::default()
        };
        assert_eq!(s.problems().len(), 3, "{:?}", s.problems());
        assert!(WaitingRoomSettings::default().problems().is_empty());
    }

    #[test]
    fn a_page_computes_its_position_from_the_served_counter() {
        let frame = QueueFrame {
            served: 40,
            per_minute: Some(20.0),
            paused: false,
            message: String::new(),
            epoch: 1,
            open: true,
            at: 0,
            inside: 2,
            max_inside: 2,
            admit_per_minute: 60,
            stay_minutes: 11,
            left: Vec::new(),
        };
        assert_eq!(frame.position(41), 1);
        assert_eq!(frame.position(39), 0);
        assert_eq!(frame.wait_minutes(100), Some(3.0));
        assert_eq!(wait_minutes(5, None), None);
        // Two inside of two: places 1–2 go in within one stay, 3–4 within two.
        assert!(frame.full());
        assert_eq!(frame.longest_wait(2), Some(11));
        assert_eq!(frame.longest_wait(3), Some(22));
        // A slow rate bounds it instead: 1,000 places at 60 a minute.
        let wide = QueueFrame {
            max_inside: 1000,
            ..frame.clone()
        };
        assert!(!wide.full());
        assert_eq!(wide.longest_wait(3000), Some(50));
        // With room inside, only the rate stands between the next ones and their turn.
        assert_eq!(wide.longest_wait(5), Some(1));
        let off = QueueFrame {
            max_inside: 0,
            ..frame
        };
        assert_eq!(off.longest_wait(1), None);
    }
}
