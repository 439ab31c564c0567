//! pfcd-lab: the lab's clock and, per port, the peer (with its side of DCBX) and the link's
//! true figures, so that a user can check the port's headroom against them; and the storms the
//! peers are asked to run ([`storms`]), with when each first held its port.

pub mod storms;

use std::sync::Arc;

use mgmt::backend::{Backend, BackendError, StateRequest, Transaction};
use netconf_proto::xml::Element;

use super::namespaces::LAB_NS;
use super::watchdog::class_name;
use super::xml::{leaf, pfc_enable_bits};
use crate::lab::storm::PeerStorm;
use crate::lab::Lab;
use dataplane::watchdog::CLASSES;

/// The backend of pfcd-lab.
pub struct LabBackend {
    lab: Arc<Lab>,
}

impl LabBackend {
    pub fn new(lab: Arc<Lab>) -> Self {
        LabBackend { lab }
    }
}

impl LabBackend {
    fn port_names(&self) -> Vec<&str> {
        self.lab.ports.iter().map(|p| p.name.as_str()).collect()
    }
}

/// A port's `peer-storm` entries: each class asked, with when it first held the port.
fn peer_storms(storm: &PeerStorm) -> Vec<Element> {
    let ns = LAB_NS;
    let (asked, began) = (storm.asked(), storm.began());
    (0..CLASSES)
        .filter(|class| asked & (1 << class) != 0)
        .map(|class| {
            let mut e = Element::new(ns, "peer-storm").with(leaf(ns, "class", class_name(class)));
            if let Some(t) = began[class] {
                e.push(leaf(ns, "began", mgmt::notify::format_time(t)));
            }
            e
        })
        .collect()
}

impl Backend for LabBackend {
    fn name(&self) -> &str {
        "lab"
    }

    fn modules(&self) -> Vec<String> {
        vec!["pfcd-lab".to_string()]
    }

    /// Refuses a storm the lab cannot run (see [`storms::refusal`]).
    fn prepare(&self, tx: &Transaction<'_>) -> Result<(), BackendError> {
        let ports = self.port_names();
        let (old, new) = (storms::storms(tx.old), storms::storms(tx.new));
        storms::refusal(&old, &new, &ports, self.lab.traffic).map_or(Ok(()), Err)
    }

    /// Each port's peer runs the storms asked for it, and ends the others.
    fn apply(&self, tx: &Transaction<'_>) {
        let asked = storms::asked(&storms::storms(tx.new), &self.port_names());
        for (storm, classes) in self.lab.storms.iter().zip(asked) {
            storm.ask(classes);
        }
    }

    fn state(&self, _request: &StateRequest<'_>) -> Result<Vec<Element>, BackendError> {
        let ns = LAB_NS;
        let clock = &self.lab.clock;
        let wall = clock.wall();
        // The slowest port's time: every port has reached it.
        let simulated =
            self.lab.ports.iter().map(|p| p.snapshot().simulated_time).min().unwrap_or_default();
        let wall_ps = clock.elapsed().as_secs_f64() * 1e12;
        let ratio = if wall.0 == 0 { 0.0 } else { simulated.0 as f64 / wall_ps };
        let mut lab = Element::new(ns, "lab").with(
            Element::new(ns, "clock")
                .with(leaf(ns, "started", mgmt::notify::format_time(clock.started_at)))
                .with(leaf(ns, "simulated-time", simulated.0))
                .with(leaf(ns, "wall-time", wall.0))
                .with(leaf(ns, "ratio", format!("{ratio:.6}"))),
        );
        for ((link, port), storm) in
            self.lab.links.iter().zip(&self.lab.ports).zip(&self.lab.storms)
        {
            let truth = link.truth();
            let view = port.snapshot().lldp.clone();
            let medium = match link.medium {
                dataplane::sim::Medium::Fibre => "fibre",
                dataplane::sim::Medium::Copper => "copper",
            };
            let stations = link.stations(0);
            let offered = 100;
            let mut entry = Element::new(ns, "port")
                .with(leaf(ns, "name", &link.name))
                .with(leaf(ns, "peer", &link.peer))
                .with(leaf(ns, "peer-mac-address", link.peer_mac.to_string().to_uppercase()))
                .with(leaf(ns, "link-speed", link.speed.bits_per_second()))
                .with(leaf(ns, "link-length", link.metres))
                .with(leaf(ns, "medium", medium))
                .with(leaf(ns, "one-way-delay", truth.one_way.0))
                .with(leaf(ns, "true-round-trip", truth.round_trip.0))
                .with(leaf(ns, "true-round-trip-quanta", truth.round_trip_quanta))
                .with(leaf(ns, "true-headroom", truth.headroom_bits))
                .with(
                    Element::new(ns, "peer-dcbx")
                        .with(leaf(ns, "willing", view.peer_admin.willing))
                        .with(leaf(
                            ns,
                            "admin-pfc-enable",
                            pfc_enable_bits(view.peer_admin.pfc_enable),
                        ))
                        .with(leaf(
                            ns,
                            "oper-pfc-enable",
                            pfc_enable_bits(view.peer_oper.pfc_enable),
                        ))
                        .with(leaf(ns, "pfc-enable-source", view.peer_oper.source.as_str())),
                )
                .with(
                    Element::new(ns, "priority")
                        .with(leaf(ns, "priority", stations.priority))
                        .with(leaf(ns, "offered-load", offered))
                        .with(leaf(ns, "drain-rate", link.drain_percent)),
                );
            for e in peer_storms(storm) {
                entry.push(e);
            }
            lab.push(entry);
        }
        Ok(vec![lab])
    }
}
