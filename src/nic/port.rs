//! A port whose NIC runs PFC: the same handle, intents and snapshots as the other kinds, the
//! same LLDP/DCBX on the interface as the software bridge's ports (`ports::interface_lldp`) and
//! the same allowance selection; but nothing is forwarded, and what DCBX and the configuration
//! leave in force (PFC, the allowance, ETS and the APP table) is put on the NIC through DCB
//! netlink (`plan`, `apply`) whenever it changes. The NIC's PFC counters are read back on a short period. Where the NIC's firmware keeps DCBX
//! (`nic-dcbx = "leave"`, `dcbx_owner`), the port runs no LLDP, sets nothing, and takes the
//! NIC's PFC enable as read back for the operational one.

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use dataplane::headroom::{LinkDelay, Medium};
use dataplane::time::{LinkSpeed, Picos};
use lldp::dcbx::{PfcAdmin, PfcOper, PfcReason};
use lldp::port::{DcbxPort, LocalSystem, PortSettings};
use lldp::wire::TimeInterval;
use pfc_dcb::{DcbApp, DcbBuffer, DcbSocket, IeeePfc};
use tracing::{info, warn, Level};

use super::apply::{apply, pfc_counters};
use super::buffers::BufferFacts;
use super::dcbx_owner::DcbxOwner;
use super::ets_app::{EtsAppFacts, EtsFacts};
use super::plan::{Plan, PlannedObject, PortFacts};
use super::state::{Programmed, SharedNicState};
use crate::ports::calculation::Calculation;
use crate::ports::follow::{Followed, PortFigures};
use crate::ports::follow_interface::{calculate_if_in_force, follow_step};
use crate::ports::headroom::{select_allowance, ReceiveBuffer, Results};
use crate::ports::intent::{PortIntent, PRIORITIES};
use crate::ports::interface_lldp::RealLldp;
use crate::ports::lldp_view::{LldpView, Step};
use crate::ports::run::PortTask;
use crate::ports::snapshot::{PortSnapshot, PrioritySnapshot};
use crate::ports::{EventSender, PortHandle};

/// How often the task looks at the LLDP socket when nothing else wakes it.
const TICK: Duration = Duration::from_millis(50);

/// How often the NIC's PFC (its counters) is read back: a `<get>` sees counters at most this
/// old, and a GET a second costs the NIC's firmware nothing worth counting.
pub const READ_BACK_EVERY: Duration = Duration::from_secs(1);

/// The port's log lines that a peer's DCBX can cause (each change of the plan).
const CLAMPED: &str = "ieee_pfc.delay clamped to what the driver takes";
const BUFFERS_CUT: &str = "the lossless receive buffers cut to the NIC's total";
const REFUSED: &str = "the NIC refused an object; the others stay applied";
const PROGRAMMED: &str = "NIC programmed";

/// A NIC port: its interface and what is known of it at start.
#[derive(Debug, Clone)]
pub struct NicPortSetup {
    pub name: String,
    pub speed: LinkSpeed,
    /// Octets for the PFC-enabled priorities together (what an allowance must fit).
    pub receive_buffer_size: u64,
    pub system: LocalSystem,
    /// The largest frame, octets without FCS (the calculation's frames).
    pub max_frame: u16,
    /// The NIC's own PFC as its start-up GET reported it.
    pub found: Option<IeeePfc>,
    /// The NIC's receive buffers as its start-up GET reported them; `None` when the driver has
    /// no buffer operations.
    pub found_buffer: Option<DcbBuffer>,
    /// The NIC's APP table as its start-up GET reported it.
    pub found_apps: Vec<DcbApp>,
    /// The interface's driver (`sysfs::driver`), which decides how `delay` is given.
    pub driver: Option<String>,
    /// Whether pfcd or the NIC's firmware runs DCBX here.
    pub dcbx_owner: DcbxOwner,
}

impl NicPortSetup {
    fn receive_buffer(&self) -> ReceiveBuffer {
        ReceiveBuffer::for_max_frame(self.receive_buffer_size, self.max_frame)
    }
}

/// Starts a NIC port's task; `state` is where it reports what it programmed.
pub fn spawn(
    setup: NicPortSetup,
    state: SharedNicState,
    events: EventSender,
) -> std::io::Result<PortHandle> {
    let lldp = if setup.dcbx_owner.pfcd_runs_dcbx() {
        Some(RealLldp::open(&setup.name, setup.system.clone()).map_err(std::io::Error::other)?)
    } else {
        None
    };
    let dcb = DcbSocket::open().map_err(std::io::Error::other)?;
    let (name, buffer) = (setup.name.clone(), setup.receive_buffer());
    PortHandle::start(name, buffer, NicPort::new(setup, lldp, dcb, state, events))
}

/// The port's state, owned by its thread.
struct NicPort {
    setup: NicPortSetup,
    /// Our LLDP/DCBX agent; none where the NIC's firmware keeps DCBX.
    lldp: Option<RealLldp>,
    dcb: DcbSocket,
    followed: Followed,
    calculation: Calculation,
    state: SharedNicState,
    /// The plan last sent (sent again only when it changes).
    given: Option<Plan>,
    /// The NIC's APP table as last known: read at start, then as pfcd changed it.
    apps_on_nic: Vec<DcbApp>,
    /// The NIC's PFC as last read, and the counters when they were last cleared.
    read: IeeePfc,
    base: IeeePfc,
    last_read: Option<Instant>,
}

impl NicPort {
    fn new(
        setup: NicPortSetup,
        lldp: Option<RealLldp>,
        dcb: DcbSocket,
        state: SharedNicState,
        events: EventSender,
    ) -> Self {
        let intent = PortIntent::default();
        let results = Results::default();
        let allowance =
            select_allowance(&intent, Default::default(), &results, setup.receive_buffer());
        let view = match &lldp {
            Some(lldp) => lldp.view(),
            None => no_agent_view(&setup),
        };
        let mut followed =
            Followed::new(setup.name.clone(), intent, results, allowance, view, events);
        let found = setup.found.unwrap_or_default();
        if !setup.dcbx_owner.pfcd_runs_dcbx() {
            followed.take_oper_pfc_enable(found.pfc_en);
        }
        NicPort {
            calculation: Calculation::new(setup.speed, setup.max_frame),
            lldp,
            dcb,
            followed,
            state,
            given: None,
            apps_on_nic: setup.found_apps.clone(),
            read: found,
            base: found,
            last_read: None,
            setup,
        }
    }

    /// Follows DCBX (operational PFC Enable, the headroom method agreed) and the peer's Local
    /// Delay; a change selects the allowance again and programs the NIC.
    fn follow_lldp(&mut self, step: Step) {
        let Some(lldp) = &self.lldp else { return };
        let change = follow_step(&mut self.followed, lldp, &self.calculation, &step);
        match change {
            Some(c) if c.any() => self.reselect(),
            // ETS or APP may have changed; the plan is sent only if it did.
            Some(_) => self.program(),
            None => {}
        }
    }

    /// Selects the allowance again (the calculation run when its method is in force; the NIC
    /// does not measure) and programs the NIC when the plan changed.
    fn reselect(&mut self) {
        let automatic = calculate_if_in_force(&mut self.followed, &mut self.calculation);
        let buffer = self.setup.receive_buffer();
        let allowance =
            select_allowance(&self.followed.intent, automatic, &self.followed.results, buffer);
        self.followed.put_in_force(allowance, buffer);
        self.program();
    }

    /// What the port knows, for the plan.
    fn facts(&self) -> PortFacts {
        let f = &self.followed;
        PortFacts {
            driver: self.setup.driver.clone(),
            oper_pfc_enable: f.oper_pfc_enable,
            pfc_cap: self.setup.found.map_or(0, |p| p.pfc_cap),
            mbc: f.intent.dcbx.mbc,
            allowance_bits: f.allowance.bits,
            speed: self.setup.speed,
            medium: match f.intent.calculation.link_delay {
                LinkDelay::Cable { medium, .. } => medium,
                LinkDelay::OneWay(_) => Medium::Fibre,
            },
            buffers: self.setup.found_buffer.map(|b| BufferFacts {
                max_frame: self.setup.max_frame,
                allocation_octets: f.intent.buffer_allocation_octets,
                total_size: b.total_size,
            }),
            ets_app: self.ets_app_facts(),
        }
    }

    /// ETS and APP as DCBX left them (none without our agent), and the NIC's APP table.
    fn ets_app_facts(&self) -> EtsAppFacts {
        let view = &self.followed.lldp_view;
        let (admin, state) = (view.ours.admin(), view.ours.state());
        let enabled = view.enabled;
        EtsAppFacts {
            ets: admin
                .ets
                .clone()
                .zip(state.ets.clone())
                .filter(|_| enabled)
                .map(|(admin, oper)| EtsFacts { admin, oper }),
            app: state.app.clone().filter(|_| enabled),
            apps_on_nic: self.apps_on_nic.clone(),
        }
    }

    /// Puts the plan on the NIC if it is not what was last sent; each refusal is logged.
    fn program(&mut self) {
        if !self.setup.dcbx_owner.pfcd_runs_dcbx() {
            return;
        }
        let plan = Plan::for_port(&self.facts());
        if self.given.as_ref() == Some(&plan) {
            return;
        }
        let outcome = apply(&mut self.dcb, &self.setup.name, &plan);
        // A peer whose DCBX flaps changes the plan as often as it likes: bounded per port.
        let admit = |kind, level| pfc_logging::limit::admit(&self.setup.name, kind, level);
        let delay = plan.delay.describe();
        if plan.delay.clamped() && admit(CLAMPED, Level::WARN) {
            warn!(delay = %delay, allowance = self.followed.allowance.bits, "{CLAMPED}");
        }
        if let Some(buffers) = plan.buffers.filter(|b| b.clamped) {
            if admit(BUFFERS_CUT, Level::WARN) {
                warn!(buffers = %buffers.describe(), allowance = self.followed.allowance.bits, "{BUFFERS_CUT}");
            }
        }
        for r in &outcome.refused {
            if admit(REFUSED, Level::WARN) {
                warn!(object = r.object.as_str(), error = %r.error, "{REFUSED}");
            }
        }
        if !outcome.applied.is_empty() && admit(PROGRAMMED, Level::INFO) {
            let applied: Vec<_> = outcome.applied.iter().map(|o| o.as_str()).collect();
            info!(pfc_enable = plan.pfc.pfc_en, delay = %delay, applied = %applied.join(", "), "{PROGRAMMED}");
        }
        let apps_taken = [PlannedObject::AppDelete, PlannedObject::AppAdd]
            .iter()
            .all(|o| !outcome.refused.iter().any(|r| r.object == *o));
        self.state.update(|s| {
            s.programmed = Some(Programmed { plan: plan.clone(), outcome, at: SystemTime::now() })
        });
        match plan.apps.clone().filter(|_| apps_taken) {
            // The NIC now has the table in force: what is sent next is measured against it.
            Some(apps) => {
                self.apps_on_nic = apps.table;
                self.given = Some(Plan::for_port(&self.facts()));
            }
            None => self.given = Some(plan),
        }
    }

    /// Reads the NIC's PFC back once [`READ_BACK_EVERY`] has passed.
    fn read_back(&mut self) {
        if self.last_read.is_some_and(|t| t.elapsed() < READ_BACK_EVERY) {
            return;
        }
        self.last_read = Some(Instant::now());
        match self.dcb.ieee_get(&self.setup.name) {
            Ok((objects, _)) => {
                if let Some(pfc) = objects.pfc {
                    self.read = pfc;
                    if !self.setup.dcbx_owner.pfcd_runs_dcbx()
                        && self.followed.take_oper_pfc_enable(pfc.pfc_en)
                    {
                        self.reselect();
                    }
                }
                self.state.update(|s| {
                    s.read_back = objects.pfc;
                    s.read_back_buffer = objects.buffer;
                    s.read_back_ets = objects.ets;
                    s.read_back_apps = objects.apps.clone();
                    s.read_error = None;
                });
            }
            Err(e) => {
                let error = e.to_string();
                if self.state.read().read_error.as_ref() != Some(&error) {
                    warn!(%error, "reading the NIC's PFC back failed");
                }
                self.state.update(|s| s.read_error = Some(error));
            }
        }
    }
}

impl PortTask for NicPort {
    fn wait(&self) -> Duration {
        TICK
    }

    fn apply(&mut self, intent: PortIntent) {
        self.followed.take_intent(intent);
        let speed = self.setup.speed;
        let ours = self.followed.intent.calculation.local_delays(speed).local_delay_tlv(speed);
        if let Some(lldp) = &mut self.lldp {
            let step = lldp.apply(&self.followed.intent, TimeInterval(ours));
            self.follow_lldp(step);
        } else {
            // The operational PFC enable is the NIC's, not the configuration's.
            self.followed.take_oper_pfc_enable(self.read.pfc_en);
        }
        self.reselect();
    }

    /// The NIC sends no HMPDUs: there is nothing to measure with.
    fn measure(&mut self) {
        info!("measure-headroom: a NIC port does not measure (its NIC sends no HMPDUs)");
    }

    /// A NIC's counters cannot be reset through DCB netlink: the port counts from here on.
    fn clear_counters(&mut self) {
        self.last_read = None;
        self.read_back();
        self.base = self.read;
        self.calculation.peer_delays_refused = 0;
        self.followed.counters_cleared();
    }

    fn shutdown_lldp(&mut self) -> bool {
        self.lldp.as_mut().is_some_and(RealLldp::shutdown)
    }

    /// LLDP's step, then the NIC's PFC when it is due; the snapshot is published after every
    /// step, as a real port's is.
    fn step(&mut self, _commanded: bool) -> bool {
        if let Some(lldp) = &mut self.lldp {
            let step = lldp.poll();
            self.follow_lldp(step);
        }
        self.read_back();
        true
    }

    fn snapshot(&self) -> PortSnapshot {
        let (sent, received) = pfc_counters(&self.read, &self.base);
        let figures = PortFigures {
            speed: self.setup.speed,
            receive_buffer_size: self.setup.receive_buffer_size,
            peer_oper_pfc_enable: 0,
            sent: &sent,
            received: &received,
            priorities: [PrioritySnapshot::default(); PRIORITIES],
            simulated_time: Picos::ZERO,
            watchdog: Default::default(),
        };
        self.followed.snapshot(figures)
    }
}

/// The LLDP view of a port whose NIC's firmware keeps DCBX: no agent of pfcd's runs there.
fn no_agent_view(setup: &NicPortSetup) -> Arc<LldpView> {
    let mac = dataplane::io::link::identity(&setup.name).map(|(_, mac)| mac).unwrap_or_default();
    let ours = DcbxPort::new(&setup.name, mac, setup.system.clone(), PortSettings::default())
        .expect("the default LLDP settings are valid");
    Arc::new(LldpView {
        ours,
        peer_oper: PfcOper::local_only(&PfcAdmin::default(), PfcReason::NoPeer),
        peer_admin: PfcAdmin::default(),
        enabled: false,
        now: Duration::ZERO,
        taken: Instant::now(),
    })
}
