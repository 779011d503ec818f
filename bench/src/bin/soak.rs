//! `soak`: a million hold attempts from hundreds of concurrent clients on one 300-seat showtime
//! on PostgreSQL, with holds of `BENCH_TTL_MS` (1 s) that nobody pays for, so every seat is held,
//! comes back and is held again thousands of times. Run it with `scripts/bench-soak.sh`.
//!
//! The check: every granted hold is recorded (its seats and its `expires_at`, on the database's
//! clock, which also set it). A seat may be held again only once the hold before it has expired,
//! so for each seat the granted holds' expiries must lie at least the TTL apart; two closer ones
//! are a seat held by two customers at once — two buyers of one seat. The same attempts then run
//! for a while against a *control*: the hold done as a read and then a write (two statements, the
//! usual bug), which the check must catch overlapping — otherwise it proves nothing.
//!
//! Also printed, at the start and every tenth of the run: the process's resident memory, the
//! pool's connections and the database's backends, which must not grow with the attempts.

use app::domain::{CustomerId, SeatSelection, ShowtimeId};
use app::engine::{Holder, Holds, Showtimes};
use app::error::InventoryError;
use bench::{env, overlaps, replace_db, Grant};
use chrono::{DateTime, Utc};
use rand::Rng;
use server::clock::Clock;
use server::engine::Engine;
use server::store::{PgStore, Store};
use sqlx::PgPool;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How a client asks for a pair of seats.
#[derive(Clone, Copy, PartialEq)]
enum Way {
    /// The product: the engine's one hold statement.
    Engine,
    /// The control: is it free? then take it (two statements, no lock between them).
    ReadThenWrite,
}

/// A random pair of adjacent seats (rows A–O, seats 1–20, as the hold benchmark picks): their
/// codes, and their numbers for the record (row × 32 + seat).
fn pair() -> (Vec<String>, [u16; 2]) {
    let mut rng = rand::rng();
    let row = rng.random_range(0..15u8);
    let n = rng.random_range(1..=19u8);
    let letter = char::from(b'A' + row);
    let id = |n: u8| u16::from(row) * 32 + u16::from(n);
    (
        vec![format!("{letter}{n}"), format!("{letter}{}", n + 1)],
        [id(n), id(n + 1)],
    )
}

/// The control's hold: reads whether both seats are free, then writes them held, unconditionally.
async fn read_then_write(
    pool: &PgPool,
    showtime: i64,
    seats: &[String],
    ttl: Duration,
) -> sqlx::Result<Option<DateTime<Utc>>> {
    let free: i64 = sqlx::query_scalar(
        "select count(*) from show_seat where showtime_id = $1 and seat_code = any($2)
           and (status = 'AVAILABLE' or (status = 'HELD' and hold_expires_at <= now()))",
    )
    .bind(showtime)
    .bind(seats)
    .fetch_one(pool)
    .await?;
    if free != seats.len() as i64 {
        return Ok(None);
    }
    let expiries: Vec<DateTime<Utc>> = sqlx::query_scalar(
        "update show_seat set status = 'HELD', hold_id = $3, customer_id = $3, booking_id = null,
                hold_expires_at = now() + $4 * interval '1 millisecond', version = version + 1
          where showtime_id = $1 and seat_code = any($2) returning hold_expires_at",
    )
    .bind(showtime)
    .bind(seats)
    .bind(uuid::Uuid::new_v4())
    .bind(ttl.as_millis() as f64)
    .fetch_all(pool)
    .await?;
    Ok(expiries.into_iter().max())
}

/// Resident memory of this process, in KiB.
fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

async fn backends(admin: &PgPool, name: &str) -> i64 {
    sqlx::query_scalar("select count(*) from pg_stat_activity where datname = $1")
        .bind(name)
        .fetch_one(admin)
        .await
        .unwrap_or(-1)
}

struct Run {
    attempts: u64,
    grants: Vec<Grant>,
    secs: f64,
}

/// `clients` tasks asking for random pairs, the one way, until `attempts` were made in all.
#[allow(clippy::too_many_arguments)]
async fn run(
    way: Way,
    engine: Arc<Engine>,
    pool: PgPool,
    admin: PgPool,
    name: String,
    showtime: i64,
    clients: usize,
    attempts: u64,
    ttl: Duration,
) -> anyhow::Result<Run> {
    let made = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..clients {
        let (engine, pool, made) = (engine.clone(), pool.clone(), made.clone());
        tasks.spawn(async move {
            let id = ShowtimeId::try_from(showtime).expect("id");
            let mut grants: Vec<Grant> = Vec::new();
            while made.fetch_add(1, Relaxed) < attempts {
                let (seats, ids) = pair();
                let granted = match way {
                    Way::Engine => {
                        let selection = SeatSelection::parse(&seats).expect("valid");
                        let holder = Holder::customer(CustomerId(uuid::Uuid::new_v4()), None);
                        match engine.hold_seats(id, &selection, holder).await {
                            Ok(hold) => Some(hold.expires_at),
                            Err(InventoryError::SeatsUnavailable(_)) => None,
                            Err(e) => anyhow::bail!("hold failed: {e:?}"),
                        }
                    }
                    Way::ReadThenWrite => read_then_write(&pool, showtime, &seats, ttl).await?,
                };
                if let Some(expires) = granted {
                    grants.push(Grant {
                        seats: ids,
                        expires_us: expires.timestamp_micros(),
                    });
                }
            }
            Ok(grants)
        });
    }
    // At the start and a tenth of the way each time: memory and connections while it runs (the
    // pool fills as the clients start; after that nothing may grow).
    let monitor = {
        let (made, pool, admin) = (made.clone(), pool.clone(), admin.clone());
        tokio::spawn(async move {
            let step = (attempts / 10).max(1);
            let mut next = 0;
            while next < attempts {
                if made.load(Relaxed) >= next {
                    println!(
                        "  {:>9} attempts, {:>6.1} s: rss {:>7} KiB, pool {:>3} connections, database {:>3} backends",
                        next,
                        started.elapsed().as_secs_f64(),
                        rss_kib(),
                        pool.size(),
                        backends(&admin, &name).await
                    );
                    next += step;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        })
    };
    let mut grants = Vec::new();
    while let Some(r) = tasks.join_next().await {
        grants.extend(r??);
    }
    monitor.abort();
    Ok(Run {
        attempts,
        grants,
        secs: started.elapsed().as_secs_f64(),
    })
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let admin_url = std::env::var("BENCH_DATABASE_URL")
        .map_err(|_| anyhow::anyhow!("set BENCH_DATABASE_URL"))?;
    let attempts: u64 = env("BENCH_ATTEMPTS", 1_000_000);
    let control_attempts: u64 = env("BENCH_CONTROL_ATTEMPTS", 100_000);
    let clients: usize = env("BENCH_CLIENTS", 512);
    let connections: u32 = env("BENCH_CONNECTIONS", 64);
    let ttl = Duration::from_millis(env("BENCH_TTL_MS", 1000));

    let name = format!("seats_soak_{}", uuid::Uuid::new_v4().simple());
    let admin = PgPool::connect(&admin_url).await?;
    sqlx::query(&format!("create database {name}"))
        .execute(&admin)
        .await?;
    let url = replace_db(&admin_url, &name);
    let pg = PgStore::connect(&url, connections).await?;
    let pool = pg.pool().clone();
    let store = Store::from(pg);
    store.migrate().await?;
    let hall = store
        .import_hall(&server::seed::demo_halls()[1])
        .await?
        .expect("new hall");
    let showtime = store
        .create_showtime(hall, "Soak", Utc::now() + chrono::Duration::days(1))
        .await?
        .get();
    // Random pairs: no seat rule in front (it would refuse pairs for the seats they leave alone).
    let rules = app::domain::seat_rules::Rules {
        no_lone_seats: false,
        exempt_edges: false,
    };
    let engine = Arc::new(Engine::new(store, Clock::Database, ttl).with_seat_rules(rules));
    engine.get_seat_map(ShowtimeId::try_from(showtime)?).await?;

    println!(
        "soak: 300 seats, pairs of adjacent seats, holds of {} ms never paid, {clients} clients over {connections} connections",
        ttl.as_millis()
    );
    let mut failed = false;
    for (way, label, n) in [
        (Way::Engine, "the product (one hold statement)", attempts),
        (
            Way::ReadThenWrite,
            "control (read, then write)",
            control_attempts,
        ),
    ] {
        if n == 0 {
            continue;
        }
        bench::free_every_seat(&pool, showtime).await?;
        println!("{label}: {n} attempts");
        let r = run(
            way,
            engine.clone(),
            pool.clone(),
            admin.clone(),
            name.clone(),
            showtime,
            clients,
            n,
            ttl,
        )
        .await?;
        let (double, seats) = overlaps(&r.grants, ttl);
        println!(
            "  {:>9} attempts, {:>6.1} s: rss {:>7} KiB, pool {:>3} connections, database {:>3} backends",
            r.attempts,
            r.secs,
            rss_kib(),
            pool.size(),
            backends(&admin, &name).await
        );
        println!(
            "  {:.0} attempts/s, {} holds granted ({:.1} per seat), seats held twice at once: {double} (on {seats} seats)",
            r.attempts as f64 / r.secs,
            r.grants.len(),
            r.grants.len() as f64 * 2.0 / 300.0,
        );
        match way {
            Way::Engine if double > 0 => {
                println!("  FAILED: the product held a seat for two customers");
                failed = true;
            }
            Way::ReadThenWrite if double == 0 => {
                println!("  FAILED: the control oversold nothing, so the check proves nothing");
                failed = true;
            }
            _ => println!("  as it must be"),
        }
    }
    pool.close().await;
    sqlx::query(&format!("drop database {name} with (force)"))
        .execute(&admin)
        .await?;
    if failed {
        anyhow::bail!("the soak failed");
    }
    Ok(())
}
