//! Summary statistics and result rows, computed the way the netconfd baseline's bench.py
//! computes them (median for p50, nearest rank for p99), so figures from both tools compare.

use std::fmt::Write as _;
use std::time::Duration;

use crate::cpu::CpuSample;

/// Latency summary in milliseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Stats {
    /// Number of samples.
    pub n: usize,
    /// The median (mean of the two middle samples for an even count, like Python's
    /// `statistics.median`).
    pub p50: f64,
    /// The 99th percentile, nearest rank: the smallest sample with at least 99 % of the
    /// samples at or below it (of 20 or 50 samples, the maximum).
    pub p99: f64,
    /// The fastest sample.
    pub min: f64,
    /// The slowest sample.
    pub max: f64,
}

/// The nearest-rank percentile of sorted `xs` (`p` in 0..=100).
pub fn nearest_rank(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = (p / 100.0 * sorted.len() as f64).ceil() as usize;
    sorted[rank.saturating_sub(1).min(sorted.len() - 1)]
}

impl Stats {
    /// Statistics of `samples` (any order).
    pub fn of(samples: &[Duration]) -> Stats {
        let mut xs: Vec<f64> = samples.iter().map(|d| d.as_secs_f64() * 1e3).collect();
        xs.sort_by(f64::total_cmp);
        if xs.is_empty() {
            return Stats { n: 0, p50: f64::NAN, p99: f64::NAN, min: f64::NAN, max: f64::NAN };
        }
        let n = xs.len();
        let p50 = if n % 2 == 1 { xs[n / 2] } else { (xs[n / 2 - 1] + xs[n / 2]) / 2.0 };
        Stats { n, p50, p99: nearest_rank(&xs, 99.0), min: xs[0], max: xs[n - 1] }
    }
}

/// Server CPU attributed to one measurement.
#[derive(Debug, Clone, Copy)]
pub struct Cpu {
    /// CPU seconds consumed during the measurement.
    pub used: CpuSample,
    /// Operations it covers.
    pub ops: usize,
    /// Wall-clock length of the measurement.
    pub wall: Duration,
}

impl Cpu {
    /// Server CPU per operation, ms.
    pub fn server_ms_per_op(&self) -> f64 {
        self.used.server * 1e3 / self.ops.max(1) as f64
    }

    /// Server + SSH CPU per operation, ms.
    pub fn with_ssh_ms_per_op(&self) -> Option<f64> {
        self.used.with_ssh.map(|s| s * 1e3 / self.ops.max(1) as f64)
    }

    /// Server CPU as a share of one core over the wall time, %.
    pub fn server_percent(&self) -> f64 {
        100.0 * self.used.server / self.wall.as_secs_f64()
    }

    /// Server + SSH CPU as a share of one core, %.
    pub fn with_ssh_percent(&self) -> Option<f64> {
        self.used.with_ssh.map(|s| 100.0 * s / self.wall.as_secs_f64())
    }
}

/// Throughput figures of a K-session measurement.
#[derive(Debug, Clone, Copy)]
pub struct Throughput {
    /// Concurrent sessions.
    pub sessions: usize,
    /// Completed edit-config + commit pairs per second.
    pub ops_per_s: f64,
    /// Failed pairs.
    pub errors: usize,
}

/// One measurement's result.
#[derive(Debug, Clone)]
pub struct Row {
    /// A stable key for scripts: `connect`, `get-config/512`, `edit/4096`, `commit/1`,
    /// `edit+commit/512`, `throughput/10`.
    pub key: String,
    /// Human-readable name.
    pub name: String,
    /// Latency statistics.
    pub stats: Stats,
    /// Server CPU, if PIDs were given.
    pub cpu: Option<Cpu>,
    /// For throughput rows.
    pub throughput: Option<Throughput>,
    /// Free text (reply size, errors).
    pub note: String,
}

impl Row {
    /// The one-line form printed as results come in.
    pub fn line(&self) -> String {
        let s = &self.stats;
        let mut out = format!(
            "  {:<34} n={:<6} p50={:>9.2} ms  p99={:>9.2} ms  min={:>8.2}  max={:>8.2}",
            self.name, s.n, s.p50, s.p99, s.min, s.max
        );
        if let Some(t) = &self.throughput {
            let _ = write!(out, "  {:.1} ops/s", t.ops_per_s);
            if t.errors > 0 {
                let _ = write!(out, " errors={}", t.errors);
            }
        }
        if let Some(c) = &self.cpu {
            if self.throughput.is_some() {
                let _ = write!(out, "  cpu={:.0}%", c.server_percent());
                if let Some(w) = c.with_ssh_percent() {
                    let _ = write!(out, " (+ssh {w:.0}%)");
                }
            } else {
                let _ = write!(out, "  cpu/op={:.2} ms", c.server_ms_per_op());
                if let Some(w) = c.with_ssh_ms_per_op() {
                    let _ = write!(out, " (+ssh {w:.2} ms)");
                }
            }
        }
        if !self.note.is_empty() {
            let _ = write!(out, "  {}", self.note);
        }
        out
    }

    /// Tab-separated: label, key, n, p50, p99, min, max, cpu ms/op, cpu+ssh ms/op, ops/s,
    /// cpu %, cpu+ssh %, errors (empty where not applicable). For scripts that put two runs
    /// side by side.
    pub fn tsv(&self, label: &str) -> String {
        let f = |v: Option<f64>, prec: usize| v.map(|v| format!("{v:.prec$}")).unwrap_or_default();
        let s = &self.stats;
        let cpu = self.cpu.as_ref();
        let thr = self.throughput.as_ref();
        let per_op = |c: &Cpu| thr.is_none().then(|| c.server_ms_per_op());
        let per_op_ssh = |c: &Cpu| if thr.is_none() { c.with_ssh_ms_per_op() } else { None };
        [
            label.to_string(),
            self.key.clone(),
            s.n.to_string(),
            format!("{:.3}", s.p50),
            format!("{:.3}", s.p99),
            format!("{:.3}", s.min),
            format!("{:.3}", s.max),
            f(cpu.and_then(per_op), 3),
            f(cpu.and_then(per_op_ssh), 3),
            f(thr.map(|t| t.ops_per_s), 1),
            f(cpu.filter(|_| thr.is_some()).map(Cpu::server_percent), 1),
            f(cpu.filter(|_| thr.is_some()).and_then(Cpu::with_ssh_percent), 1),
            thr.map(|t| t.errors.to_string()).unwrap_or_default(),
        ]
        .join("\t")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: &[u64]) -> Vec<Duration> {
        v.iter().map(|&m| Duration::from_millis(m)).collect()
    }

    #[test]
    fn median_and_nearest_rank_match_bench_py() {
        let s = Stats::of(&ms(&[5, 1, 3, 2, 4]));
        assert_eq!((s.n, s.p50, s.min, s.max), (5, 3.0, 1.0, 5.0));
        assert_eq!(s.p99, 5.0);
        let even = Stats::of(&ms(&[1, 2, 3, 4]));
        assert_eq!(even.p50, 2.5);
        // 200 samples 1..=200: rank ceil(0.99 * 200) = 198.
        let many: Vec<u64> = (1..=200).collect();
        assert_eq!(Stats::of(&ms(&many)).p99, 198.0);
        // Of 20 or 50 samples, p99 is the maximum.
        let twenty: Vec<u64> = (1..=20).collect();
        assert_eq!(Stats::of(&ms(&twenty)).p99, 20.0);
    }

    #[test]
    fn empty_samples_are_nan_not_a_panic() {
        let s = Stats::of(&[]);
        assert_eq!(s.n, 0);
        assert!(s.p50.is_nan() && s.p99.is_nan());
    }
}
