//! What happens to one received frame: MAC Control is the MAC's (PFC pauses the port's
//! transmit side), link-local frames are never forwarded, data frames are classified
//! (priority from the PCP, VLAN from the tag or the port's PVID), learned, looked up, admitted
//! to the ingress port's buffer, stored once and offered to the pipeline for each port they
//! leave on.

use std::time::Instant;

use dataplane::headroom::measure::Interface;
use dataplane::mac::RxOutcome;
use dataplane::pipeline::Pipeline;
use dataplane::time::Picos;
use dataplane::watchdog::LINK_PAUSE;
use dataplane::wire::{EtherType, EthernetHeader, MacControl, PRIORITIES};
use tracing::warn;

use super::fdb::{Destination, Fdb};
use super::ingress::Admission;
use super::port::BridgePort;
use super::store::FrameStore;

/// 01-80-C2-00-00-00 to -0F: reserved for link-local protocols, never forwarded (802.1Q 8.6.3
/// Table 8-1).
fn link_local(dst: &[u8]) -> bool {
    dst.len() >= 6 && dst[..5] == [0x01, 0x80, 0xc2, 0x00, 0x00] && dst[5] <= 0x0f
}

/// VID FFF, reserved (802.1Q Table 9-2): a frame tagged with it is discarded on receipt.
const RESERVED_VID: u16 = 0xfff;

/// The bridge's forwarding state, apart from the ports.
pub struct Forwarder {
    pub engine: Pipeline,
    pub fdb: Fdb,
    pub store: FrameStore,
    /// The largest frame the pipeline carries, octets (FCS excluded).
    pub max_len: usize,
    /// A pause mode to change to once the bridge is empty.
    pub pending_mode: Option<dataplane::pipeline::PauseMode>,
    /// The longest a frame may stay in the bridge (802.1Q 6.5.6, maximum bridge transit
    /// delay): older ones are discarded when they come to leave, and counted.
    pub max_transit: Picos,
    /// A received frame's egress ports, kept from frame to frame.
    pub out: Vec<usize>,
}

impl Forwarder {
    /// Handles a frame received on port `i`, read at `at`; `arrived_ns` is the kernel's receive
    /// time (CLOCK_REALTIME) and `now` the same in the pipeline's time: a PFC frame read late
    /// still pauses from when it came in.
    pub fn receive<P>(
        &mut self,
        ports: &mut [BridgePort<P>],
        i: usize,
        frame: &[u8],
        at: Instant,
        (arrived_ns, now): (u64, Picos),
    ) {
        let nports = ports.len();
        let port = &mut ports[i];
        port.counters.rx_frames += 1;
        port.counters.rx_octets += frame.len() as u64;
        let Ok((header, _)) = EthernetHeader::parse(frame) else {
            port.counters.malformed += 1;
            log_bad(&port.setup.name, "frame shorter than an Ethernet header", frame.len(), "");
            return;
        };
        if header.ethertype == EtherType::MAC_CONTROL && header.vlan.is_none() {
            self.mac_control(port, i, frame, arrived_ns, now);
            return;
        }
        if link_local(&header.dst.0) {
            match header.ethertype {
                EtherType::LLDP => port.counters.lldpdus += 1,
                EtherType::HMPDU => {
                    port.counters.hmpdus += 1;
                    if let Some(m) = port.measure.as_mut() {
                        m.receive(now, Interface::Unprotected, frame);
                    }
                }
                _ => port.counters.link_local += 1,
            }
            return;
        }
        if frame.len() > self.max_len {
            port.counters.oversize += 1;
            log_bad(&port.setup.name, "frame longer than the bridge's largest", frame.len(), "");
            return;
        }
        if header.vlan.is_some_and(|t| t.vid == RESERVED_VID) {
            port.counters.reserved_vid += 1;
            log_bad(&port.setup.name, "frame tagged with the reserved VID 4095", frame.len(), "");
            return;
        }
        let priority = usize::from(header.priority(port.setup.default_priority)) % PRIORITIES;
        let vid = header.vlan.map(|t| t.vid).filter(|v| *v != 0).unwrap_or(port.setup.pvid);
        port.counters.rx_per_priority[priority] += 1;
        self.fdb.learn(vid, header.src, i, at);
        // The egress ports, in a list kept from frame to frame (no allocation per frame).
        let mut out = std::mem::take(&mut self.out);
        out.clear();
        match self.fdb.lookup(vid, header.dst, at) {
            Destination::Port(p) if p != i => out.push(p),
            Destination::Port(_) => {}
            // The configured ports, never the one it came from nor one whose link is down.
            Destination::Static(map) => {
                out.extend(map.iter().filter(|p| *p != i && *p < nports && ports[*p].link_up));
            }
            // Not to a port whose link is down (its learned addresses were forgotten then).
            Destination::Flood => {
                out.extend((0..nports).filter(|p| *p != i && ports[*p].link_up));
            }
        }
        // A port in a storm the watchdog drops takes no more frames of the priority.
        out.retain(|p| {
            let dropped = ports[*p].watchdog.drops(priority);
            if dropped {
                ports[*p].counters.watchdog_drops += 1;
                ports[*p].watchdog.count_dropped(priority, 1);
            }
            !dropped
        });
        self.store_and_offer(ports, i, frame, (priority, now), &mut out);
        self.out = out;
    }

    /// Admits a classified frame of port `i` to its buffer, stores it and offers it to the
    /// pipeline for each port of `out` (the lossy pool's share may take some out).
    fn store_and_offer<P>(
        &mut self,
        ports: &mut [BridgePort<P>],
        i: usize,
        frame: &[u8],
        (priority, now): (usize, Picos),
        out: &mut Vec<usize>,
    ) {
        let port = &mut ports[i];
        if out.is_empty() {
            port.counters.filtered += 1;
            return;
        }
        let lossy = port.ingress.lossy(priority);
        if lossy {
            port.ingress.share(out, frame.len());
            if out.is_empty() {
                port.counters.lossy_drops += 1;
                return;
            }
        }
        match port.ingress.admit(priority, frame.len()) {
            Admission::Stored => {}
            Admission::DroppedLossless => {
                port.counters.lossless_drops += 1;
                return;
            }
            Admission::DroppedLossy => {
                port.counters.lossy_drops += 1;
                return;
            }
        }
        if lossy {
            port.ingress.charge(out, frame.len());
        }
        let handle = self.store.put(frame, (i, priority as u8, now), out.len() as u32);
        let len = u16::try_from(frame.len()).unwrap_or(u16::MAX);
        for &p in out.iter() {
            // The pipeline queues by traffic class (8.6.6).
            let class = ports[p].class_of(priority);
            if let Err(e) = self.engine.offer(p, class, len, handle) {
                // (Cannot happen: ports, priorities and lengths were checked above.)
                warn!(error = %e, "pipeline refused a frame");
                self.release(ports, handle, p);
            }
        }
    }

    /// Whether port `i`'s buffer has room for `frame` now: false only for a frame of a lossless
    /// priority whose allocation it would overflow. Such a frame is left where it waits (the
    /// receive ring, part of the priority's buffer) rather than dropped.
    pub fn has_room<P>(&self, port: &BridgePort<P>, frame: &[u8]) -> bool {
        let Ok((header, _)) = EthernetHeader::parse(frame) else { return true };
        if header.ethertype == EtherType::MAC_CONTROL && header.vlan.is_none() {
            return true;
        }
        let priority = usize::from(header.priority(port.setup.default_priority)) % PRIORITIES;
        port.ingress.has_room(priority, frame.len())
    }

    /// A MAC Control frame on port `i`: PFC (or, with PFC off, PAUSE) pauses the port's
    /// transmit side in the pipeline.
    fn mac_control<P>(
        &mut self,
        port: &mut BridgePort<P>,
        i: usize,
        frame: &[u8],
        arrived_ns: u64,
        now: Picos,
    ) {
        let control = match MacControl::parse(frame) {
            Ok(c) => c,
            Err(e) => {
                port.counters.bad_mac_control += 1;
                log_bad(&port.setup.name, "MAC Control frame", frame.len(), e);
                return;
            }
        };
        if matches!(control, MacControl::Pause(_))
            && port.setup.watchdog.ignore_link_pause
            && port.receiver.pfc_enable() == 0
        {
            port.counters.link_pause_ignored += 1;
            return;
        }
        match port.receiver.receive(now, &control, Picos::ZERO) {
            RxOutcome::PfcApplied { priorities } => {
                port.counters.pfc_indications += 1;
                let MacControl::Pfc(pfc) = control else { return };
                if pfc.enable & !port.setup.pfc_enable != 0 {
                    port.counters.pfc_to_disabled_priority += 1;
                    log_bad(
                        &port.setup.name,
                        "PFC frame names priorities whose PFC is not enabled (ignored for them)",
                        frame.len(),
                        format_args!("{:#04x}", pfc.enable & !port.setup.pfc_enable),
                    );
                }
                for n in (0..PRIORITIES).filter(|n| priorities & (1 << n) != 0) {
                    port.watchdog.pause_received(now, n, port.receiver.paused_until(n));
                    port.long_pauses.note(n, now, port.receiver.paused_until(n));
                }
                // Pauses of a priority the watchdog found stormed hold nothing.
                let priorities = priorities & port.watchdog.honoured();
                let indicated_ns = super::reaction::now_ns();
                for n in 0..PRIORITIES {
                    if priorities & (1 << n) != 0 && pfc.time[n] != 0 {
                        port.reaction.paused(n, arrived_ns, indicated_ns);
                    }
                }
                if priorities != 0 {
                    // The pipeline pauses traffic classes: each class whose priorities the
                    // frame names, for as long as the longest pause among its priorities.
                    let classes = (0..PRIORITIES)
                        .filter(|n| priorities & (1 << n) != 0)
                        .fold(0u8, |m, n| m | (1 << port.class_of(n)));
                    let times = port.class_pauses(now, self.max_transit);
                    self.engine.schedule_pfc(now, i, classes, times);
                }
            }
            RxOutcome::LinkPauseApplied => {
                // The pipeline pauses per priority: a link pause is all eight at once.
                let MacControl::Pause(pause) = control else { return };
                let until = port.receiver.paused_until(0);
                port.watchdog.pause_received(now, LINK_PAUSE, until);
                if port.watchdog.honoured() == 0xff {
                    self.engine.schedule_pfc(now, i, 0xff, [pause.pause_time; PRIORITIES]);
                }
            }
            RxOutcome::PauseIgnored
            | RxOutcome::PfcIgnored
            | RxOutcome::DiscardedWrongDestination => port.counters.mac_control_ignored += 1,
        }
    }

    /// One copy of a stored frame, toward `egress`, is done with (sent, or refused); the last
    /// frees the ingress port's buffer.
    pub fn release<P>(&mut self, ports: &mut [BridgePort<P>], handle: u32, egress: usize) {
        let copy = self.store.origin(handle);
        if let Some((in_port, priority, len)) = copy {
            if let Some(p) = ports.get_mut(in_port).filter(|p| p.ingress.lossy(priority.into())) {
                p.ingress.uncharge(egress, len);
            }
        }
        if let Some(freed) = self.store.release(handle) {
            if let Some(p) = ports.get_mut(freed.in_port) {
                p.ingress.release(usize::from(freed.priority), freed.len);
            }
        }
    }
}

/// Logs a bad frame of kind `what` on `port` (the port counters count every one). A peer
/// decides how many come: the first few of each kind and port in a while are logged, and then
/// how many more there were (`pfc_logging::limit`).
fn log_bad(port: &str, what: &'static str, len: usize, detail: impl std::fmt::Display) {
    if !pfc_logging::limit::admit(port, what, tracing::Level::WARN) {
        return;
    }
    match detail.to_string() {
        d if d.is_empty() => warn!(port, len, "discarded: {what}"),
        d => warn!(port, len, "discarded: {what}: {d}"),
    }
}

#[cfg(test)]
mod tests {
    use dataplane::pipeline::PauseMode;
    use dataplane::time::LinkSpeed;
    use dataplane::wire::{EthernetHeader, MacAddr, VlanTag};

    use super::*;
    use crate::port::BridgePortSetup;

    const MAX_LEN: u16 = 1522;

    fn bridge() -> (Forwarder, Vec<BridgePort<()>>) {
        bridge_of(&["p1", "p2"])
    }

    fn bridge_of(names: &[&str]) -> (Forwarder, Vec<BridgePort<()>>) {
        let speed = LinkSpeed::G10;
        let ports: Vec<_> = names
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let mac = MacAddr([2, 0, 0, 0, 0x0f, i as u8]);
                BridgePort::new(BridgePortSetup::new(name, 1 << 3), (), mac, speed).expect("port")
            })
            .collect();
        let config = crate::pipeline_config(ports.len(), PauseMode::External, speed, MAX_LEN);
        let fwd = Forwarder {
            engine: Pipeline::new(config).expect("engine"),
            fdb: crate::fdb::Fdb::new(crate::fdb::DEFAULT_AGEING),
            store: crate::store::FrameStore::default(),
            max_len: usize::from(MAX_LEN),
            pending_mode: None,
            max_transit: Picos::from_ms(1_000),
            out: Vec::new(),
        };
        (fwd, ports)
    }

    fn tagged(vid: u16, len: usize) -> Vec<u8> {
        let header = EthernetHeader {
            dst: MacAddr([2, 0, 0, 0, 0, 0xb]),
            src: MacAddr([2, 0, 0, 0, 0, 0xa]),
            vlan: Some(VlanTag { pcp: 0, dei: false, vid }),
            ethertype: EtherType(0x0800),
        };
        let mut frame = vec![0u8; len];
        header.emit(&mut frame).expect("header");
        frame
    }

    /// VID 4095 is reserved (802.1Q Table 9-2): such a frame is discarded and counted, never
    /// learned from or forwarded; VID 4094 is forwarded.
    #[test]
    fn a_frame_tagged_with_vid_4095_is_discarded_and_counted() {
        let (mut fwd, mut ports) = bridge();
        let at = Instant::now();
        fwd.receive(&mut ports, 0, &tagged(4095, 100), at, (0, Picos::ZERO));
        assert_eq!(ports[0].counters.reserved_vid, 1);
        assert_eq!(fwd.store.in_use(), 0, "not forwarded");
        assert!(fwd.fdb.is_empty(), "not learned from");
        fwd.receive(&mut ports, 0, &tagged(4094, 100), at, (0, Picos::ZERO));
        assert_eq!(ports[0].counters.reserved_vid, 1);
        assert_eq!(fwd.store.in_use(), 1, "VID 4094 is forwarded");
    }

    /// Frames to an address with a static entry leave through its port alone, even before any
    /// frame from it was seen (no flood); with the port's link down, or with an empty port
    /// map (filter), they are discarded and counted.
    #[test]
    fn a_frame_to_a_static_address_leaves_through_its_port_alone() {
        use crate::static_entries::{PortMap, StaticEntry};
        let (mut fwd, mut ports) = bridge_of(&["p1", "p2", "p3"]);
        let at = Instant::now();
        let queued = |fwd: &Forwarder, p: usize| fwd.engine.backlog(p, 0);
        let unknown = |fwd: &Forwarder| (0..3).map(|p| queued(fwd, p)).collect::<Vec<_>>();
        fwd.receive(&mut ports, 0, &tagged(1, 100), at, (0, Picos::ZERO));
        assert_eq!(unknown(&fwd), vec![0, 1, 1], "without an entry: flooded");
        let b = MacAddr([2, 0, 0, 0, 0, 0xb]);
        fwd.fdb.set_static(&[StaticEntry { vid: 1, address: b, forward: PortMap::of([2]) }]);
        fwd.receive(&mut ports, 0, &tagged(1, 100), at, (0, Picos::ZERO));
        assert_eq!(unknown(&fwd), vec![0, 1, 2], "to port p3 alone");
        ports[2].link_up = false;
        fwd.receive(&mut ports, 0, &tagged(1, 100), at, (0, Picos::ZERO));
        assert_eq!(unknown(&fwd), vec![0, 1, 2], "not flooded while its port is down");
        assert_eq!(ports[0].counters.filtered, 1);
        ports[2].link_up = true;
        fwd.fdb.set_static(&[StaticEntry { vid: 1, address: b, forward: PortMap::default() }]);
        fwd.receive(&mut ports, 0, &tagged(1, 100), at, (0, Picos::ZERO));
        assert_eq!(unknown(&fwd), vec![0, 1, 2], "filtered");
        assert_eq!(ports[0].counters.filtered, 2);
    }

    /// A frame longer than the largest the bridge forwards is discarded and counted.
    #[test]
    fn a_frame_over_the_largest_is_discarded_and_counted() {
        let (mut fwd, mut ports) = bridge();
        fwd.receive(
            &mut ports,
            0,
            &tagged(1, usize::from(MAX_LEN) + 1),
            Instant::now(),
            (0, Picos::ZERO),
        );
        assert_eq!(ports[0].counters.oversize, 1);
        assert_eq!(fwd.store.in_use(), 0);
    }
}
