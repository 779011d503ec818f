//! What the room answers and reports: a place's step, an admission step's rules and report, a
//! room's figures.

/// The room's state could not be read or changed (Redis unreachable).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RoomDown;

/// What became of a join or a poll.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    Ok,
    Full,
    AddressCap,
    Gone,
    /// Polled sooner than allowed: ask again after this many ms (the place is kept).
    TooSoon(u64),
    /// A new place needs a proof of work, and none was given.
    ProofNeeded,
}

/// A room's opening draw, once made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Drawn {
    pub seed: String,
    pub entrants: u64,
    pub at_ms: i64,
}

/// A place as the room sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub step: Step,
    pub ticket: String,
    pub number: u64,
    pub served: u64,
    /// Admitted (or holding) until then (ms since the epoch).
    pub deadline_ms: Option<i64>,
    pub epoch: u64,
    /// The place's rank by arrival in the opening draw, if it was in it.
    pub arrival: Option<u64>,
    pub drawn: Option<Drawn>,
}

impl Answer {
    pub(super) fn gone(epoch: u64) -> Self {
        Self::refused(Step::Gone, epoch)
    }

    pub(super) fn refused(step: Step, epoch: u64) -> Self {
        Self {
            step,
            ticket: String::new(),
            number: 0,
            served: 0,
            deadline_ms: None,
            epoch,
            arrival: None,
            drawn: None,
        }
    }
}

#[derive(Debug, Clone)]
pub struct JoinLimits {
    pub room_cap: u64,
    pub per_address: u32,
    /// A new place needs a proof of work, and none was given.
    pub must_prove: bool,
    /// The challenge a valid proof solved, and until when it is remembered as used (ms): a new
    /// place is made with it once.
    pub proof: Option<(String, i64)>,
}

/// One admission step's rules (the showtime's settings and the server's policy).
#[derive(Debug, Clone)]
pub struct AdmitStep {
    pub max_active: u32,
    pub per_minute: u32,
    pub paused: bool,
    pub grace_ms: i64,
    pub admission_ms: i64,
    /// The longest an admission lives, however often its shopper holds again: the time to
    /// hold and one hold's length (an admission is not a season ticket).
    pub stay_ms: i64,
    /// Places given up cleared per step, at most (the rest in the next steps).
    pub most_given_up: usize,
    /// The room shuffles and sales are open: the seed of its draw, if none was made yet.
    pub draw_seed: Option<String>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AdmitReport {
    pub admitted: u64,
    /// Admissions ended (unused past their deadline, or with their hold).
    pub expired: u64,
    /// Places given up (away past the grace period).
    pub given_up: u64,
}

/// A room's figures.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counts {
    /// Waiting and seen within the grace period.
    pub waiting: u64,
    pub served: u64,
    pub inside: u64,
    pub now: i64,
    pub epoch: u64,
    /// Admissions of the last 5 minutes, and when the oldest of them was.
    pub recent_admits: u64,
    pub oldest_admit: Option<i64>,
    pub admitted: u64,
    pub expired: u64,
    pub abandoned: u64,
    pub drawn: Option<Drawn>,
}

impl Counts {
    /// Admissions a minute, measured; none before 10 admissions over at least 20 s.
    pub fn per_minute(&self) -> Option<f64> {
        let oldest = self.oldest_admit?;
        let span = (self.now - oldest) as f64 / 60_000.0;
        (self.recent_admits >= 10 && span >= 20.0 / 60.0).then(|| self.recent_admits as f64 / span)
    }
}

/// What a hold's seat reservation against its admission gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reserve {
    /// Reserved on the admission of this ticket.
    Reserved(String),
    NotAdmitted,
    /// The admission has held this many seats already.
    TooManySeats(u32),
}
