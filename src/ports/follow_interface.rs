//! What one step of a real interface's LLDP agent changes for its port, whatever carries the
//! port's frames (pfcd's bridge or the NIC): DCBX's outcome and the calculation's inputs.

use dataplane::headroom::allowance::AutomaticCalculation;

use crate::ports::calculation::Calculation;
use crate::ports::follow::{DcbxChange, Followed};
use crate::ports::interface_lldp::RealLldp;
use crate::ports::lldp_view::Step;

/// What a step changed.
pub struct StepChange {
    /// DCBX's outcome: operational PFC Enable, the headroom method agreed.
    pub dcbx: DcbxChange,
    /// The calculation's inputs moved (the peer's Local Delay, say): it runs again.
    pub recalculate: bool,
}

impl StepChange {
    /// Whether the allowance must be selected again.
    pub fn any(&self) -> bool {
        self.dcbx.oper_pfc_enable || self.dcbx.method || self.recalculate
    }
}

/// Reports the agent's events and takes `step` into `followed`; `None` when the step was
/// nothing to follow.
pub fn follow_step(
    followed: &mut Followed,
    lldp: &RealLldp,
    calculation: &Calculation,
    step: &Step,
) -> Option<StepChange> {
    if !followed.take_step(step, || lldp.remote_statistics(), || lldp.view()) {
        return None;
    }
    let peer_delay = Calculation::peer_delay(&followed.lldp_view);
    let inputs = calculation.inputs(&followed.intent.calculation, peer_delay);
    let recalculate = calculation.stale(&inputs);
    let dcbx = followed.take_dcbx(
        lldp.oper_pfc_enable(followed.intent.pfc_enable),
        followed.lldp_view.agreed_headroom(),
    );
    Some(StepChange { dcbx, recalculate })
}

/// The automatic calculation in force, the link-delay calculation run first when it is part
/// of it (with the peer's Local Delay, if it is sane) and its result kept in `followed`.
pub fn calculate_if_in_force(
    followed: &mut Followed,
    calculation: &mut Calculation,
) -> AutomaticCalculation {
    let automatic = followed.method_in_force().automatic();
    if matches!(automatic, AutomaticCalculation::LinkDelay | AutomaticCalculation::Both) {
        let f = followed;
        let peer_delay =
            calculation.sane_peer_delay(&f.name, Calculation::peer_delay(&f.lldp_view));
        let inputs = calculation.inputs(&f.intent.calculation, peer_delay);
        calculation.run(&f.name, inputs, &mut f.results);
        f.peer_delays_refused = calculation.peer_delays_refused;
    }
    automatic
}
