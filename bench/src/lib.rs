//! The benchmarks of the product, kept out of the production crate: `hold-bench` (holds through
//! the engine against pgbench) and `live-bench` (WebSocket viewers of a running server), run by
//! `scripts/bench-holds.sh` and `scripts/bench-live.sh` (and `pick-bench`, by
//! `scripts/bench-picks.sh`; `soak`, by `scripts/bench-soak.sh`). This library holds what they
//! share.

pub mod process;

/// An environment variable parsed as `T`, or `default` when unset or unparsable.
pub fn env<T: std::str::FromStr>(key: &str, default: T) -> T {
    std::env::var(key)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// `url` (a PostgreSQL URL) naming database `name` instead, its query kept.
pub fn replace_db(url: &str, name: &str) -> String {
    let (base, query) = url
        .split_once('?')
        .map_or((url, None), |(b, q)| (b, Some(q)));
    let base = base.rsplit_once('/').map_or(base, |(b, _)| b);
    query.map_or(format!("{base}/{name}"), |q| format!("{base}/{name}?{q}"))
}

/// The `p` quantile (0–1) of sorted samples; NaN when there are none.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

/// Every seat of `showtime` free again and no hold left (between the benchmarks' runs).
pub async fn free_every_seat(pool: &sqlx::PgPool, showtime: i64) -> sqlx::Result<()> {
    sqlx::query(
        "update show_seat set status = 'AVAILABLE', hold_id = null, customer_id = null,
                hold_expires_at = null, booking_id = null where showtime_id = $1",
    )
    .bind(showtime)
    .execute(pool)
    .await?;
    sqlx::query("truncate seat_hold").execute(pool).await?;
    Ok(())
}

/// One granted hold (the soak's record, 16 bytes, so that recording a million attempts does not
/// show as the process's memory growing): its two seats, as numbers, and when it expires, in
/// microseconds on the database's clock.
#[derive(Clone, Copy, Debug)]
pub struct Grant {
    pub seats: [u16; 2],
    pub expires_us: i64,
}

/// Seats held by two holds at once: for each seat, granted holds whose expiries are closer than
/// the TTL (the later one was granted while the earlier still held the seat). Returns how many
/// such pairs, and on how many seats.
pub fn overlaps(grants: &[Grant], ttl: std::time::Duration) -> (u64, usize) {
    let mut by_seat: std::collections::HashMap<u16, Vec<i64>> = std::collections::HashMap::new();
    for g in grants {
        for s in g.seats {
            by_seat.entry(s).or_default().push(g.expires_us);
        }
    }
    let ttl = ttl.as_micros() as i64;
    let (mut count, mut seats) = (0, 0);
    for expiries in by_seat.values_mut() {
        expiries.sort_unstable();
        let here = expiries.windows(2).filter(|w| w[1] - w[0] < ttl).count() as u64;
        count += here;
        seats += usize::from(here > 0);
    }
    (count, seats)
}

#[cfg(test)]
mod tests {
    #[test]
    fn percentiles_pick_the_nearest_rank() {
        let v = [1.0, 2.0, 3.0, 4.0, 5.0];
        assert_eq!(super::percentile(&v, 0.5), 3.0);
        assert_eq!(super::percentile(&v, 0.99), 5.0);
        assert!(super::percentile(&[], 0.5).is_nan());
    }

    #[test]
    fn holds_closer_than_the_ttl_on_one_seat_are_counted() {
        use super::Grant;
        let g = |seats: [u16; 2], ms: i64| Grant {
            seats,
            expires_us: ms * 1000,
        };
        let ttl = std::time::Duration::from_millis(1000);
        assert_eq!(
            super::overlaps(&[g([1, 2], 1000), g([2, 3], 2000)], ttl),
            (0, 0)
        );
        assert_eq!(
            super::overlaps(&[g([1, 2], 1000), g([2, 3], 1999)], ttl),
            (1, 1)
        );
        // Another seat's hold at the same moment is no overlap.
        assert_eq!(
            super::overlaps(&[g([1, 2], 1000), g([33, 34], 1000)], ttl),
            (0, 0)
        );
    }
}
