//! The benchmarks of the product, kept out of the production crate: `hold-bench` (holds through
//! the engine against pgbench) and `live-bench` (WebSocket viewers of a running server), run by
//! `scripts/bench-holds.sh` and `scripts/bench-live.sh` (and `pick-bench`, by
//! `scripts/bench-picks.sh`). This library holds what both share.

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

#[cfg(test)]
mod tests {
    #[test]
    fn percentiles_pick_the_nearest_rank() {
        let v = [1.0, 2.0, 3.0, 4.0, 5.0];
        assert_eq!(super::percentile(&v, 0.5), 3.0);
        assert_eq!(super::percentile(&v, 0.99), 5.0);
        assert!(super::percentile(&[], 0.5).is_nan());
    }
}
