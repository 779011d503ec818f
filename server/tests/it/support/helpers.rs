//! An engine over a test database with a clock the test can move, waiting on state, seats.

use super::*;

/// Asks `probe` every 50 ms until `done` accepts its answer or `within` has passed; the last
/// answer either way (the caller asserts on it, so a timeout reads as a plain failed assertion).
pub async fn eventually<T, Fut>(
    within: Duration,
    mut probe: impl FnMut() -> Fut,
    done: impl Fn(&T) -> bool,
) -> T
where
    Fut: std::future::Future<Output = T>,
{
    let deadline = std::time::Instant::now() + within;
    loop {
        let answer = probe().await;
        if done(&answer) || std::time::Instant::now() >= deadline {
            return answer;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A fixed start for manual clocks.
pub fn t0() -> chrono::DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 29, 12, 0, 0).unwrap()
}

/// An engine over the test database, the lone-seat rule off: tests of other parts hold whatever
/// seats they need (the seat rules are tested with the rule on, in `seat_rules`).
pub fn engine(db: &TestDb, clock: Clock, ttl: Duration) -> Arc<Engine> {
    Arc::new(Engine::new(db.store.clone(), clock, ttl).with_seat_rules(NO_SEAT_RULES))
}

/// The lone-seat rule off.
pub const NO_SEAT_RULES: app::domain::seat_rules::Rules = app::domain::seat_rules::Rules {
    no_lone_seats: false,
    exempt_edges: false,
};

/// A showtime id the test knows to be valid (a row id, or one it made up).
pub fn showtime_id(id: i64) -> ShowtimeId {
    ShowtimeId::try_from(id).expect("a showtime id in range")
}

pub fn sel(codes: &[&str]) -> SeatSelection {
    SeatSelection::parse(codes).unwrap()
}

pub fn code(c: &str) -> SeatCode {
    SeatCode::parse(c).unwrap()
}

/// Checks that no seat was granted to two successful holds. `wins` are `(hold id, seats)`.
pub fn exclusive(wins: &[(Uuid, Vec<String>)]) -> Result<(), String> {
    let mut owner: BTreeMap<&str, Uuid> = BTreeMap::new();
    for (hold, seats) in wins {
        for seat in seats {
            if let Some(prev) = owner.insert(seat, *hold) {
                return Err(format!("seat {seat} granted to holds {prev} and {hold}"));
            }
        }
    }
    Ok(())
}
