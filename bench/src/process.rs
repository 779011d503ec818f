//! A process's figures as Linux's `/proc` gives them: memory and CPU time.

use std::time::Duration;

/// A number field of `/proc/{pid}/{file}` (`VmRSS:` of `status` is in KiB).
pub fn proc_field(pid: u32, file: &str, key: &str) -> Option<f64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/{file}")).ok()?;
    let line = text.lines().find(|l| l.starts_with(key))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Peak resident set size of a process, in MB (`VmHWM`).
pub fn peak_rss_mb(pid: u32) -> Option<f64> {
    proc_field(pid, "status", "VmHWM:").map(|kib| kib / 1024.0)
}

/// CPU seconds (user + system) the process has used.
pub fn cpu_seconds(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// A process's RSS in MB once freed memory has gone back to the system: the least of one
/// reading a second for `seconds` (the allocator returns what a burst freed a few seconds later).
pub async fn settled_rss_mb(pid: Option<u32>, seconds: u64) -> f64 {
    let mut least = f64::MAX;
    for i in 0..seconds.max(1) {
        if i > 0 {
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
        let rss = pid
            .and_then(|p| proc_field(p, "status", "VmRSS:"))
            .unwrap_or(0.0)
            / 1024.0;
        least = least.min(rss);
    }
    least
}
