//! `hold-bench`: holds on one 300-seat showtime against PostgreSQL through the engine, at
//! concurrency 1, 8, 64 and 256, then pgbench running the identical hold statement at the same
//! concurrency, in the same run. Prints a table and `ratio=<engine holds/s ÷ pgbench tps at 64>`.
//! Run it with `scripts/bench-holds.sh` (which starts a throwaway PostgreSQL).
//!
//! Both sides pick two adjacent seats in a random row (rows A–O, seats 1–20) and hold them for
//! `BENCH_TTL_MS` (default 1000), so seats keep coming back. Throughput counts every attempt
//! (a hold or a 409 alike: pgbench cannot tell them apart); the engine's successful holds are
//! reported separately.

use app::domain::{CustomerId, SeatSelection};
use app::engine::{Holder, Holds, Showtimes};
use app::error::InventoryError;
use bench::{env, percentile, replace_db};
use rand::Rng;
use server::clock::Clock;
use server::engine::Engine;
use server::store::{PgStore, Store};
use sqlx::PgPool;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

struct Figures {
    per_sec: f64,
    ok_per_sec: Option<f64>,
    p50_ms: f64,
    p99_ms: f64,
}

async fn reset(pool: &PgPool, showtime: i64) -> anyhow::Result<()> {
    bench::free_every_seat(pool, showtime).await?;
    sqlx::query("vacuum analyze show_seat")
        .execute(pool)
        .await?;
    sqlx::query("vacuum analyze seat_hold")
        .execute(pool)
        .await?;
    Ok(())
}

async fn engine_run(
    url: &str,
    showtime: i64,
    clients: usize,
    secs: u64,
    ttl: Duration,
) -> anyhow::Result<Figures> {
    let store = Store::from(PgStore::connect(url, clients as u32).await?);
    // The hold statement against pgbench's run of it: no seat rule in front (random pairs
    // would be refused for the seats they leave alone, which pgbench knows nothing of).
    let rules = app::domain::seat_rules::Rules {
        no_lone_seats: false,
        exempt_edges: false,
    };
    let engine = Arc::new(Engine::new(store, Clock::Database, ttl).with_seat_rules(rules));
    let showtime = app::domain::ShowtimeId::try_from(showtime)?;
    engine.get_seat_map(showtime).await?; // warm the layout cache and the pool's first connection
    let deadline = Instant::now() + Duration::from_secs(secs);
    let started = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..clients {
        let engine = engine.clone();
        tasks.spawn(async move {
            let (mut latencies, mut ok) = (Vec::new(), 0u64);
            while Instant::now() < deadline {
                let (row, n) = {
                    let mut rng = rand::rng();
                    (
                        char::from(b'A' + rng.random_range(0..15u8)),
                        rng.random_range(1..=19),
                    )
                };
                let seats = SeatSelection::parse(&[format!("{row}{n}"), format!("{row}{}", n + 1)])
                    .expect("valid");
                let t = Instant::now();
                match engine
                    .hold_seats(
                        showtime,
                        &seats,
                        Holder::customer(CustomerId(uuid::Uuid::new_v4()), None),
                    )
                    .await
                {
                    Ok(_) => ok += 1,
                    Err(InventoryError::SeatsUnavailable(_)) => {}
                    Err(e) => panic!("hold failed: {e:?}"),
                }
                latencies.push(t.elapsed().as_secs_f64() * 1000.0);
            }
            (latencies, ok)
        });
    }
    let (mut all, mut ok) = (Vec::new(), 0);
    while let Some(r) = tasks.join_next().await {
        let (l, o) = r?;
        all.extend(l);
        ok += o;
    }
    let elapsed = started.elapsed().as_secs_f64();
    all.sort_by(f64::total_cmp);
    Ok(Figures {
        per_sec: all.len() as f64 / elapsed,
        ok_per_sec: Some(ok as f64 / elapsed),
        p50_ms: percentile(&all, 0.5),
        p99_ms: percentile(&all, 0.99),
    })
}

/// The engine's hold statement with each parameter replaced by the pgbench expression that
/// picks the same kind of request.
fn pgbench_script(showtime: i64, ttl: Duration) -> String {
    let sql = server::store::postgres_hold_sql()
        .replace("$1::bigint", &format!("{showtime}::bigint"))
        .replace(
            "$2::text[]",
            "array[chr(65 + :r) || (:n)::text, chr(65 + :r) || (:n + 1)::text]::text[]",
        )
        .replace("$3::uuid", "gen_random_uuid()")
        .replace("$4::uuid", "gen_random_uuid()")
        .replace("$5::timestamptz", "null::timestamptz")
        .replace("$6::bigint", &format!("{}::bigint", ttl.as_millis()))
        // No client address and no caps: the engine side of the benchmark has none either.
        .replace("$7::text", "null::text")
        .replace("$8::int", "null::int")
        .replace("$9::int", "null::int")
        .replace("$10::bool", "false::bool")
        .replace("$11::bigint", "null::bigint");
    assert!(!sql.contains('$'), "every parameter replaced");
    assert!(
        !sql.contains("--"),
        "no SQL comment: the statement becomes one line"
    );
    // pgbench reads one SQL command per line unless it ends with a semicolon.
    let one_line = sql.split_whitespace().collect::<Vec<_>>().join(" ");
    format!("\\set r random(0, 14)\n\\set n random(1, 19)\n{one_line};\n")
}

fn pgbench_run(
    pgbench: &str,
    url: &str,
    script: &str,
    clients: usize,
    secs: u64,
) -> anyhow::Result<Figures> {
    let dir = std::env::temp_dir().join(format!("seats-pgbench-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir)?;
    let file = dir.join("hold.sql");
    std::fs::write(&file, script)?;
    let threads = clients.min(2);
    let out = Command::new(pgbench)
        .args([
            "-n",
            "-M",
            "prepared",
            "-c",
            &clients.to_string(),
            "-j",
            &threads.to_string(),
        ])
        .args(["-T", &secs.to_string(), "-l", "--log-prefix"])
        .arg(dir.join("log"))
        .arg("-f")
        .arg(&file)
        .arg(url)
        .output()?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        anyhow::bail!(
            "pgbench failed: {}\n{}",
            stdout,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let tps: f64 = stdout
        .lines()
        .find(|l| l.starts_with("tps = "))
        .and_then(|l| l.split_whitespace().nth(2))
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| anyhow::anyhow!("no tps in pgbench output:\n{stdout}"))?;
    // Per-transaction log: client_id transaction_no time_us script_no epoch epoch_us
    let mut latencies = Vec::new();
    for entry in std::fs::read_dir(&dir)? {
        let path = entry?.path();
        if path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("log"))
        {
            for line in std::fs::read_to_string(&path)?.lines() {
                if let Some(us) = line
                    .split_whitespace()
                    .nth(2)
                    .and_then(|v| v.parse::<f64>().ok())
                {
                    latencies.push(us / 1000.0);
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    latencies.sort_by(f64::total_cmp);
    Ok(Figures {
        per_sec: tps,
        ok_per_sec: None,
        p50_ms: percentile(&latencies, 0.5),
        p99_ms: percentile(&latencies, 0.99),
    })
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let admin = std::env::var("BENCH_DATABASE_URL")
        .map_err(|_| anyhow::anyhow!("set BENCH_DATABASE_URL"))?;
    let pgbench = std::env::var("PGBENCH").unwrap_or_else(|_| "pgbench".into());
    let secs: u64 = env("BENCH_SECONDS", 10);
    let ttl = Duration::from_millis(env("BENCH_TTL_MS", 1000));
    let levels: Vec<usize> = std::env::var("BENCH_CONCURRENCY")
        .unwrap_or_else(|_| "1,8,64,256".into())
        .split(',')
        .map(|v| v.trim().parse())
        .collect::<Result<_, _>>()?;

    // A fresh database with one 300-seat showtime.
    let name = format!("seats_bench_{}", uuid::Uuid::new_v4().simple());
    let admin_pool = PgPool::connect(&admin).await?;
    sqlx::query(&format!("create database {name}"))
        .execute(&admin_pool)
        .await?;
    let url = replace_db(&admin, &name);
    let pg = PgStore::connect(&url, 4).await?;
    let pool = pg.pool().clone();
    let store = Store::from(pg);
    store.migrate().await?;
    let hall = store
        .import_hall(&server::seed::demo_halls()[1])
        .await?
        .expect("new hall");
    let showtime = store
        .create_showtime(
            hall,
            "Benchmark",
            chrono::Utc::now() + chrono::Duration::days(1),
        )
        .await?
        .get();
    let script = pgbench_script(showtime, ttl);

    println!(
        "hold benchmark: 300 seats, pairs of adjacent seats, hold TTL {} ms, {secs} s per run",
        ttl.as_millis()
    );
    println!(
        "{:>5} | {:>13} {:>13} {:>9} {:>9} | {:>13} {:>9} {:>9}",
        "conc",
        "engine att/s",
        "engine held/s",
        "p50 ms",
        "p99 ms",
        "pgbench tps",
        "p50 ms",
        "p99 ms"
    );
    let mut ratio_at_64 = None;
    for &c in &levels {
        reset(&pool, showtime).await?;
        let e = engine_run(&url, showtime, c, secs, ttl).await?;
        reset(&pool, showtime).await?;
        let p = pgbench_run(&pgbench, &url, &script, c, secs)?;
        println!(
            "{:>5} | {:>13.0} {:>13.0} {:>9.2} {:>9.2} | {:>13.0} {:>9.2} {:>9.2}",
            c,
            e.per_sec,
            e.ok_per_sec.unwrap_or(f64::NAN),
            e.p50_ms,
            e.p99_ms,
            p.per_sec,
            p.p50_ms,
            p.p99_ms
        );
        if c == 64 {
            ratio_at_64 = Some(e.per_sec / p.per_sec);
        }
    }
    pool.close().await;
    sqlx::query(&format!("drop database {name} with (force)"))
        .execute(&admin_pool)
        .await?;
    match ratio_at_64 {
        Some(r) => println!("ratio={r:.2}"),
        None => println!("ratio=n/a (concurrency 64 was not run)"),
    }
    Ok(())
}
