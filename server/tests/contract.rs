//! The store contract suite: every test runs against real PostgreSQL and against SQLite
//! (`postgres::…` and `sqlite::…`). Seed §10's concurrency test, a larger random one, the control
//! that shows they catch a read-then-write implementation, lock order, lazy expiry with a moved
//! clock, fenced confirmation, the sweeper, cancel.

#[macro_use]
mod support;

use app::domain::{BookingId, CustomerId, HoldId, SeatStatus};
use app::engine::Inventory;
use app::error::InventoryError;
use rand::seq::IndexedRandom;
use rand::Rng;
use server::clock::Clock;
use server::store::{HoldOutcome, HoldRequest};
use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;
use support::*;
use tokio::sync::Barrier;
use uuid::Uuid;

const TTL: Duration = Duration::from_secs(600);

fn customer() -> CustomerId {
    CustomerId(Uuid::new_v4())
}

fn minutes(m: i64) -> chrono::Duration {
    chrono::Duration::minutes(m)
}

on_both_backends!(
    twenty_customers_on_the_same_two_seats_exactly_one_wins,
    control_read_then_write_is_caught_by_the_same_check,
    two_hundred_customers_with_overlapping_random_seats_never_share_one,
    opposite_seat_orders_never_deadlock,
    a_hold_takes_all_seats_or_none,
    an_expired_hold_reads_as_available_and_can_be_taken_without_a_sweep,
    confirm_moves_every_seat_of_a_live_hold_and_only_once,
    confirm_after_expiry_fails,
    confirm_after_another_customer_re_held_a_seat_fails_and_leaves_it_theirs,
    the_sweeper_releases_each_expired_seat_once_even_when_run_concurrently,
    only_the_owner_can_cancel_and_seats_come_back_at_once,
    unknown_seats_and_showtimes_are_refused_without_change,
    every_change_increments_the_seat_version,
    a_customer_finds_their_live_hold_again_and_nobody_else_does,
);

/// Seed §10: 20 customers, the same two seats, at the same moment.
async fn twenty_customers_on_the_same_two_seats_exactly_one_wins(backend: Backend) {
    // Arrange
    let db = TestDb::new(backend).await;
    let showtime = db.showtime().await;
    let engine = engine(&db, Clock::Database, TTL);
    let start = Arc::new(Barrier::new(20));
    // Act
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..20 {
        let (engine, start) = (engine.clone(), start.clone());
        tasks.spawn(async move {
            start.wait().await;
            engine.hold(showtime, &sel(&["F5", "F6"]), customer()).await
        });
    }
    let mut wins = Vec::new();
    while let Some(result) = tasks.join_next().await {
        match result.unwrap() {
            Ok(hold) => wins.push(hold.hold_id.as_uuid()),
            Err(InventoryError::SeatsUnavailable(_)) => {}
            Err(other) => panic!("unexpected error {other:?}"),
        }
    }
    // Assert
    assert_eq!(wins.len(), 1, "exactly one customer gets the seats");
    let stored = db.stored(showtime).await;
    let holders: BTreeSet<_> = ["F5", "F6"].iter().map(|c| stored[*c].1).collect();
    assert_eq!(
        holders,
        BTreeSet::from([Some(wins[0])]),
        "one hold id holds both seats"
    );
    db.drop_database().await;
}

/// The control: the same race against a read-then-write hold must produce an oversell, which
/// the same check reports. If this ever passes "cleanly", the race test above proves nothing.
async fn control_read_then_write_is_caught_by_the_same_check(backend: Backend) {
    let db = Arc::new(TestDb::new(backend).await);
    let showtime = db.showtime().await;
    let start = Arc::new(Barrier::new(20));
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..20 {
        let (db, start) = (db.clone(), start.clone());
        tasks.spawn(async move {
            start.wait().await;
            let hold = Uuid::new_v4();
            db.read_then_write_hold(showtime, &["F5", "F6"], hold, Uuid::new_v4())
                .await
                .then(|| (hold, vec!["F5".to_string(), "F6".to_string()]))
        });
    }
    let mut wins = Vec::new();
    while let Some(r) = tasks.join_next().await {
        wins.extend(r.unwrap());
    }
    assert!(
        wins.len() > 1,
        "the naive hold should let several customers 'win'"
    );
    assert!(
        exclusive(&wins).is_err(),
        "the exclusivity check must flag the oversell"
    );
    Arc::into_inner(db).unwrap().drop_database().await;
}

/// ≥200 customers, random overlapping seat sets on a small block of seats, five rounds.
async fn two_hundred_customers_with_overlapping_random_seats_never_share_one(backend: Backend) {
    let db = TestDb::new(backend).await;
    let showtime = db.showtime().await;
    let clock = Clock::manual(t0());
    let engine = engine(&db, clock.clone(), TTL);
    // 24 seats in rows E–G, so that requests collide often.
    let block: Vec<String> = ["E", "F", "G"]
        .iter()
        .flat_map(|r| (5..=12).map(move |n| format!("{r}{n}")))
        .collect();
    let mut known = BTreeSet::new();
    for round in 0..5 {
        let start = Arc::new(Barrier::new(200));
        let mut tasks = tokio::task::JoinSet::new();
        for _ in 0..200 {
            let (engine, start) = (engine.clone(), start.clone());
            let wanted: Vec<String> = {
                let mut rng = rand::rng();
                let n = rng.random_range(1..=4);
                block.choose_multiple(&mut rng, n).cloned().collect()
            };
            tasks.spawn(async move {
                start.wait().await;
                let selection = app::domain::SeatSelection::parse(&wanted).unwrap();
                engine
                    .hold(showtime, &selection, customer())
                    .await
                    .map(|h| (h.hold_id.as_uuid(), wanted))
            });
        }
        let mut wins = Vec::new();
        while let Some(r) = tasks.join_next().await {
            match r.unwrap() {
                Ok(win) => wins.push(win),
                Err(InventoryError::SeatsUnavailable(_)) => {}
                Err(other) => panic!("round {round}: unexpected error {other:?}"),
            }
        }
        assert!(!wins.is_empty(), "round {round}: someone must win");
        exclusive(&wins).unwrap_or_else(|e| panic!("round {round}: {e}"));
        // What is stored agrees with the winners, seat by seat.
        let stored = db.stored(showtime).await;
        for (hold, seats) in &wins {
            for seat in seats {
                assert_eq!(
                    stored[seat],
                    ("HELD".to_string(), Some(*hold)),
                    "round {round}: seat {seat}"
                );
            }
        }
        // No seat carries this round's hold ids beyond the winners' seats, and every HELD seat
        // belongs to a known hold (this round's, or an earlier round's that has lapsed).
        let this_round: BTreeSet<Uuid> = wins.iter().map(|(h, _)| *h).collect();
        known.extend(this_round.iter().copied());
        let held_now = stored
            .values()
            .filter(|(_, h)| h.is_some_and(|h| this_round.contains(&h)))
            .count();
        assert_eq!(
            held_now,
            wins.iter().map(|(_, s)| s.len()).sum::<usize>(),
            "round {round}: no stray holds"
        );
        assert!(stored
            .values()
            .all(|(s, h)| s != "HELD" || h.is_some_and(|h| known.contains(&h))));
        // Let every hold lapse: the next round starts from an all-free block, with no sweep.
        clock.advance(minutes(11));
    }
    db.drop_database().await;
}

/// A: F5,F6 and B: F6,F5 at once, many times: the statements lock in seat order whatever order
/// they are given, so neither ever fails with a deadlock (or any database error).
async fn opposite_seat_orders_never_deadlock(backend: Backend) {
    let db = TestDb::new(backend).await;
    let showtime = db.showtime().await;
    let store = db.store.clone();
    for i in 0..60 {
        let orders = [
            vec![code("F5"), code("F6"), code("F7")],
            vec![code("F7"), code("F6"), code("F5")],
        ];
        let mut tasks = tokio::task::JoinSet::new();
        for seats in orders {
            let store = store.clone();
            tasks.spawn(async move {
                let req = HoldRequest {
                    showtime,
                    seats: &seats,
                    hold_id: HoldId::new(showtime, rand::random()),
                    customer: customer(),
                    ttl: TTL,
                };
                let hold = req.hold_id;
                (hold, req.customer, store.hold(req, None).await)
            });
        }
        let mut winners = Vec::new();
        while let Some(r) = tasks.join_next().await {
            let (hold, who, outcome) = r.unwrap();
            match outcome.unwrap_or_else(|e| panic!("iteration {i}: database error {e}")) {
                HoldOutcome::Held { .. } => winners.push((hold, who)),
                HoldOutcome::Rejected { .. } => {}
            }
        }
        assert_eq!(winners.len(), 1, "iteration {i}");
        let (hold, who) = winners[0];
        store.cancel(hold, who).await.unwrap();
    }
    db.drop_database().await;
}

async fn a_hold_takes_all_seats_or_none(backend: Backend) {
    let db = TestDb::new(backend).await;
    let showtime = db.showtime().await;
    let engine = engine(&db, Clock::manual(t0()), TTL);
    engine
        .hold(showtime, &sel(&["F6"]), customer())
        .await
        .unwrap();
    let err = engine
        .hold(showtime, &sel(&["F5", "F6", "F7"]), customer())
        .await
        .unwrap_err();
    assert_eq!(err, InventoryError::SeatsUnavailable(vec!["F6".into()]));
    let stored = db.stored(showtime).await;
    assert_eq!(stored["F5"], ("AVAILABLE".into(), None));
    assert_eq!(stored["F7"], ("AVAILABLE".into(), None));
    db.drop_database().await;
}

async fn an_expired_hold_reads_as_available_and_can_be_taken_without_a_sweep(backend: Backend) {
    let db = TestDb::new(backend).await;
    let showtime = db.showtime().await;
    let clock = Clock::manual(t0());
    let engine = engine(&db, clock.clone(), TTL);
    let first = engine
        .hold(showtime, &sel(&["F5"]), customer())
        .await
        .unwrap();
    assert_eq!(first.expires_at, t0() + minutes(10));
    assert!(engine
        .hold(showtime, &sel(&["F5"]), customer())
        .await
        .is_err());
    let status = |map: app::domain::SeatMap| {
        map.seats
            .into_iter()
            .find(|s| s.code.as_str() == "F5")
            .unwrap()
            .status
    };
    assert_eq!(
        status(engine.seat_map(showtime).await.unwrap()),
        SeatStatus::Held
    );

    clock.advance(minutes(10)); // exactly at expiry the hold still stands
    assert_eq!(
        status(engine.seat_map(showtime).await.unwrap()),
        SeatStatus::Held
    );
    clock.advance(chrono::Duration::seconds(1));
    assert_eq!(
        status(engine.seat_map(showtime).await.unwrap()),
        SeatStatus::Available
    );
    assert_eq!(
        db.stored(showtime).await["F5"].0,
        "HELD",
        "nothing swept the stored row"
    );
    let second = engine
        .hold(showtime, &sel(&["F5"]), customer())
        .await
        .unwrap();
    assert_eq!(
        db.stored(showtime).await["F5"].1,
        Some(second.hold_id.as_uuid())
    );
    db.drop_database().await;
}

async fn confirm_moves_every_seat_of_a_live_hold_and_only_once(backend: Backend) {
    let db = TestDb::new(backend).await;
    let showtime = db.showtime().await;
    let clock = Clock::manual(t0());
    let engine = engine(&db, clock.clone(), TTL);
    let hold = engine
        .hold(showtime, &sel(&["F5", "F6"]), customer())
        .await
        .unwrap();
    clock.advance(minutes(9));
    let booked = engine
        .confirm(hold.hold_id, BookingId(Uuid::new_v4()))
        .await
        .unwrap();
    assert_eq!(booked.len(), 2);
    assert!(booked.iter().all(|c| c.status == SeatStatus::Booked));
    assert_eq!(
        engine
            .confirm(hold.hold_id, BookingId(Uuid::new_v4()))
            .await,
        Err(InventoryError::HoldLapsed)
    );
    // A booked seat stays taken whatever the clock says.
    clock.advance(minutes(60));
    assert!(engine
        .hold(showtime, &sel(&["F5"]), customer())
        .await
        .is_err());
    assert_eq!(db.stored(showtime).await["F6"].0, "BOOKED");
    db.drop_database().await;
}

async fn confirm_after_expiry_fails(backend: Backend) {
    let db = TestDb::new(backend).await;
    let showtime = db.showtime().await;
    let clock = Clock::manual(t0());
    let engine = engine(&db, clock.clone(), TTL);
    let hold = engine
        .hold(showtime, &sel(&["F5", "F6"]), customer())
        .await
        .unwrap();
    clock.advance(minutes(10) + chrono::Duration::milliseconds(1));
    assert_eq!(
        engine
            .confirm(hold.hold_id, BookingId(Uuid::new_v4()))
            .await,
        Err(InventoryError::HoldLapsed)
    );
    let stored = db.stored(showtime).await;
    assert!(stored["F5"].0 != "BOOKED" && stored["F6"].0 != "BOOKED");
    db.drop_database().await;
}

async fn confirm_after_another_customer_re_held_a_seat_fails_and_leaves_it_theirs(
    backend: Backend,
) {
    let db = TestDb::new(backend).await;
    let showtime = db.showtime().await;
    let clock = Clock::manual(t0());
    let engine = engine(&db, clock.clone(), TTL);
    let a = engine
        .hold(showtime, &sel(&["F5", "F6"]), customer())
        .await
        .unwrap();
    clock.advance(minutes(11));
    let b = engine
        .hold(showtime, &sel(&["F6"]), customer())
        .await
        .unwrap();
    // Even with a clock that would still accept A's time, one of its seats is no longer A's.
    assert_eq!(
        engine.confirm(a.hold_id, BookingId(Uuid::new_v4())).await,
        Err(InventoryError::HoldLapsed)
    );
    let stored = db.stored(showtime).await;
    assert_eq!(stored["F6"], ("HELD".into(), Some(b.hold_id.as_uuid())));
    assert_ne!(stored["F5"].0, "BOOKED");
    db.drop_database().await;
}

async fn the_sweeper_releases_each_expired_seat_once_even_when_run_concurrently(backend: Backend) {
    let db = TestDb::new(backend).await;
    let showtime = db.showtime().await;
    let clock = Clock::manual(t0());
    let engine = engine(&db, clock.clone(), TTL);
    for seats in [["A1", "A2"], ["B1", "B2"], ["C1", "C2"], ["D1", "D2"]] {
        engine
            .hold(showtime, &sel(&seats), customer())
            .await
            .unwrap();
    }
    clock.advance(minutes(5));
    let live = engine
        .hold(showtime, &sel(&["E1"]), customer())
        .await
        .unwrap(); // not yet expired below
    assert!(
        engine.sweep().await.unwrap().is_empty(),
        "nothing has expired yet"
    );
    clock.advance(minutes(6));
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..4 {
        let engine = engine.clone();
        tasks.spawn(async move { engine.sweep().await.unwrap() });
    }
    let mut released = Vec::new();
    while let Some(r) = tasks.join_next().await {
        for batch in r.unwrap() {
            assert_eq!(batch.showtime, showtime);
            released.extend(batch.changes.into_iter().map(|c| c.code.to_string()));
        }
    }
    released.sort();
    assert_eq!(
        released,
        ["A1", "A2", "B1", "B2", "C1", "C2", "D1", "D2"],
        "each seat released exactly once"
    );
    assert!(
        engine.sweep().await.unwrap().is_empty(),
        "a second sweep changes nothing"
    );
    let stored = db.stored(showtime).await;
    assert_eq!(stored["A1"], ("AVAILABLE".into(), None));
    assert_eq!(stored["E1"], ("HELD".into(), Some(live.hold_id.as_uuid())));
    db.drop_database().await;
}

async fn only_the_owner_can_cancel_and_seats_come_back_at_once(backend: Backend) {
    let db = TestDb::new(backend).await;
    let showtime = db.showtime().await;
    let engine = engine(&db, Clock::manual(t0()), TTL);
    let (owner, stranger) = (customer(), customer());
    let hold = engine
        .hold(showtime, &sel(&["F5", "F6"]), owner)
        .await
        .unwrap();
    assert_eq!(
        engine.cancel(hold.hold_id, stranger).await,
        Err(InventoryError::NotYourHold)
    );
    assert_eq!(
        db.stored(showtime).await["F5"].0,
        "HELD",
        "a refused cancel changes nothing"
    );
    let unknown = HoldId::new(showtime, rand::random());
    assert_eq!(
        engine.cancel(unknown, owner).await,
        Err(InventoryError::HoldNotFound)
    );
    engine.cancel(hold.hold_id, owner).await.unwrap();
    let stored = db.stored(showtime).await;
    assert_eq!(stored["F5"], ("AVAILABLE".into(), None));
    assert_eq!(stored["F6"], ("AVAILABLE".into(), None));
    assert_eq!(
        engine.cancel(hold.hold_id, owner).await,
        Err(InventoryError::HoldNotFound)
    );
    engine
        .hold(showtime, &sel(&["F5", "F6"]), stranger)
        .await
        .unwrap();
    db.drop_database().await;
}

async fn unknown_seats_and_showtimes_are_refused_without_change(backend: Backend) {
    let db = TestDb::new(backend).await;
    let showtime = db.showtime().await;
    let engine = engine(&db, Clock::manual(t0()), TTL);
    let before = db.stored(showtime).await;
    assert_eq!(
        engine
            .hold(showtime, &sel(&["F5", "Z99"]), customer())
            .await,
        Err(InventoryError::UnknownSeats(vec!["Z99".into()]))
    );
    let missing = app::domain::ShowtimeId(showtime.0 + 1000);
    assert_eq!(
        engine.hold(missing, &sel(&["F5"]), customer()).await,
        Err(InventoryError::ShowtimeNotFound(missing))
    );
    assert_eq!(
        engine.seat_map(missing).await.unwrap_err(),
        InventoryError::ShowtimeNotFound(missing)
    );
    assert_eq!(db.stored(showtime).await, before);
    db.drop_database().await;
}

async fn every_change_increments_the_seat_version(backend: Backend) {
    let db = TestDb::new(backend).await;
    let showtime = db.showtime().await;
    let clock = Clock::manual(t0());
    let engine = engine(&db, clock.clone(), TTL);
    let version = |map: app::domain::SeatMap| {
        map.seats
            .into_iter()
            .find(|s| s.code.as_str() == "F5")
            .unwrap()
            .version
    };
    let v0 = version(engine.seat_map(showtime).await.unwrap());
    let who = customer();
    let hold = engine.hold(showtime, &sel(&["F5"]), who).await.unwrap();
    let v1 = version(engine.seat_map(showtime).await.unwrap());
    engine.cancel(hold.hold_id, who).await.unwrap();
    let v2 = version(engine.seat_map(showtime).await.unwrap());
    let hold = engine.hold(showtime, &sel(&["F5"]), who).await.unwrap();
    engine
        .confirm(hold.hold_id, BookingId(Uuid::new_v4()))
        .await
        .unwrap();
    let v4 = version(engine.seat_map(showtime).await.unwrap());
    assert!(v0 < v1 && v1 < v2 && v2 < v4, "{v0} {v1} {v2} {v4}");
    assert_eq!(v4 - v0, 4);
    db.drop_database().await;
}

/// What lets a hold survive a page reload: the customer's live hold, and nobody else's.
async fn a_customer_finds_their_live_hold_again_and_nobody_else_does(backend: Backend) {
    let db = TestDb::new(backend).await;
    let showtime = db.showtime().await;
    let clock = Clock::manual(t0());
    let engine = engine(&db, clock.clone(), TTL);
    let (owner, other) = (customer(), customer());
    assert_eq!(engine.current_hold(showtime, owner).await.unwrap(), None);
    let hold = engine
        .hold(showtime, &sel(&["F6", "F5"]), owner)
        .await
        .unwrap();
    assert_eq!(hold.server_time, t0());
    let found = engine
        .current_hold(showtime, owner)
        .await
        .unwrap()
        .expect("the owner's hold");
    assert_eq!(
        (found.hold_id, found.expires_at),
        (hold.hold_id, hold.expires_at)
    );
    assert_eq!(found.seats, vec![code("F5"), code("F6")]);
    assert_eq!(engine.current_hold(showtime, other).await.unwrap(), None);
    clock.advance(minutes(11));
    assert_eq!(
        engine.current_hold(showtime, owner).await.unwrap(),
        None,
        "an expired hold is gone"
    );
    clock.advance(minutes(-11));
    engine.cancel(hold.hold_id, owner).await.unwrap();
    assert_eq!(
        engine.current_hold(showtime, owner).await.unwrap(),
        None,
        "a cancelled hold is gone"
    );
    db.drop_database().await;
}
