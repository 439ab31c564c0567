//! The least receive buffer above XOFF that loses nothing, found in simulation: the yardstick a
//! headroom is measured against.
//!
//! XOFF is placed one octet past a whole maximum frame, so the frame that crosses it overshoots
//! by a frame less an octet — the worst crossing there is. The buffer above XOFF is made ample,
//! and the runs sweep the alignment of B's own frames against A's (which sets how long a PFC
//! frame waits behind one, item d), and thus where A is in its frame when the pause takes
//! effect (item i), over the given drain rates. A run that loses nothing stores exactly as much
//! above XOFF as its dynamics need, so the most any run stored is the least buffer above XOFF
//! that none of them loses a frame with: exact, with no bisection step to round it. One octet
//! less loses a frame in the run that stored the most (checked by the tests).

use super::{TwoStation, TwoStationConfig, TwoStationReport};
use crate::time::Picos;

/// The least buffer above XOFF with no loss, and the run that needed it.
#[derive(Debug, Clone)]
pub struct LeastBuffer {
    /// Octets of buffer above the XOFF threshold.
    pub octets: u64,
    /// The run that stored the most above XOFF; [`run_with_reserve`] repeats it with any
    /// buffer above XOFF.
    pub worst: TwoStationConfig,
}

/// Runs `cfg` with XOFF one octet past a whole frame and `reserve` octets of buffer above it.
pub fn run_with_reserve(cfg: &TwoStationConfig, reserve: u64) -> TwoStationReport {
    let frame = u64::from(cfg.frame_len);
    let xoff = frame + 1;
    let mut cfg = cfg.clone();
    // The plan keeps headroom + frame − 1 above XOFF (SPEC §4.5): choose the headroom so that
    // is `reserve`.
    cfg.headroom_bits = reserve.saturating_sub(frame - 1).saturating_mul(8);
    cfg.allocation_octets = Some(xoff.saturating_add(reserve));
    cfg.duration = duration(&cfg, xoff);
    TwoStation::new(cfg).run()
}

/// Long enough to fill to XOFF at line rate, for the PFC round trip to end and for an XON and
/// another XOFF where the drain allows.
fn duration(cfg: &TwoStationConfig, xoff: u64) -> Picos {
    let frame = cfg.speed.frame_time(cfg.max_frame_octets());
    cfg.speed.bits_time(xoff * 8) + cfg.round_trip() * 3 + frame * 40
}

/// Sweeps `alignments` offsets of B's frames within one frame time, for each drain rate in
/// `drains` (percent) and each share of A's frames with random lengths in `mixes` (percent; 0
/// sends maximum frames only; each alignment draws its lengths from its own seed).
pub fn least_buffer_above_xoff(
    base: &TwoStationConfig,
    alignments: u32,
    drains: &[u64],
    mixes: &[u8],
) -> LeastBuffer {
    let base = base.clone();
    let frame_time = base.speed.frame_time(u64::from(base.frame_len));
    // Ample: the whole round trip twice at line rate, and a few frames.
    let ample = base.speed.bits_in(base.round_trip()) / 4 + 8 * base.max_frame_octets();
    let mut least = LeastBuffer { octets: 0, worst: base.clone() };
    for (&drain, &mix) in drains.iter().flat_map(|d| mixes.iter().map(move |m| (d, m))) {
        for i in 0..alignments.max(1) {
            let mut cfg = base.clone();
            cfg.drain_percent = drain;
            cfg.mixed_frames_percent = mix;
            cfg.seed = base.seed.wrapping_add(u64::from(i));
            let b = Picos(frame_time.as_ps() * u64::from(i) / u64::from(alignments.max(1)));
            cfg.start_offsets = Some([Picos::ZERO, b, Picos::ZERO]);
            let mut reserve = ample;
            let mut r = run_with_reserve(&cfg, reserve);
            // Never expected, but a run that loses frames says nothing of what it needed.
            for _ in 0..8 {
                if r.frames_dropped == 0 {
                    break;
                }
                reserve = reserve.saturating_mul(2);
                r = run_with_reserve(&cfg, reserve);
            }
            let stored = r.peak_occupancy_octets.saturating_sub(r.xoff_threshold_octets);
            if stored > least.octets {
                least = LeastBuffer { octets: stored, worst: cfg };
            }
        }
    }
    least
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{Medium, StationDelays};
    use crate::time::LinkSpeed;

    #[test]
    fn one_octet_less_than_the_least_loses_a_frame() {
        for (speed, metres) in [(LinkSpeed::G10, 1), (LinkSpeed::G100, 100)] {
            let mut base = TwoStationConfig::annex_n(0, 1);
            base.speed = speed;
            base.link_metres = metres;
            base.medium = Medium::Fibre;
            base.delays = StationDelays::for_link(speed, Medium::Fibre);
            let least = least_buffer_above_xoff(&base, 16, &[0, 1], &[0, 30]);
            // The crossing frame's 1999 octets and at least the round trip's whole frames.
            assert!(least.octets > 1_999 + 2_000, "{speed}: {}", least.octets);
            let enough = run_with_reserve(&least.worst, least.octets);
            assert_eq!(enough.frames_dropped, 0, "{speed}: {enough:?}");
            let short = run_with_reserve(&least.worst, least.octets - 1);
            assert!(short.frames_dropped > 0, "{speed}: {short:?}");
        }
    }
}
