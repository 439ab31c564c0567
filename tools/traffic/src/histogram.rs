//! A latency histogram of fixed size: values below 128 ns exactly, above that in 64 buckets per
//! power of two (at most 1.6 % wide), so millions of frames cost 4 KiB and no sorting.

const SUB_BITS: u32 = 6;
const SUB: u64 = 1 << SUB_BITS;
const EXACT: u64 = 2 * SUB;
const BUCKETS: usize = (EXACT + (64 - SUB_BITS as u64 - 1) * SUB) as usize;

#[derive(Debug, Clone)]
pub struct Histogram {
    counts: Vec<u64>,
    total: u64,
    min: u64,
    max: u64,
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram { counts: vec![0; BUCKETS], total: 0, min: u64::MAX, max: 0 }
    }
}

impl Histogram {
    pub fn record(&mut self, v: u64) {
        self.counts[index(v)] += 1;
        self.total += 1;
        self.min = self.min.min(v);
        self.max = self.max.max(v);
    }

    pub fn count(&self) -> u64 {
        self.total
    }

    pub fn min(&self) -> Option<u64> {
        (self.total > 0).then_some(self.min)
    }

    pub fn max(&self) -> Option<u64> {
        (self.total > 0).then_some(self.max)
    }

    /// The value at quantile `q` (0..=1): the lower edge of its bucket, clamped to what was seen.
    pub fn quantile(&self, q: f64) -> Option<u64> {
        if self.total == 0 {
            return None;
        }
        let rank = ((q.clamp(0.0, 1.0) * self.total as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (i, c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return Some(lower_edge(i).clamp(self.min, self.max));
            }
        }
        Some(self.max)
    }
}

fn index(v: u64) -> usize {
    if v < EXACT {
        return v as usize;
    }
    let exp = 63 - v.leading_zeros(); // >= SUB_BITS + 1
    let sub = (v >> (exp - SUB_BITS)) & (SUB - 1);
    (EXACT + u64::from(exp - SUB_BITS - 1) * SUB + sub) as usize
}

fn lower_edge(i: usize) -> u64 {
    let i = i as u64;
    if i < EXACT {
        return i;
    }
    let exp = (i - EXACT) / SUB + u64::from(SUB_BITS) + 1;
    let sub = (i - EXACT) % SUB;
    (1 << exp) | (sub << (exp - u64::from(SUB_BITS)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_are_within_two_percent() {
        let mut h = Histogram::default();
        for v in 1..=100_000u64 {
            h.record(v * 10);
        }
        let p50 = h.quantile(0.5).expect("values") as f64;
        let p99 = h.quantile(0.99).expect("values") as f64;
        assert!((p50 / 500_000.0 - 1.0).abs() < 0.02, "p50 {p50}");
        assert!((p99 / 990_000.0 - 1.0).abs() < 0.02, "p99 {p99}");
        assert_eq!(h.min(), Some(10));
        assert_eq!(h.max(), Some(1_000_000));
        assert_eq!(h.count(), 100_000);
    }

    #[test]
    fn small_values_are_exact_and_every_index_fits() {
        let mut h = Histogram::default();
        for v in [0, 5, 5, 127] {
            h.record(v);
        }
        assert_eq!(h.quantile(0.5), Some(5));
        assert_eq!(h.quantile(1.0), Some(127));
        h.record(u64::MAX);
        assert_eq!(h.max(), Some(u64::MAX));
        for v in [128, 129, 255, 256, 1 << 40] {
            assert!(lower_edge(index(v)) <= v && v - lower_edge(index(v)) <= v / 64);
        }
        assert_eq!(Histogram::default().quantile(0.5), None);
    }
}
