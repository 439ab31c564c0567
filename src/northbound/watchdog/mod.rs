//! pfcd-watchdog: each Bridge Port's PFC watchdog, one file per direction: [`config`] (the
//! port's `pfc-watchdog` settings into the port's intent), [`state`] (each class's status and
//! counters), [`notification`] (`storm-detected`, `storm-restored` from the ports' events).

pub mod config;
pub mod notification;
pub mod state;

use dataplane::watchdog::LINK_PAUSE;
use pfc_yang_names::pfcd_watchdog as wd;

/// A class's name in the module: its priority, or `link-pause`.
pub fn class_name(class: usize) -> String {
    if class == LINK_PAUSE {
        wd::LINK_PAUSE.to_string()
    } else {
        class.to_string()
    }
}
