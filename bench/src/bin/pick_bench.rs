//! `pick-bench`: best available on a 1,000-seat hall with 80 % of its seats sold.
//!
//! 1. The pick itself (`app::domain::seat_rules::best_available`, no I/O): random sold
//!    patterns, 2 to 4 seats asked for; p50 and p99 of one pick (target: p99 ≤ 1 ms).
//! 2. The whole hold through the engine on PostgreSQL, `BENCH_CLIENTS` (64) clients at once for
//!    `BENCH_SECONDS` (10) each: best available for 2 seats (the lone-seat rule on), against the
//!    plain hold of two free seats side by side (the rule off) in the same run. Each granted
//!    hold is cancelled at once, so the hall stays 80 % sold. Prints both and the ratios.
//!
//! Run it with `scripts/bench-picks.sh` (which starts a throwaway PostgreSQL).

use app::domain::seat_rules::{best_available, Rules};
use app::domain::{
    BestAvailable, CustomerId, Hold, PlacedSeat, PriceCategory, Seat, SeatCode, SeatSelection,
    SeatStatus, ShowtimeId,
};
use app::engine::{Holder, Holds, Showtimes};
use app::error::InventoryError;
use bench::{env, percentile, replace_db};
use rand::seq::SliceRandom;
use rand::Rng;
use server::clock::Clock;
use server::engine::Engine;
use server::store::{NewHall, PgStore, Store};
use sqlx::PgPool;
use std::sync::Arc;
use std::time::{Duration, Instant};

const ROWS: i32 = 25;
const PER_ROW: i32 = 40;
/// Aisles after these seat numbers.
const AISLES: [i32; 2] = [10, 30];

/// The hall: rows A–Y of 40 seats, aisles after seats 10 and 30, wheelchair places at the ends
/// of the last row.
fn hall_seats() -> Vec<PlacedSeat> {
    let mut seats = Vec::new();
    for y in 1..=ROWS {
        let row = char::from(b'A' + (y - 1) as u8).to_string();
        for number in 1..=PER_ROW {
            let x = number + AISLES.iter().filter(|&&a| number > a).count() as i32;
            seats.push(PlacedSeat {
                code: SeatCode::parse(&format!("{row}{number}")).expect("valid"),
                row: row.clone(),
                number,
                x,
                y,
                category: "STANDARD".into(),
                wheelchair: y == ROWS && (number <= 2 || number > PER_ROW - 2),
                companion: false,
            });
        }
    }
    seats
}

fn as_map_seats(placed: &[PlacedSeat], sold: &[bool]) -> Vec<Seat> {
    placed
        .iter()
        .zip(sold)
        .map(|(s, &sold)| {
            let status = match sold {
                true => SeatStatus::Booked,
                false => SeatStatus::Available,
            };
            s.on_map(app::domain::Won::new(10_000), status, 0)
        })
        .collect()
}

/// 80 % of the seats, at random.
fn sold_pattern(n: usize) -> Vec<bool> {
    let mut sold: Vec<bool> = (0..n).map(|i| i < n * 8 / 10).collect();
    sold.shuffle(&mut rand::rng());
    sold
}

fn pick_alone(placed: &[PlacedSeat], picks: usize) -> (f64, f64) {
    let mut latencies = Vec::with_capacity(picks);
    for _ in 0..picks {
        let seats = as_map_seats(placed, &sold_pattern(placed.len()));
        let count = rand::rng().random_range(2..=4);
        let t = Instant::now();
        let pick = best_available(&seats, count, None, Rules::default(), false, None);
        latencies.push(t.elapsed().as_secs_f64() * 1000.0);
        assert!(pick.is_some(), "200 seats are free");
    }
    latencies.sort_by(f64::total_cmp);
    (percentile(&latencies, 0.5), percentile(&latencies, 0.99))
}

struct Figures {
    attempts_per_sec: f64,
    held_per_sec: f64,
    p50_ms: f64,
    p99_ms: f64,
}

/// `clients` tasks for `secs`, each calling `attempt` in a loop; a granted hold is cancelled at
/// once (not timed).
async fn run<F, Fut>(engine: Arc<Engine>, clients: usize, secs: u64, attempt: F) -> Figures
where
    F: Fn(Arc<Engine>, CustomerId) -> Fut + Send + Sync + Clone + 'static,
    Fut: std::future::Future<Output = Result<Hold, InventoryError>> + Send,
{
    let deadline = Instant::now() + Duration::from_secs(secs);
    let started = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..clients {
        let (engine, attempt) = (engine.clone(), attempt.clone());
        tasks.spawn(async move {
            let (mut latencies, mut held) = (Vec::new(), 0u64);
            while Instant::now() < deadline {
                let customer = CustomerId(uuid::Uuid::new_v4());
                let t = Instant::now();
                let outcome = attempt(engine.clone(), customer).await;
                latencies.push(t.elapsed().as_secs_f64() * 1000.0);
                match outcome {
                    Ok(hold) => {
                        held += 1;
                        engine
                            .cancel_hold(hold.hold_id, customer)
                            .await
                            .expect("cancel");
                    }
                    Err(InventoryError::SeatsUnavailable(_) | InventoryError::NoBlock(_)) => {}
                    Err(e) => panic!("hold failed: {e:?}"),
                }
            }
            (latencies, held)
        });
    }
    let (mut all, mut held) = (Vec::new(), 0);
    while let Some(r) = tasks.join_next().await {
        let (l, h) = r.expect("task");
        all.extend(l);
        held += h;
    }
    let elapsed = started.elapsed().as_secs_f64();
    all.sort_by(f64::total_cmp);
    Figures {
        attempts_per_sec: all.len() as f64 / elapsed,
        held_per_sec: held as f64 / elapsed,
        p50_ms: percentile(&all, 0.5),
        p99_ms: percentile(&all, 0.99),
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let admin = std::env::var("BENCH_DATABASE_URL")
        .map_err(|_| anyhow::anyhow!("set BENCH_DATABASE_URL"))?;
    let secs: u64 = env("BENCH_SECONDS", 10);
    let clients: usize = env("BENCH_CLIENTS", 64);
    let picks: usize = env("BENCH_PICKS", 2000);
    let placed = hall_seats();

    println!(
        "pick benchmark: {} seats ({ROWS} rows of {PER_ROW}, two aisles), 80 % sold",
        placed.len()
    );
    let (p50, p99) = pick_alone(&placed, picks);
    println!("the pick alone, {picks} random halls, 2-4 seats: p50 {p50:.3} ms, p99 {p99:.3} ms (target p99 <= 1 ms)");

    // A fresh database with the hall, one showtime, and 80 % of its seats held for an hour.
    let name = format!("seats_bench_{}", uuid::Uuid::new_v4().simple());
    let admin_pool = PgPool::connect(&admin).await?;
    sqlx::query(&format!("create database {name}"))
        .execute(&admin_pool)
        .await?;
    let url = replace_db(&admin, &name);
    let store = Store::from(PgStore::connect(&url, clients as u32 + 4).await?);
    store.migrate().await?;
    let hall = store
        .import_hall(&NewHall {
            name: "Benchmark 1000".into(),
            categories: vec![PriceCategory {
                code: "STANDARD".into(),
                name: "Standard".into(),
                price: app::domain::Won::new(10_000),
                ticket_prices: Default::default(),
            }],
            seats: placed.clone(),
            best_seat: None,
        })
        .await?
        .expect("new hall");
    let showtime: ShowtimeId = store
        .create_showtime(
            hall,
            "Benchmark",
            chrono::Utc::now() + chrono::Duration::days(1),
        )
        .await?;
    let off = Rules {
        no_lone_seats: false,
        exempt_edges: false,
    };
    let sold = sold_pattern(placed.len());
    let setup =
        Engine::new(store.clone(), Clock::Database, Duration::from_secs(3600)).with_seat_rules(off);
    let taken: Vec<String> = placed
        .iter()
        .zip(&sold)
        .filter(|(_, &sold)| sold)
        .map(|(s, _)| s.code.to_string())
        .collect();
    for chunk in taken.chunks(8) {
        let seats = SeatSelection::parse(chunk)?;
        setup
            .hold_seats(
                showtime,
                &seats,
                Holder::customer(CustomerId(uuid::Uuid::new_v4()), None),
            )
            .await?;
    }
    // The free pairs side by side, for the plain holds.
    let map = as_map_seats(&placed, &sold);
    let pairs: Arc<Vec<SeatSelection>> = Arc::new(
        app::domain::seat_rules::runs(&map)
            .iter()
            .flat_map(|run| run.windows(2))
            .filter(|w| w.iter().all(|s| s.status == SeatStatus::Available))
            .map(|w| {
                SeatSelection::parse(&[w[0].code.as_str(), w[1].code.as_str()]).expect("valid")
            })
            .collect(),
    );

    let ttl = Duration::from_secs(600);
    let plain = Arc::new(Engine::new(store.clone(), Clock::Database, ttl).with_seat_rules(off));
    plain.get_seat_map(showtime).await?;
    let baseline = run(plain, clients, secs, move |engine, customer| {
        let pairs = pairs.clone();
        async move {
            let seats = pairs[rand::rng().random_range(0..pairs.len())].clone();
            engine
                .hold_seats(showtime, &seats, Holder::customer(customer, None))
                .await
        }
    })
    .await;
    let best = Arc::new(Engine::new(store.clone(), Clock::Database, ttl));
    best.get_seat_map(showtime).await?;
    let request = BestAvailable {
        count: 2,
        category: None,
    };
    let picked = run(best, clients, secs, move |engine, customer| {
        let request = request.clone();
        async move {
            engine
                .hold_best(showtime, &request, Holder::customer(customer, None))
                .await
        }
    })
    .await;

    println!("whole holds, {clients} clients, {secs} s each:");
    println!(
        "{:>26} | {:>10} {:>9} {:>9} {:>9}",
        "", "att/s", "held/s", "p50 ms", "p99 ms"
    );
    for (what, f) in [
        ("plain hold of a free pair", &baseline),
        ("best available, 2 seats", &picked),
    ] {
        println!(
            "{what:>26} | {:>10.0} {:>9.0} {:>9.2} {:>9.2}",
            f.attempts_per_sec, f.held_per_sec, f.p50_ms, f.p99_ms
        );
    }
    println!(
        "ratio_p99={:.2} ratio_held={:.2}",
        picked.p99_ms / baseline.p99_ms,
        picked.held_per_sec / baseline.held_per_sec
    );
    drop(store);
    sqlx::query(&format!("drop database {name} with (force)"))
        .execute(&admin_pool)
        .await?;
    Ok(())
}
