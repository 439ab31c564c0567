//! What pfcd asks of a NIC, worked out without touching it: from what the port knows (the
//! operational PFC Enable DCBX left, MBC, the allowance in force, the link, the driver's name)
//! the DCB netlink requests to send, in order, what `ieee_pfc.delay` is given, and the
//! receive buffers where the driver has buffer operations (`buffers`), ETS and the APP table
//! where they are configured (`ets_app`).
//!
//! `delay` is a `__u16` the kernel documents as "allowance made for a round-trip propagation
//! delay of the link in bits", but drivers read it as they please: the table [`DRIVERS`] says
//! how each one pfcd knows reads it; any other driver is given bits.

use dataplane::headroom::Medium;
use dataplane::time::LinkSpeed;
use pfc_dcb::{DcbxMode, IeeeObjects, IeeePfc, Request};

use super::buffers::{BufferFacts, BuffersGiven};
use super::ets_app::{AppsGiven, EtsAppFacts, EtsGiven};

/// How a driver reads `ieee_pfc.delay`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DelayUnit {
    /// As the kernel documents it: the allowance in bits.
    Bits,
    /// As the length of the cable in metres, from which the driver sizes its own receive
    /// buffers; only `1..=max` is taken (another value leaves the previous length).
    CableMetres { max: u16 },
    /// Not at all: the driver reports a figure of its own.
    NotRead,
}

/// One driver's row of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DriverRow {
    /// The driver's name, as `/sys/class/net/IF/device/driver` links it.
    pub driver: &'static str,
    pub delay: DelayUnit,
}

/// The drivers whose reading of `delay` is not the kernel's documented one.
/// mlx5_core: `mlx5e_dcbnl_ieee_setpfc` takes `delay` as `cable_len` when it is non-zero and
/// below `MLX5E_MAX_CABLE_LENGTH` (1000), and `getpfc` reports `cable_len` back.
/// ice: `ice_dcbnl_setpfc` takes PFC enable and cap only; `getpfc` reports the port's register.
pub const DRIVERS: &[DriverRow] = &[
    DriverRow { driver: "mlx5_core", delay: DelayUnit::CableMetres { max: 999 } },
    DriverRow { driver: "ice", delay: DelayUnit::NotRead },
];

impl DelayUnit {
    /// How `driver` reads `delay`: its row of [`DRIVERS`], else bits.
    pub fn of(driver: Option<&str>) -> DelayUnit {
        DRIVERS.iter().find(|row| Some(row.driver) == driver).map_or(DelayUnit::Bits, |r| r.delay)
    }

    /// The word the state and the log use.
    pub fn as_str(self) -> &'static str {
        match self {
            DelayUnit::Bits => "bits",
            DelayUnit::CableMetres { .. } => "cable-metres",
            DelayUnit::NotRead => "not-read",
        }
    }
}

/// What the port knows, all the plan is made from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PortFacts {
    /// The driver's name; `None` for an interface without a device (virtual ones).
    pub driver: Option<String>,
    /// Operational PFC Enable after DCBX (the configured one without LLDP).
    pub oper_pfc_enable: u8,
    /// The NIC's own PFC capability, as its GET reported it (0 when unknown).
    pub pfc_cap: u8,
    pub mbc: bool,
    /// The allowance in force, bits.
    pub allowance_bits: u64,
    /// The link's speed and the cable's medium: what turns bits into metres.
    pub speed: LinkSpeed,
    pub medium: Medium,
    /// The receive buffers' facts, where the NIC's IEEE GET answered a buffer (its driver has
    /// buffer operations); `None` leaves the buffers as they are.
    pub buffers: Option<BufferFacts>,
    /// ETS and APP as DCBX left them, and the NIC's APP table.
    pub ets_app: EtsAppFacts,
}

/// What `delay` was given, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DelayGiven {
    pub value: u16,
    pub unit: DelayUnit,
    /// What the allowance comes to in `unit` before the driver's range was applied.
    pub wanted: u64,
}

impl DelayGiven {
    /// True when `value` is not `wanted`: the driver's range cut it. Always reported.
    pub fn clamped(&self) -> bool {
        self.unit != DelayUnit::NotRead && u64::from(self.value) != self.wanted
    }

    /// `delay` for `allowance_bits` on a driver that reads it as `unit`. Metres: the allowance
    /// taken as the round trip over a cable of `medium` at `speed`, one way being half of it,
    /// rounded up to the next metre (a longer cable makes the driver reserve more, never less).
    pub fn for_allowance(
        unit: DelayUnit,
        allowance_bits: u64,
        speed: LinkSpeed,
        medium: Medium,
    ) -> Self {
        let (wanted, range) = match unit {
            DelayUnit::Bits => (allowance_bits, 0..=u64::from(u16::MAX)),
            DelayUnit::CableMetres { max } => {
                let numerator = u128::from(allowance_bits) * u128::from(medium.metres_per_second());
                let denominator = 2 * u128::from(speed.bits_per_second());
                let metres = numerator.div_ceil(denominator);
                (u64::try_from(metres).unwrap_or(u64::MAX), 1..=u64::from(max))
            }
            DelayUnit::NotRead => (0, 0..=0),
        };
        let value = wanted.clamp(*range.start(), *range.end());
        DelayGiven { value: u16::try_from(value).unwrap_or(u16::MAX), unit, wanted }
    }

    /// For the log and the state: "114 m of cable", "65535 bits (the allowance, 126224 bits,
    /// clamped to 16 bits)", "0 (the driver does not read it)".
    pub fn describe(&self) -> String {
        let given = match self.unit {
            DelayUnit::Bits => format!("{} bits", self.value),
            DelayUnit::CableMetres { .. } => format!("{} m of cable", self.value),
            DelayUnit::NotRead => return "0 (the driver does not read it)".into(),
        };
        if !self.clamped() {
            return given;
        }
        let wanted = match self.unit {
            DelayUnit::CableMetres { max } => {
                format!("{} m, outside the driver's 1 to {max}", self.wanted)
            }
            _ => format!("{} bits, more than 16 bits hold", self.wanted),
        };
        format!("{given} (the allowance comes to {wanted}: clamped)")
    }
}

/// The requests for one port, in the order they are sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// First: DCBX run by the host (pfcd), IEEE version, so that the NIC's own agent does not
    /// overwrite what follows.
    pub dcbx: DcbxMode,
    /// ETS in force, where ETS is configured.
    pub ets: Option<EtsGiven>,
    pub pfc: IeeePfc,
    pub delay: DelayGiven,
    /// The APP table in force and the NIC's difference from it, where APP is configured.
    pub apps: Option<AppsGiven>,
    /// Last, as the driver sizes lossless buffers from PFC and `delay` (mlx5_core).
    pub buffers: Option<BuffersGiven>,
}

impl Plan {
    pub fn for_port(facts: &PortFacts) -> Plan {
        let unit = DelayUnit::of(facts.driver.as_deref());
        let delay =
            DelayGiven::for_allowance(unit, facts.allowance_bits, facts.speed, facts.medium);
        let pfc = IeeePfc {
            pfc_cap: facts.pfc_cap,
            pfc_en: facts.oper_pfc_enable,
            mbc: u8::from(facts.mbc),
            delay: delay.value,
            ..IeeePfc::default()
        };
        let buffers = facts
            .buffers
            .map(|b| BuffersGiven::for_port(facts.oper_pfc_enable, facts.allowance_bits, &b));
        let agreed = &facts.ets_app;
        let ets = agreed.ets.as_ref().map(EtsGiven::for_port);
        let apps = agreed.app.as_ref().map(|oper| AppsGiven::for_port(oper, &agreed.apps_on_nic));
        Plan { dcbx: DcbxMode::HOST_IEEE, ets, pfc, delay, apps, buffers }
    }

    /// Each object as its own request, so that a driver refusing one leaves the others applied.
    pub fn requests(&self) -> Vec<(PlannedObject, Request)> {
        let mut requests = vec![(PlannedObject::DcbxMode, Request::SetDcbx(self.dcbx))];
        if let Some(given) = &self.ets {
            let objects = IeeeObjects { ets: Some(given.ets), ..Default::default() };
            requests.push((PlannedObject::Ets, Request::ieee_set(objects)));
        }
        requests.push((
            PlannedObject::Pfc,
            Request::ieee_set(IeeeObjects { pfc: Some(self.pfc), ..Default::default() }),
        ));
        if let Some(apps) = &self.apps {
            if !apps.delete.is_empty() {
                requests.push((PlannedObject::AppDelete, Request::AppDelete(apps.delete.clone())));
            }
            if !apps.add.is_empty() {
                let objects = IeeeObjects { apps: apps.add.clone(), ..Default::default() };
                requests.push((PlannedObject::AppAdd, Request::ieee_set(objects)));
            }
        }
        if let Some(given) = &self.buffers {
            let objects = IeeeObjects { buffer: Some(given.buffer), ..Default::default() };
            requests.push((PlannedObject::Buffer, Request::ieee_set(objects)));
        }
        requests
    }
}

/// One object pfcd sets, named as the state names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum PlannedObject {
    DcbxMode,
    Ets,
    Pfc,
    AppDelete,
    AppAdd,
    Buffer,
}

impl PlannedObject {
    pub fn as_str(self) -> &'static str {
        match self {
            PlannedObject::DcbxMode => "dcbx-mode",
            PlannedObject::Ets => "ieee-ets",
            PlannedObject::Pfc => "ieee-pfc",
            PlannedObject::AppDelete => "app-delete",
            PlannedObject::AppAdd => "app-add",
            PlannedObject::Buffer => "dcb-buffer",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pfc_dcb::kernel::{DCB_CAP_DCBX_HOST, DCB_CAP_DCBX_VER_IEEE};

    /// Annex N's allowance, the YANG default.
    const ANNEX_N_BITS: u64 = 126_224;

    fn facts(driver: Option<&str>, allowance_bits: u64, speed: LinkSpeed) -> PortFacts {
        PortFacts {
            driver: driver.map(str::to_string),
            oper_pfc_enable: 0b0000_1000,
            pfc_cap: 8,
            mbc: false,
            allowance_bits,
            speed,
            medium: Medium::Cat6,
            buffers: None,
            ets_app: Default::default(),
        }
    }

    fn pfc_set(plan: &Plan) -> IeeePfc {
        let requests = plan.requests();
        let [(PlannedObject::DcbxMode, Request::SetDcbx(mode)), (PlannedObject::Pfc, Request::IeeeSet(objects))] =
            &requests[..]
        else {
            panic!("DCBX mode then PFC: {requests:?}")
        };
        assert_eq!(mode.0, DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE);
        assert_eq!((objects.ets, objects.buffer, objects.apps.len()), (None, None, 0));
        objects.pfc.expect("a PFC object")
    }

    #[test]
    fn annex_n_on_mlx5_is_the_cable_its_round_trip_covers_rounded_up() {
        // 126 224 bits at 100 Gb/s is 1.262 µs; one way 631 ns; Cat6 at 0.6c: 113.6 m → 114.
        let plan = Plan::for_port(&facts(Some("mlx5_core"), ANNEX_N_BITS, LinkSpeed::G100));
        let pfc = pfc_set(&plan);
        assert_eq!((pfc.pfc_en, pfc.delay, pfc.pfc_cap, pfc.mbc), (0x08, 114, 8, 0));
        assert_eq!(plan.delay.unit, DelayUnit::CableMetres { max: 999 });
        assert!(!plan.delay.clamped());
        assert_eq!(plan.delay.describe(), "114 m of cable");
        // At 10 Gb/s the same bits are 1 136.016 m, beyond what mlx5 takes: clamped, and said.
        let slow = Plan::for_port(&facts(Some("mlx5_core"), ANNEX_N_BITS, LinkSpeed::G10));
        assert_eq!((slow.pfc.delay, slow.delay.wanted), (999, 1_137));
        assert!(slow.delay.clamped());
        assert_eq!(
            slow.delay.describe(),
            "999 m of cable (the allowance comes to 1137 m, outside the driver's 1 to 999: clamped)"
        );
    }

    #[test]
    fn annex_n_on_a_generic_driver_is_bits_clamped_to_16_bits_and_said() {
        for driver in [None, Some("bnxt_en"), Some("virtio_net")] {
            let plan = Plan::for_port(&facts(driver, ANNEX_N_BITS, LinkSpeed::G10));
            assert_eq!(pfc_set(&plan).delay, 65_535, "{driver:?}");
            assert_eq!(plan.delay.unit, DelayUnit::Bits);
            assert!(plan.delay.clamped());
            assert_eq!(
                plan.delay.describe(),
                "65535 bits (the allowance comes to 126224 bits, more than 16 bits hold: clamped)"
            );
        }
    }

    #[test]
    fn an_allowance_that_fits_16_bits_is_given_exactly_and_one_above_is_clamped() {
        let fits = Plan::for_port(&facts(Some("bnxt_en"), 65_535, LinkSpeed::G25));
        assert_eq!((fits.pfc.delay, fits.delay.clamped()), (65_535, false));
        assert_eq!(fits.delay.describe(), "65535 bits");
        let above = Plan::for_port(&facts(Some("bnxt_en"), 65_536, LinkSpeed::G25));
        assert_eq!(
            (above.pfc.delay, above.delay.wanted, above.delay.clamped()),
            (65_535, 65_536, true)
        );
    }

    #[test]
    fn ice_is_given_no_delay_as_it_reads_none() {
        let plan = Plan::for_port(&facts(Some("ice"), ANNEX_N_BITS, LinkSpeed::G100));
        assert_eq!((pfc_set(&plan).delay, plan.delay.clamped()), (0, false));
        assert_eq!(plan.delay.describe(), "0 (the driver does not read it)");
    }

    #[test]
    fn pfc_off_is_still_set_so_that_the_nic_stops_pausing() {
        let mut off = facts(Some("mlx5_core"), ANNEX_N_BITS, LinkSpeed::G100);
        off.oper_pfc_enable = 0;
        off.mbc = true;
        let pfc = pfc_set(&Plan::for_port(&off));
        assert_eq!((pfc.pfc_en, pfc.mbc, pfc.delay), (0, 1, 114));
    }

    #[test]
    fn a_zero_allowance_on_mlx5_is_one_metre_as_zero_would_keep_the_old_length() {
        let plan = Plan::for_port(&facts(Some("mlx5_core"), 0, LinkSpeed::G100));
        assert_eq!((plan.pfc.delay, plan.delay.clamped()), (1, true));
    }
}

#[cfg(test)]
mod buffer_tests {
    use super::*;
    use pfc_dcb::{decode, DcbBuffer, Incoming};

    fn facts(buffers: Option<BufferFacts>) -> PortFacts {
        PortFacts {
            driver: Some("mlx5_core".into()),
            oper_pfc_enable: 0b0000_1000,
            pfc_cap: 8,
            mbc: false,
            allowance_bits: 126_224,
            speed: LinkSpeed::G100,
            medium: Medium::Cat6,
            buffers,
            ets_app: Default::default(),
        }
    }

    #[test]
    fn a_nic_with_buffer_operations_gets_its_buffers_last_in_a_request_of_their_own() {
        let nic =
            BufferFacts { max_frame: 9216, allocation_octets: [None; 8], total_size: 262_144 };
        let plan = Plan::for_port(&facts(Some(nic)));
        let requests = plan.requests();
        let objects: Vec<_> = requests.iter().map(|(o, _)| *o).collect();
        assert_eq!(objects, [PlannedObject::DcbxMode, PlannedObject::Pfc, PlannedObject::Buffer]);
        // The buffer request as the kernel reads it: only the buffer, the Annex N sizes.
        let wire = requests[2].1.encode("eth1", 7, 0).expect("encodes");
        let [Ok(Incoming::Dcb(m))] = &decode(&wire)[..] else { panic!("one DCB message") };
        let ieee = m.ieee.as_ref().expect("an IEEE nest");
        assert_eq!((ieee.pfc, ieee.ets, ieee.apps.len()), (None, None, 0));
        let expected = DcbBuffer {
            prio2buffer: [0, 0, 0, 1, 0, 0, 0, 0],
            buffer_size: [230_400, 31_744, 0, 0, 0, 0, 0, 0],
            total_size: 262_144,
        };
        assert_eq!(ieee.buffer, Some(expected));
    }

    #[test]
    fn a_nic_without_buffer_operations_is_not_asked_for_buffers() {
        let plan = Plan::for_port(&facts(None));
        assert_eq!(plan.buffers, None);
        assert_eq!(plan.requests().len(), 2);
    }
}
