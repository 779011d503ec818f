//! The store contract suite: every test runs against real PostgreSQL and against SQLite
//! (`postgres::…` and `sqlite::…`). The twenty-customers concurrency test, a larger random one, the control
//! that shows they catch a read-then-write implementation, lock order, lazy expiry with a moved
//! clock, fenced confirmation, the sweeper, cancel.

use crate::support::*;
use app::domain::{BookingId, CustomerId, HoldId, SeatStatus};
use app::engine::prelude::*;
use app::error::InventoryError;
use rand::seq::IndexedRandom;
use rand::Rng;
use server::clock::Clock;
use server::store::{Access, HoldOutcome, HoldRequest};
use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;
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
    a_hold_waiting_behind_a_cancel_takes_all_its_seats_or_none,
    a_hold_at_the_expiry_instant_racing_the_sweeper_takes_all_its_seats_or_none,
    no_hold_once_the_showtime_has_started,
    holds_only_within_the_sales_window,
    a_showtime_is_cancelled_before_it_ends_and_then_holds_nothing,
    one_live_hold_per_customer_and_a_seat_cap_per_address,
    finished_holds_and_old_idempotency_keys_are_purged_after_their_retention,
    a_burst_of_holds_by_one_customer_at_once_makes_one_hold,
    a_booking_s_address_finds_it_lets_another_customer_see_it_and_is_emptied_after_its_retention,
);

/// The seats `hold` holds, from the stored rows (no lazy expiry).
fn held_by(
    stored: &std::collections::BTreeMap<String, (String, Option<Uuid>)>,
    hold: Uuid,
) -> BTreeSet<String> {
    stored
        .iter()
        .filter(|(_, (status, h))| status == "HELD" && *h == Some(hold))
        .map(|(code, _)| code.clone())
        .collect()
}

/// All or none: a hold holds every seat it asked for, or none of them.
fn all_or_none(held: &BTreeSet<String>, requested: &[&str]) -> Result<(), String> {
    if held.is_empty() || held.len() == requested.len() {
        Ok(())
    } else {
        Err(format!("a hold of {requested:?} holds only {held:?}"))
    }
}

/// X holds A1; X's cancel has freed A1 in a transaction not yet committed; Y's hold of A1 and
/// A2 starts and waits for A1's row lock; X commits. Y must get both seats — and never only A2
/// (the statement once judged A1 on its newest version but updated on an older snapshot).
async fn a_hold_waiting_behind_a_cancel_takes_all_its_seats_or_none(backend: Backend) {
    race_a_release(backend, chrono::Duration::zero()).await;
}

/// The same race with the sweeper at the instant X's hold expires: Y's hold runs at exactly the
/// expiry instant (X's seat not yet free by the clock), the sweeper a moment later.
async fn a_hold_at_the_expiry_instant_racing_the_sweeper_takes_all_its_seats_or_none(
    backend: Backend,
) {
    race_a_release(backend, minutes(10)).await;
}

/// X holds A1 at t0; at `t0 + later` a release of A1 (cancel or sweep) sits uncommitted while
/// Y holds {A1, A2}; then it commits.
async fn race_a_release(backend: Backend, later: chrono::Duration) {
    let db = TestDb::new(backend).await;
    let showtime = db.showtime().await;
    let clock = Clock::manual(t0());
    let engine = engine(&db, clock.clone(), TTL);
    engine
        .hold_seats(showtime, &sel(&["A1"]), Holder::customer(customer(), None))
        .await
        .unwrap();
    clock.advance(later);
    let release = db.release_in_open_transaction(showtime, "A1").await;
    let y = tokio::spawn({
        let engine = engine.clone();
        async move {
            engine
                .hold_seats(
                    showtime,
                    &sel(&["A1", "A2"]),
                    Holder::customer(customer(), None),
                )
                .await
        }
    });
    db.until_a_statement_waits_for_a_lock().await;
    release.commit().await;
    let y = y.await.unwrap();
    let hold = y
        .as_ref()
        .expect("A1 was freed before Y's hold decided: Y gets both");
    let held = held_by(&db.stored(showtime).await, hold.hold_id.as_uuid());
    all_or_none(&held, &["A1", "A2"]).unwrap();
    assert_eq!(held.len(), 2);
    db.drop_database().await;
}

/// The control: the hold statement as it was before the fix, in the same race, commits a hold
/// of A2 alone — which the `all_or_none` check above reports. (PostgreSQL only: SQLite's hold
/// never had the bug; its writers do not overlap.)
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn postgres_control_the_old_hold_statement_commits_a_partial_hold_in_the_same_race() {
    const OLD_HOLD_SQL: &str = r#"
with args as (
    select $1::bigint as showtime_id, $2::text[] as seats, $3::uuid as hold_id,
           $4::uuid as customer_id, coalesce($5::timestamptz, now()) as now,
           $6::bigint * interval '1 millisecond' as ttl
),
req as (
    select s.seat_code,
           (s.status = 'AVAILABLE' or (s.status = 'HELD' and s.hold_expires_at < a.now)) as free
      from show_seat s, args a
     where s.showtime_id = a.showtime_id and s.seat_code = any(a.seats)
     order by s.seat_code
       for update of s
),
verdict as (
    select (select count(*) from req where free) = (select cardinality(seats) from args) as all_free
),
held as (
    update show_seat s
       set status = 'HELD', hold_id = a.hold_id, customer_id = a.customer_id,
           hold_expires_at = a.now + a.ttl, booking_id = null, version = s.version + 1
      from args a
     where s.showtime_id = a.showtime_id and s.seat_code = any(a.seats)
       and (s.status = 'AVAILABLE' or (s.status = 'HELD' and s.hold_expires_at < a.now))
       and (select all_free from verdict)
    returning s.seat_code, s.version, s.hold_expires_at
),
recorded as (
    insert into seat_hold (showtime_id, hold_id, customer_id, seats, seat_count, expires_at)
    select a.showtime_id, a.hold_id, a.customer_id, a.seats, cardinality(a.seats), a.now + a.ttl
      from args a
     where (select all_free from verdict)
)
select r.seat_code, r.free, h.version, h.hold_expires_at
  from req r left join held h on h.seat_code = r.seat_code
"#;
    let db = TestDb::new(Backend::Postgres).await;
    let showtime = db.showtime().await;
    let engine = engine(&db, Clock::manual(t0()), TTL);
    engine
        .hold_seats(showtime, &sel(&["A1"]), Holder::customer(customer(), None))
        .await
        .unwrap();
    let release = db.release_in_open_transaction(showtime, "A1").await;
    let hold = HoldId::new(showtime, rand::random());
    let y = tokio::spawn({
        let pool = db.pg_pool().clone();
        async move {
            sqlx::query(OLD_HOLD_SQL)
                .bind(showtime.get())
                .bind(vec!["A1".to_string(), "A2".to_string()])
                .bind(hold.as_uuid())
                .bind(Uuid::new_v4())
                .bind(t0())
                .bind(600_000i64)
                .execute(&pool)
                .await
        }
    });
    db.until_a_statement_waits_for_a_lock().await;
    release.commit().await;
    y.await.unwrap().unwrap();
    let held = held_by(&db.stored(showtime).await, hold.as_uuid());
    assert_eq!(
        held,
        BTreeSet::from(["A2".to_string()]),
        "the old statement's partial hold"
    );
    assert!(
        all_or_none(&held, &["A1", "A2"]).is_err(),
        "the check must flag it"
    );
    db.drop_database().await;
}

/// Sales close when the showtime starts: from then on nothing can be held, whatever the seats.
async fn no_hold_once_the_showtime_has_started(backend: Backend) {
    let db = TestDb::new(backend).await;
    let starts = t0() + chrono::Duration::hours(2);
    let showtime = db.showtime_at(starts).await;
    let clock = Clock::manual(starts - chrono::Duration::seconds(1));
    let engine = engine(&db, clock.clone(), TTL);
    engine
        .hold_seats(showtime, &sel(&["A1"]), Holder::customer(customer(), None))
        .await
        .expect("a second before the start, sales are open");
    clock.advance(chrono::Duration::seconds(1));
    assert_eq!(
        engine
            .hold_seats(showtime, &sel(&["A2"]), Holder::customer(customer(), None))
            .await,
        Err(InventoryError::SalesClosed)
    );
    // The statement refuses it too (the engine's early check aside).
    let outcome = db
        .store
        .hold_seats(
            HoldRequest {
                showtime,
                seats: &[code("A3")],
                hold_id: HoldId::new(showtime, rand::random()),
                customer: customer(),
                ttl: TTL,
                client_addr: None,
                limits: Default::default(),
                house_ok: false,
            },
            Some(starts + chrono::Duration::hours(9)),
        )
        .await
        .unwrap();
    assert_eq!(
        outcome,
        HoldOutcome::Refused(server::store::HoldRefusal::SalesClosed)
    );
    let stored = db.stored(showtime).await;
    assert_eq!(stored["A2"].0, "AVAILABLE");
    assert_eq!(stored["A3"].0, "AVAILABLE");
    db.drop_database().await;
}

/// A showtime scheduled with a sales window: nothing is held before it opens (the answer says
/// when it does) or from its close on, though the showtime starts later; the seat map and the
/// list say so.
async fn holds_only_within_the_sales_window(backend: Backend) {
    use server::store::HoldRefusal;
    let db = TestDb::new(backend).await;
    let (opens, closes) = (
        t0() + chrono::Duration::hours(1),
        t0() + chrono::Duration::hours(5),
    );
    let starts = t0() + chrono::Duration::hours(10);
    let showtime = db.showtime_selling(starts, Some(opens), Some(closes)).await;
    let clock = Clock::manual(t0());
    let engine = engine(&db, clock.clone(), TTL);
    let not_open = Err(InventoryError::SalesNotOpen("2026-11-29T13:00:00Z".into()));
    assert_eq!(
        engine
            .hold_seats(showtime, &sel(&["A1"]), Holder::customer(customer(), None))
            .await,
        not_open
    );
    let statement = |seat: &str, at| {
        let store = db.store.clone();
        let seat = code(seat);
        async move {
            store
                .hold_seats(
                    HoldRequest {
                        showtime,
                        seats: &[seat],
                        hold_id: HoldId::new(showtime, rand::random()),
                        customer: customer(),
                        ttl: TTL,
                        client_addr: None,
                        limits: Default::default(),
                        house_ok: false,
                    },
                    Some(at),
                )
                .await
                .unwrap()
        }
    };
    // The statement refuses on its own too, before the opening and from the close on.
    assert_eq!(
        statement("A2", opens - chrono::Duration::milliseconds(1)).await,
        HoldOutcome::Refused(HoldRefusal::SalesNotOpen)
    );
    assert_eq!(
        statement("A2", closes).await,
        HoldOutcome::Refused(HoldRefusal::SalesClosed)
    );
    let map = engine.get_seat_map(showtime).await.unwrap();
    assert_eq!((map.sales_open, map.sales_opens_at), (false, Some(opens)));
    let listed = db.store.list_showtimes(Some(t0()), t0()).await.unwrap();
    let ours = listed.iter().find(|s| s.id == showtime).unwrap();
    assert_eq!((ours.sales_open, ours.sales_opens_at), (false, Some(opens)));

    clock.advance(chrono::Duration::hours(1));
    engine
        .hold_seats(showtime, &sel(&["A1"]), Holder::customer(customer(), None))
        .await
        .expect("open from the opening time");
    let map = engine.get_seat_map(showtime).await.unwrap();
    assert_eq!((map.sales_open, map.sales_opens_at), (true, None));
    let listed = db.store.list_showtimes(Some(opens), t0()).await.unwrap();
    let ours = listed.iter().find(|s| s.id == showtime).unwrap();
    assert_eq!((ours.sales_open, ours.sales_opens_at), (true, None));

    clock.advance(chrono::Duration::hours(4));
    assert_eq!(
        engine
            .hold_seats(showtime, &sel(&["A3"]), Holder::customer(customer(), None))
            .await,
        Err(InventoryError::SalesClosed),
        "closed five hours before the start"
    );
    let listed = db.store.list_showtimes(Some(closes), t0()).await.unwrap();
    let ours = listed.iter().find(|s| s.id == showtime).unwrap();
    assert!(!ours.sales_open && ours.sales_opens_at.is_none());
    let stored = db.stored(showtime).await;
    assert_eq!(stored["A2"].0, "AVAILABLE");
    assert_eq!(stored["A3"].0, "AVAILABLE");
    db.drop_database().await;
}

/// A showtime is cancelled until it ends, not after: a show that was given is not refunded by a
/// press of a button. Cancelled, it holds nothing, on the engine's and the statement's word.
async fn a_showtime_is_cancelled_before_it_ends_and_then_holds_nothing(backend: Backend) {
    use app::engine::prelude::*;
    let db = TestDb::new(backend).await;
    let starts = t0() + chrono::Duration::hours(1);
    let showtime = db.showtime_at(starts).await;
    let ended = engine(
        &db,
        Clock::manual(starts + chrono::Duration::minutes(120)),
        TTL,
    );
    let actor = app::engine::Actor {
        member: app::domain::StaffMember {
            id: 1,
            name: "operator".into(),
            role: app::domain::StaffRole::Operator,
        },
        address: None,
    };
    let ended = ended.cancel_showtime(showtime, &actor).await;
    assert!(
        matches!(ended, Err(ref e @ InventoryError::Invalid(_)) if e.to_string().contains("ended")),
        "{ended:?}"
    );
    assert!(!db.store.is_cancelled(showtime).await.unwrap());
    // Before it starts (a minute before its end would do too).
    let engine = self::engine(&db, Clock::manual(t0()), TTL);
    let done = engine.cancel_showtime(showtime, &actor).await.unwrap();
    assert!(!done.already);
    assert!(db.store.is_cancelled(showtime).await.unwrap());
    assert_eq!(
        engine
            .hold_seats(showtime, &sel(&["A1"]), Holder::customer(customer(), None))
            .await,
        Err(InventoryError::ShowtimeCancelled)
    );
    db.drop_database().await;
}

/// A customer has one live hold per showtime; an address's live holds hold at most so many
/// seats. Both count only live holds: a cancelled or expired hold frees its share.
async fn one_live_hold_per_customer_and_a_seat_cap_per_address(backend: Backend) {
    use server::store::{HoldLimits, HoldRefusal};
    let db = TestDb::new(backend).await;
    let showtime = db.showtime().await;
    let store = db.store.clone();
    let clock = Clock::manual(t0());
    let limits = HoldLimits {
        holds_per_customer: Some(1),
        seats_per_address: Some(10),
        cooldown: None,
    };
    let hold = |who: CustomerId, addr: &str, seats: &'static [&'static str]| {
        let store = store.clone();
        let addr: std::net::IpAddr = addr.parse().unwrap();
        let now = clock.now();
        async move {
            let seats: Vec<_> = seats.iter().map(|c| code(c)).collect();
            let hold_id = HoldId::new(showtime, rand::random());
            let outcome = store
                .hold_seats(
                    HoldRequest {
                        showtime,
                        seats: &seats,
                        hold_id,
                        customer: who,
                        ttl: TTL,
                        client_addr: Some(addr),
                        limits,
                        house_ok: false,
                    },
                    now,
                )
                .await
                .unwrap();
            (hold_id, outcome)
        }
    };
    let me = customer();
    let (first, outcome) = hold(me, "198.51.100.1", &["A1", "A2"]).await;
    assert!(matches!(outcome, HoldOutcome::Held { .. }));
    let (_, outcome) = hold(me, "198.51.100.1", &["B1"]).await;
    assert_eq!(outcome, HoldOutcome::Refused(HoldRefusal::HoldLimit));
    // Others at my address share its 10 seats: 2 are mine, 8 more fit, the 11th does not.
    let (_, outcome) = hold(
        customer(),
        "198.51.100.1",
        &["C1", "C2", "C3", "C4", "C5", "C6", "C7", "C8"],
    )
    .await;
    assert!(matches!(outcome, HoldOutcome::Held { .. }));
    let (_, outcome) = hold(customer(), "198.51.100.1", &["D1"]).await;
    assert_eq!(outcome, HoldOutcome::Refused(HoldRefusal::AddressLimit));
    // Another address is not affected.
    let (_, outcome) = hold(customer(), "203.0.113.5", &["D1"]).await;
    assert!(matches!(outcome, HoldOutcome::Held { .. }));
    // My cancelled hold frees my turn and its 2 seats of the address's share.
    assert!(matches!(
        store.cancel_hold(first, me).await.unwrap(),
        server::store::CancelOutcome::Released(_)
    ));
    let (_, outcome) = hold(me, "198.51.100.1", &["B1", "B2"]).await;
    assert!(matches!(outcome, HoldOutcome::Held { .. }), "{outcome:?}");
    // Expired holds count for nothing.
    clock.advance(minutes(11));
    let (_, outcome) = hold(
        me,
        "198.51.100.1",
        &["E1", "E2", "E3", "E4", "E5", "E6", "E7", "E8"],
    )
    .await;
    assert!(matches!(outcome, HoldOutcome::Held { .. }), "{outcome:?}");
    let stored = db.stored(showtime).await;
    assert_eq!(stored["B1"].0, "HELD");
    assert_eq!(stored["D1"].0, "HELD", "D1 went to the other address");
    db.drop_database().await;
}

/// Twenty holds of one customer (different seats) released at the same instant, with a cap of
/// one live hold: exactly one is granted. The caps are checked by the hold statement against
/// committed holds, so concurrent statements cannot see each other; the engine runs one
/// customer's holds one at a time for them.
async fn a_burst_of_holds_by_one_customer_at_once_makes_one_hold(backend: Backend) {
    let db = TestDb::new(backend).await;
    let showtime = db.showtime().await;
    let engine = Arc::new(
        server::engine::Engine::new(db.store.clone(), Clock::Database, TTL)
            .with_seat_rules(NO_SEAT_RULES)
            .with_hold_limits(server::store::HoldLimits {
                holds_per_customer: Some(1),
                seats_per_address: None,
                cooldown: None,
            }),
    );
    let me = customer();
    let start = Arc::new(Barrier::new(20));
    let mut tasks = tokio::task::JoinSet::new();
    for n in 1..=20 {
        let (engine, start) = (engine.clone(), start.clone());
        tasks.spawn(async move {
            start.wait().await;
            let seat = format!("B{n}");
            engine
                .hold_seats(showtime, &sel(&[seat.as_str()]), Holder::customer(me, None))
                .await
        });
    }
    let mut granted = 0;
    while let Some(r) = tasks.join_next().await {
        match r.unwrap() {
            Ok(_) => granted += 1,
            Err(InventoryError::HoldLimit) => {}
            Err(other) => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(granted, 1);
    db.drop_database().await;
}

/// The control: the same burst sent to the store directly, without the engine's turns, is
/// granted several holds on PostgreSQL — so the burst does meet in the database, and the test
/// above would see the cap broken if the turns were gone.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn postgres_control_a_burst_past_the_engines_turns_breaks_the_cap() {
    let db = TestDb::new(Backend::Postgres).await;
    // Rounds on fresh rows until one shows it (the first may still be opening connections; on a
    // busy machine the 20 tasks can run one after the other for many rounds): up to three
    // showtimes' 14 rows.
    let mut most = 0;
    'rounds: for showtime in [
        db.showtime().await,
        db.showtime().await,
        db.showtime().await,
    ] {
        for row in "BCDEFGHIJKLMNO".chars() {
            let me = customer();
            let start = Arc::new(Barrier::new(20));
            let mut tasks = tokio::task::JoinSet::new();
            for n in 1..=20 {
                let (store, start) = (db.store.clone(), start.clone());
                tasks.spawn(async move {
                    let seats = [code(&format!("{row}{n}"))];
                    start.wait().await;
                    store
                        .hold_seats(
                            HoldRequest {
                                showtime,
                                seats: &seats,
                                hold_id: HoldId::new(showtime, rand::random()),
                                customer: me,
                                ttl: TTL,
                                client_addr: None,
                                limits: server::store::HoldLimits {
                                    holds_per_customer: Some(1),
                                    seats_per_address: None,
                                    cooldown: None,
                                },
                                house_ok: false,
                            },
                            None,
                        )
                        .await
                        .unwrap()
                });
            }
            let mut granted = 0;
            while let Some(r) = tasks.join_next().await {
                if matches!(r.unwrap(), HoldOutcome::Held { .. }) {
                    granted += 1;
                }
            }
            most = most.max(granted);
            if most > 1 {
                break 'rounds;
            }
        }
    }
    assert!(most > 1, "no burst was granted more than {most} hold");
    db.drop_database().await;
}

/// Holds whose time ended more than the retention ago, and idempotency keys older than 24
/// hours, are deleted; newer ones stay.
async fn finished_holds_and_old_idempotency_keys_are_purged_after_their_retention(
    backend: Backend,
) {
    let db = TestDb::new(backend).await;
    let showtime = db.showtime().await;
    let clock = Clock::manual(t0());
    let engine = engine(&db, clock.clone(), TTL);
    let old = engine
        .hold_seats(showtime, &sel(&["A1"]), Holder::customer(customer(), None))
        .await
        .unwrap();
    let me = customer();
    db.store
        .idempotency_begin(me, "old-key", "fingerprint", clock.now())
        .await
        .unwrap();
    clock.advance(chrono::Duration::hours(25));
    let recent = engine
        .hold_seats(showtime, &sel(&["A2"]), Holder::customer(customer(), None))
        .await
        .unwrap();
    db.store
        .idempotency_begin(me, "new-key", "fingerprint", clock.now())
        .await
        .unwrap();
    let (holds, keys) = engine.purge(chrono::Duration::days(1)).await.unwrap();
    assert_eq!((holds, keys), (1, 1));
    let remaining = db.hold_ids(showtime).await;
    assert!(!remaining.contains(&old.hold_id.as_uuid()));
    assert!(remaining.contains(&recent.hold_id.as_uuid()));
    // The new key is still there: the same request is still answered as in flight.
    assert_eq!(
        db.store
            .idempotency_begin(me, "new-key", "fingerprint", clock.now())
            .await
            .unwrap(),
        server::store::IdempotencyBegin::InFlight
    );
    assert_eq!(
        engine.purge(chrono::Duration::days(1)).await.unwrap(),
        (0, 0)
    );
    db.drop_database().await;
}

async fn a_booking_s_address_finds_it_lets_another_customer_see_it_and_is_emptied_after_its_retention(
    backend: Backend,
) {
    use server::store::{BookingFilter, NewBooking};
    let db = TestDb::new(backend).await;
    let showtime = db.showtime().await;
    let clock = Clock::manual(t0());
    let engine = engine(&db, clock.clone(), TTL);
    let (alice, bob) = (customer(), customer());
    let mut bookings = Vec::new();
    // The first at the top of its reference's ids, the third just past them, with the same
    // address: a reference finds its own booking only.
    let ids = [
        "21d6b008-ffff-4fff-bfff-ffffffffffff",
        "5e1f0000-0000-4000-8000-000000000001",
        "21d6b009-0000-4000-8000-000000000000",
    ];
    for ((seat, email), id) in [
        ("A1", Some("kim@example.com")),
        ("A2", None),
        ("A3", Some("kim.min@example.com")),
    ]
    .into_iter()
    .zip(ids)
    {
        let hold = engine
            .hold_seats(showtime, &sel(&[seat]), Holder::customer(alice, None))
            .await
            .unwrap();
        let new = NewBooking {
            id: BookingId(Uuid::parse_str(id).unwrap()),
            hold: hold.hold_id,
            customer: alice,
            seats: vec![code(seat)],
            amount: app::domain::Won::new(1000),
            tickets: vec![],
            email: email.map(String::from),
            language: email.map(|_| "ko".into()),
        };
        db.store.booking_for_hold(&new).await.unwrap();
        // Asked again with another address while unpaid: the newer address is kept; asked
        // again with none, the address stays.
        if seat == "A1" {
            let again = NewBooking {
                id: BookingId(Uuid::new_v4()),
                email: Some("kim.min@example.com".into()),
                language: Some("en".into()),
                ..new.clone()
            };
            db.store.booking_for_hold(&again).await.unwrap();
            let none = NewBooking {
                email: None,
                language: None,
                ..again
            };
            db.store.booking_for_hold(&none).await.unwrap();
        }
        bookings.push(new.id);
        engine.cancel_hold(hold.hold_id, alice).await.unwrap();
    }
    let record = |id| {
        let store = db.store.clone();
        async move {
            store
                .bookings(BookingFilter::One(id))
                .await
                .unwrap()
                .pop()
                .unwrap()
        }
    };
    let first = record(bookings[0]).await;
    assert_eq!(first.email.as_deref(), Some("kim.min@example.com"));
    assert_eq!(first.language.as_deref(), Some("en"));
    assert_eq!(record(bookings[1]).await.email, None);
    let find = |email: &'static str, reference: &'static str| {
        let store = db.store.clone();
        async move {
            store
                .booking_with_reference(email, reference)
                .await
                .unwrap()
        }
    };
    assert_eq!(
        find("kim.min@example.com", "21D6B008").await,
        Some(bookings[0])
    );
    assert_eq!(
        find("kim.min@example.com", "21D6B009").await,
        Some(bookings[2])
    );
    assert_eq!(find("kim.min@example.com", "21D6B00A").await, None);
    assert_eq!(
        find("kim.min@example.com", "5E1F0000").await,
        None,
        "no address"
    );
    assert_eq!(find("kim@example.com", "21D6B008").await, None, "replaced");
    assert_eq!(find("kim.min@example.com", "21D6B0").await, None);

    // Bob found it again: he sees it, and his list has it; Alice keeps it.
    let access = |booking, customer| {
        let store = db.store.clone();
        async move { store.has_booking_access(booking, customer).await.unwrap() }
    };
    assert_eq!(access(bookings[0], bob).await, None);
    for _ in 0..2 {
        db.store
            .grant_booking_access(bookings[0], bob, Access::Found, clock.now())
            .await
            .unwrap();
    }
    assert_eq!(access(bookings[0], bob).await, Some(Access::Found));
    assert_eq!(access(bookings[1], bob).await, None);
    // He opened its e-mailed link too: he may cancel it; finding it again takes nothing away.
    for access in [Access::Mailbox, Access::Found] {
        db.store
            .grant_booking_access(bookings[0], bob, access, clock.now())
            .await
            .unwrap();
    }
    assert_eq!(access(bookings[0], bob).await, Some(Access::Mailbox));
    let ids = |list: Vec<server::store::BookingRecord>| {
        list.into_iter().map(|b| b.id).collect::<Vec<_>>()
    };
    assert_eq!(
        ids(db
            .store
            .bookings(BookingFilter::OfCustomer(bob))
            .await
            .unwrap()),
        vec![bookings[0]],
        "once, however often it was found"
    );
    assert_eq!(
        ids(db
            .store
            .bookings(BookingFilter::OfCustomer(alice))
            .await
            .unwrap())
        .len(),
        3
    );

    // Emptied once its showtime is older than the retention, not before.
    let retention = chrono::Duration::days(90);
    assert_eq!(
        db.store.purge_emails(clock.now(), retention).await.unwrap(),
        0
    );
    assert!(record(bookings[0]).await.email.is_some());
    let later = Some(t0() + chrono::Duration::days(365 * 2));
    assert_eq!(db.store.purge_emails(later, retention).await.unwrap(), 2);
    assert_eq!(record(bookings[0]).await.email, None);
    assert_eq!(find("kim.min@example.com", "21D6B008").await, None);
    assert_eq!(db.store.purge_emails(later, retention).await.unwrap(), 0);
    db.drop_database().await;
}

/// 20 customers, the same two seats, at the same moment.
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
            engine
                .hold_seats(
                    showtime,
                    &sel(&["F5", "F6"]),
                    Holder::customer(customer(), None),
                )
                .await
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
    let read_together = Arc::new(Barrier::new(20));
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..20 {
        let (db, start, read_together) = (db.clone(), start.clone(), read_together.clone());
        tasks.spawn(async move {
            start.wait().await;
            let hold = Uuid::new_v4();
            db.read_then_write_hold(
                showtime,
                &["F5", "F6"],
                hold,
                Uuid::new_v4(),
                &read_together,
            )
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
                    .hold_seats(showtime, &selection, Holder::customer(customer(), None))
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
                    client_addr: None,
                    limits: Default::default(),
                    house_ok: false,
                };
                let hold = req.hold_id;
                (hold, req.customer, store.hold_seats(req, None).await)
            });
        }
        let mut winners = Vec::new();
        while let Some(r) = tasks.join_next().await {
            let (hold, who, outcome) = r.unwrap();
            match outcome.unwrap_or_else(|e| panic!("iteration {i}: database error {e}")) {
                HoldOutcome::Held { .. } => winners.push((hold, who)),
                HoldOutcome::Rejected { .. } => {}
                HoldOutcome::Refused(r) => panic!("iteration {i}: refused {r:?}"),
            }
        }
        assert_eq!(winners.len(), 1, "iteration {i}");
        let (hold, who) = winners[0];
        store.cancel_hold(hold, who).await.unwrap();
    }
    db.drop_database().await;
}

async fn a_hold_takes_all_seats_or_none(backend: Backend) {
    let db = TestDb::new(backend).await;
    let showtime = db.showtime().await;
    let engine = engine(&db, Clock::manual(t0()), TTL);
    engine
        .hold_seats(showtime, &sel(&["F6"]), Holder::customer(customer(), None))
        .await
        .unwrap();
    let err = engine
        .hold_seats(
            showtime,
            &sel(&["F5", "F6", "F7"]),
            Holder::customer(customer(), None),
        )
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
        .hold_seats(showtime, &sel(&["F5"]), Holder::customer(customer(), None))
        .await
        .unwrap();
    assert_eq!(first.expires_at, t0() + minutes(10));
    assert!(engine
        .hold_seats(showtime, &sel(&["F5"]), Holder::customer(customer(), None))
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
        status(engine.get_seat_map(showtime).await.unwrap()),
        SeatStatus::Held
    );

    clock.advance(minutes(10)); // exactly at expiry the hold still stands
    assert_eq!(
        status(engine.get_seat_map(showtime).await.unwrap()),
        SeatStatus::Held
    );
    clock.advance(chrono::Duration::seconds(1));
    assert_eq!(
        status(engine.get_seat_map(showtime).await.unwrap()),
        SeatStatus::Available
    );
    assert_eq!(
        db.stored(showtime).await["F5"].0,
        "HELD",
        "nothing swept the stored row"
    );
    let second = engine
        .hold_seats(showtime, &sel(&["F5"]), Holder::customer(customer(), None))
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
        .hold_seats(
            showtime,
            &sel(&["F5", "F6"]),
            Holder::customer(customer(), None),
        )
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
        .hold_seats(showtime, &sel(&["F5"]), Holder::customer(customer(), None))
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
        .hold_seats(
            showtime,
            &sel(&["F5", "F6"]),
            Holder::customer(customer(), None),
        )
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
        .hold_seats(
            showtime,
            &sel(&["F5", "F6"]),
            Holder::customer(customer(), None),
        )
        .await
        .unwrap();
    clock.advance(minutes(11));
    let b = engine
        .hold_seats(showtime, &sel(&["F6"]), Holder::customer(customer(), None))
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
            .hold_seats(showtime, &sel(&seats), Holder::customer(customer(), None))
            .await
            .unwrap();
    }
    clock.advance(minutes(5));
    let live = engine
        .hold_seats(showtime, &sel(&["E1"]), Holder::customer(customer(), None))
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
        .hold_seats(showtime, &sel(&["F5", "F6"]), Holder::customer(owner, None))
        .await
        .unwrap();
    assert_eq!(
        engine.cancel_hold(hold.hold_id, stranger).await,
        Err(InventoryError::NotYourHold)
    );
    assert_eq!(
        db.stored(showtime).await["F5"].0,
        "HELD",
        "a refused cancel changes nothing"
    );
    let unknown = HoldId::new(showtime, rand::random());
    assert_eq!(
        engine.cancel_hold(unknown, owner).await,
        Err(InventoryError::HoldNotFound)
    );
    engine.cancel_hold(hold.hold_id, owner).await.unwrap();
    let stored = db.stored(showtime).await;
    assert_eq!(stored["F5"], ("AVAILABLE".into(), None));
    assert_eq!(stored["F6"], ("AVAILABLE".into(), None));
    assert_eq!(
        engine.cancel_hold(hold.hold_id, owner).await,
        Err(InventoryError::HoldNotFound)
    );
    engine
        .hold_seats(
            showtime,
            &sel(&["F5", "F6"]),
            Holder::customer(stranger, None),
        )
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
            .hold_seats(
                showtime,
                &sel(&["F5", "Z99"]),
                Holder::customer(customer(), None)
            )
            .await,
        Err(InventoryError::UnknownSeats(vec!["Z99".into()]))
    );
    let missing = showtime_id(showtime.get() + 1000);
    assert_eq!(
        engine
            .hold_seats(missing, &sel(&["F5"]), Holder::customer(customer(), None))
            .await,
        Err(InventoryError::ShowtimeNotFound(missing))
    );
    assert_eq!(
        engine.get_seat_map(missing).await.unwrap_err(),
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
    let v0 = version(engine.get_seat_map(showtime).await.unwrap());
    let who = customer();
    let hold = engine
        .hold_seats(showtime, &sel(&["F5"]), Holder::customer(who, None))
        .await
        .unwrap();
    let v1 = version(engine.get_seat_map(showtime).await.unwrap());
    engine.cancel_hold(hold.hold_id, who).await.unwrap();
    let v2 = version(engine.get_seat_map(showtime).await.unwrap());
    let hold = engine
        .hold_seats(showtime, &sel(&["F5"]), Holder::customer(who, None))
        .await
        .unwrap();
    engine
        .confirm(hold.hold_id, BookingId(Uuid::new_v4()))
        .await
        .unwrap();
    let v4 = version(engine.get_seat_map(showtime).await.unwrap());
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
        .hold_seats(showtime, &sel(&["F6", "F5"]), Holder::customer(owner, None))
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
    engine.cancel_hold(hold.hold_id, owner).await.unwrap();
    assert_eq!(
        engine.current_hold(showtime, owner).await.unwrap(),
        None,
        "a cancelled hold is gone"
    );
    db.drop_database().await;
}

/// A database that applied a migration before its comments were reworded still starts (the
/// recorded checksum moves to the new text), and one whose migration differs in any other way
/// still refuses to (control).
#[tokio::test]
async fn postgres_migrations_whose_comments_were_reworded_still_start_and_others_do_not() {
    let db = TestDb::new(Backend::Postgres).await;
    let pool = db.pg_pool();
    let checksums = || async {
        sqlx::query_as::<_, (i64, Vec<u8>)>(
            "select version, checksum from _sqlx_migrations order by version",
        )
        .fetch_all(pool)
        .await
        .unwrap()
    };
    let current = checksums().await;
    for (version, before) in server::store::MIGRATION_COMMENT_EDITS {
        let moved = sqlx::query(
            "update _sqlx_migrations set checksum = decode($2, 'hex') where version = $1",
        )
        .bind(version)
        .bind(before)
        .execute(pool)
        .await
        .unwrap();
        assert_eq!(moved.rows_affected(), 1, "migration {version} is applied");
    }
    assert_ne!(checksums().await, current);
    db.store
        .migrate()
        .await
        .expect("starts on the reworded migrations");
    assert_eq!(checksums().await, current);

    let (version, _) = server::store::MIGRATION_COMMENT_EDITS[0];
    sqlx::query("update _sqlx_migrations set checksum = '\\x00' where version = $1")
        .bind(version)
        .execute(pool)
        .await
        .unwrap();
    let refused = db.store.migrate().await;
    assert!(refused.is_err(), "a changed migration stops the start");
    db.drop_database().await;
}

/// Behind a pooler in transaction mode the pool keeps no session, so the migrations (and their
/// advisory lock) go to `DATABASE_DIRECT_URL`: here the pool names one database and the direct
/// URL another, and only the direct one is migrated.
#[tokio::test]
async fn postgres_migrations_run_over_the_direct_url_not_the_pool() {
    let admin = sqlx::PgPool::connect(&pg_admin_url()).await.unwrap();
    let stamp = Uuid::new_v4().simple();
    let (pooled, direct) = (
        format!("seats_test_{}_pool_{stamp}", chrono::Utc::now().timestamp()),
        format!(
            "seats_test_{}_direct_{stamp}",
            chrono::Utc::now().timestamp()
        ),
    );
    for name in [&pooled, &direct] {
        sqlx::query(&format!("create database {name}"))
            .execute(&admin)
            .await
            .unwrap();
    }
    let store = server::store::PgStore::connect(&with_database(&pg_admin_url(), &pooled), 2)
        .await
        .unwrap()
        .with_direct_url(Some(with_database(&pg_admin_url(), &direct)));
    server::store::Store::from(store.clone())
        .migrate()
        .await
        .unwrap();
    let migrated = |name: String| async move {
        let pool = sqlx::PgPool::connect(&with_database(&pg_admin_url(), &name))
            .await
            .unwrap();
        let table: Option<String> =
            sqlx::query_scalar("select to_regclass('_sqlx_migrations')::text")
                .fetch_one(&pool)
                .await
                .unwrap();
        pool.close().await;
        table.is_some()
    };
    assert!(
        migrated(direct.clone()).await,
        "the direct database is migrated"
    );
    assert!(
        !migrated(pooled.clone()).await,
        "the pool's database is left alone"
    );
    store.pool().close().await;
    for name in [&pooled, &direct] {
        sqlx::query(&format!("drop database {name} with (force)"))
            .execute(&admin)
            .await
            .unwrap();
    }
}
