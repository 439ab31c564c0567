//! The NIC's receive buffers (`struct dcbnl_buffer`), worked out without touching it, on NICs
//! whose driver has buffer operations (its IEEE GET answered a buffer, with the NIC's
//! `total_size`).
//!
//! Each PFC-enabled priority gets a lossless buffer of its own, in priority order, sized as
//! pfcd's bridge sizes a lossless priority's buffer (`dataplane::headroom::BufferPlan`: twice
//! the allowance in force as octets, rounded up to whole KiB, or the priority's configured
//! allocation); the lossy priorities share buffer 0, which gets what is left of the NIC's total.
//! Where the lossless buffers do not fit, each is cut to an equal share of the total less a
//! reserve for the lossy priorities, and that is said ([`BuffersGiven::clamped`]).

use dataplane::headroom::{BufferConfig, BufferPlan};
use dataplane::time::FCS_OCTETS;
use pfc_dcb::kernel::EIGHT;
use pfc_dcb::DcbBuffer;

/// Maximum frames of buffer 0 kept for the lossy priorities when the lossless ones are cut:
/// enough that lossy traffic still passes, if dropped sooner.
const LOSSY_RESERVE_FRAMES: u64 = 2;

/// What the port knows of the buffers beyond the PFC enable and the allowance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BufferFacts {
    /// The largest frame, octets without FCS.
    pub max_frame: u16,
    /// Each priority's configured buffer allocation, octets (`None`: twice the allowance).
    pub allocation_octets: [Option<u64>; EIGHT],
    /// What the NIC reported its buffers may take in all (`dcbnl_buffer.total_size`).
    pub total_size: u32,
}

/// The buffers asked for, and how they came about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuffersGiven {
    pub buffer: DcbBuffer,
    /// What each lossless buffer wanted, octets, in buffer order (0 for buffers not lossless).
    pub wanted: [u64; EIGHT],
    /// True when the lossless buffers were cut to fit the NIC's total. Always reported.
    pub clamped: bool,
}

impl BuffersGiven {
    /// The buffers for `oper_pfc_enable` (bit n: priority n is lossless) and the allowance in
    /// force, `allowance_bits`.
    pub fn for_port(oper_pfc_enable: u8, allowance_bits: u64, facts: &BufferFacts) -> Self {
        let lossless: Vec<usize> = (0..EIGHT).filter(|p| oper_pfc_enable & (1 << p) != 0).collect();
        // Buffer 0 is the lossy priorities' while there are any.
        let first = usize::from(lossless.len() < EIGHT);
        let max_frame = u64::from(facts.max_frame) + FCS_OCTETS;
        let mut buffer = DcbBuffer { total_size: facts.total_size, ..DcbBuffer::default() };
        let mut wanted = [0; EIGHT];
        for (rank, &priority) in lossless.iter().enumerate() {
            let n = first + rank;
            buffer.prio2buffer[priority] = n as u8;
            wanted[n] = allocation(allowance_bits, facts.allocation_octets[priority], max_frame);
        }
        let total = u64::from(facts.total_size);
        let reserve = if first == 1 { LOSSY_RESERVE_FRAMES * max_frame } else { 0 };
        let room = total.saturating_sub(reserve);
        let clamped = wanted.iter().fold(0u64, |a, w| a.saturating_add(*w)) > room;
        let share = room / (lossless.len().max(1) as u64);
        let in_use = first..first + lossless.len();
        for (size, want) in buffer.buffer_size[in_use.clone()].iter_mut().zip(&wanted[in_use]) {
            let given = if clamped { (*want).min(share) } else { *want };
            *size = u32::try_from(given).unwrap_or(u32::MAX);
        }
        if first == 1 {
            let given: u64 = buffer.buffer_size.iter().map(|s| u64::from(*s)).sum();
            buffer.buffer_size[0] = u32::try_from(total - given).unwrap_or(u32::MAX);
        }
        BuffersGiven { buffer, wanted, clamped }
    }

    /// For the log and the state: "p0 p1 p2 p4 p5 p6 p7 in buffer 0 (230400 octets); p3 in
    /// buffer 1 (31744 octets); NIC total 262144 octets", with what was cut when clamped.
    pub fn describe(&self) -> String {
        let b = &self.buffer;
        let mut parts = Vec::new();
        for n in 0..EIGHT {
            let priorities: Vec<String> = (0..EIGHT)
                .filter(|p| b.prio2buffer[*p] as usize == n)
                .map(|p| format!("p{p}"))
                .collect();
            if priorities.is_empty() {
                continue;
            }
            let size = b.buffer_size[n];
            let mut part = format!("{} in buffer {n} ({size} octets", priorities.join(" "));
            if self.clamped && self.wanted[n] != 0 {
                part += &format!(", wanted {}", self.wanted[n]);
            }
            parts.push(part + ")");
        }
        let total = b.total_size;
        let mut text = format!("{}; NIC total {total} octets", parts.join("; "));
        if self.clamped {
            text += ": the lossless buffers do not fit the NIC's total and were cut (clamped)";
        }
        text
    }
}

/// The buffer for `priority`: its configured allocation where that holds the allowance, else
/// twice the allowance rounded up, as the bridge allocates it.
fn allocation(allowance_bits: u64, configured: Option<u64>, max_frame: u64) -> u64 {
    let config = BufferConfig {
        max_frame_octets: max_frame,
        allocation_octets: configured,
        xon_hysteresis_octets: None,
    };
    let plan = BufferPlan::new(allowance_bits, &config).or_else(|_| {
        BufferPlan::new(allowance_bits, &BufferConfig { allocation_octets: None, ..config })
    });
    plan.map_or(u64::MAX, |p| p.allocation_octets)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Annex N's allowance: 126 224 bits, 15 778 octets, twice that rounded up to 31 KiB.
    const ANNEX_N_BITS: u64 = 126_224;
    const ANNEX_N_BUFFER: u32 = 31_744;
    const TOTAL: u32 = 262_144;

    fn facts(total_size: u32) -> BufferFacts {
        BufferFacts { max_frame: 9216, allocation_octets: [None; EIGHT], total_size }
    }

    fn buffers_for(oper_pfc_enable: u8, facts: &BufferFacts) -> BuffersGiven {
        BuffersGiven::for_port(oper_pfc_enable, ANNEX_N_BITS, facts)
    }

    #[test]
    fn annex_n_with_p3_on_gives_p3_a_buffer_of_twice_the_allowance_and_the_rest_to_buffer_0() {
        let given = buffers_for(0b0000_1000, &facts(TOTAL));
        assert_eq!(given.buffer.prio2buffer, [0, 0, 0, 1, 0, 0, 0, 0]);
        assert_eq!(
            given.buffer.buffer_size,
            [TOTAL - ANNEX_N_BUFFER, ANNEX_N_BUFFER, 0, 0, 0, 0, 0, 0]
        );
        assert_eq!(given.buffer.total_size, TOTAL);
        assert!(!given.clamped);
        assert_eq!(
            given.describe(),
            "p0 p1 p2 p4 p5 p6 p7 in buffer 0 (230400 octets); p3 in buffer 1 (31744 octets); \
             NIC total 262144 octets"
        );
    }

    #[test]
    fn p3_and_p4_each_get_their_own_lossless_buffer() {
        let given = buffers_for(0b0001_1000, &facts(TOTAL));
        assert_eq!(given.buffer.prio2buffer, [0, 0, 0, 1, 2, 0, 0, 0]);
        let rest = TOTAL - 2 * ANNEX_N_BUFFER;
        assert_eq!(given.buffer.buffer_size, [rest, ANNEX_N_BUFFER, ANNEX_N_BUFFER, 0, 0, 0, 0, 0]);
        assert!(!given.clamped);
        // A configured allocation is the bridge's too.
        let mut configured = facts(TOTAL);
        configured.allocation_octets[4] = Some(40_960);
        let given = buffers_for(0b0001_1000, &configured);
        assert_eq!(
            given.buffer.buffer_size[..3],
            [TOTAL - ANNEX_N_BUFFER - 40_960, ANNEX_N_BUFFER, 40_960]
        );
    }

    #[test]
    fn pfc_off_puts_every_priority_in_buffer_0_with_the_whole_total() {
        let given = buffers_for(0, &facts(TOTAL));
        assert_eq!(given.buffer.prio2buffer, [0; EIGHT]);
        assert_eq!(given.buffer.buffer_size, [TOTAL, 0, 0, 0, 0, 0, 0, 0]);
        assert!(!given.clamped);
    }

    #[test]
    fn every_priority_lossless_starts_at_buffer_0_as_there_is_no_lossy_one() {
        let given = buffers_for(0xff, &facts(TOTAL));
        assert_eq!(given.buffer.prio2buffer, [0, 1, 2, 3, 4, 5, 6, 7]);
        assert_eq!(given.buffer.buffer_size, [ANNEX_N_BUFFER; EIGHT]);
    }

    #[test]
    fn an_allowance_too_big_for_the_nics_total_is_cut_to_equal_shares_and_said() {
        // Two lossless buffers want 63 488 octets; the NIC has 40 000, less two 9 220-octet
        // frames kept for the lossy priorities: 21 560, 10 780 each.
        let given = buffers_for(0b0001_1000, &facts(40_000));
        assert!(given.clamped);
        assert_eq!(given.buffer.buffer_size, [18_440, 10_780, 10_780, 0, 0, 0, 0, 0]);
        let in_all: u32 = given.buffer.buffer_size.iter().sum();
        assert_eq!(in_all, 40_000, "within the NIC's total");
        assert_eq!(given.wanted[1..3], [31_744, 31_744]);
        assert_eq!(
            given.describe(),
            "p0 p1 p2 p5 p6 p7 in buffer 0 (18440 octets); p3 in buffer 1 (10780 octets, wanted \
             31744); p4 in buffer 2 (10780 octets, wanted 31744); NIC total 40000 octets: the \
             lossless buffers do not fit the NIC's total and were cut (clamped)"
        );
    }

    #[test]
    fn a_nic_total_below_the_lossy_reserve_gives_the_lossless_buffers_nothing_and_says_so() {
        let given = buffers_for(0b0000_1000, &facts(10_000));
        assert!(given.clamped);
        assert_eq!(given.buffer.buffer_size[..2], [10_000, 0]);
    }
}
