//! The transmit and transmit timer state machines of IEEE 802.1AB-2016 (9.2.8, 9.2.9;
//! Figures 9-1 and 9-2), driven by deadlines instead of a one-second tick.
//!
//! ```text
//! timer:  INITIALIZE (txTTR 0, txCredit = txCreditMax, txFast 0)
//!         IDLE --txTTR expired--> EXPIRES (txFast--) --> SIGNAL_TX
//!              --newNeighbor / localChange--> FAST_START (txFast = txFastInit) --> EXPIRES
//!              --txTick (every second)--> txCredit++ (up to txCreditMax)
//!         SIGNAL_TX: txNow; txTTR = txFast > 0 ? msgFastTx : msgTxInterval
//! tx:     IDLE --txNow && txCredit > 0--> INFO_FRAME (send, txCredit--)
//!              --adminStatus loses tx--> SHUTDOWN_FRAME (send TTL 0; wait reinitDelay)
//!         any state --!portEnabled--> LLDP_INITIALIZE (nothing sent, no wait)
//! ```
//!
//! Where this departs from the figures, on purpose (DECISIONS.md, "LLDP agent and DCBX"):
//! a local change starts a fast burst like a new neighbour does, not a single LLDPDU, so a
//! DCBX change survives the loss of one frame; the one-second txTick runs only while credit is
//! below txCreditMax, so an idle agent has no timer but its next transmission.

use std::time::Duration;

use super::AgentConfig;

const TICK: Duration = Duration::from_secs(1);

/// What the transmitter wants done now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TxAction {
    /// Send an LLDPDU with the current information.
    Info,
    /// Send a shutdown LLDPDU (TTL 0).
    Shutdown,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct Transmitter {
    /// TX_IDLE reached: the transmitter runs.
    running: bool,
    /// txTTR as a deadline.
    next_tx: Duration,
    tx_fast: u8,
    tx_credit: u8,
    /// The next txTick while credit is below the maximum.
    next_tick: Option<Duration>,
    /// txNow waiting for credit.
    tx_now: bool,
    /// txShutdownWhile as a deadline: the transmitter may not restart before it.
    shutdown_until: Option<Duration>,
}

impl Transmitter {
    /// Brings the transmitter to the state `enabled` (portEnabled && adminStatus has tx) asks
    /// for. `port_up` is false when the port is (or just went) down.
    ///
    /// Losing transmit on a port that is up is an admin disable: TX_SHUTDOWN_FRAME sends a
    /// shutdown LLDPDU and txShutdownWhile holds the restart back for reinitDelay. A port that
    /// is down goes to TX_LLDP_INITIALIZE (802.1AB-2016 Figure 9-1, `!portEnabled`), which has
    /// no such wait and ends one in progress, so a link flap re-agrees as soon as it is back.
    pub(crate) fn set_enabled(
        &mut self,
        enabled: bool,
        port_up: bool,
        config: &AgentConfig,
        now: Duration,
        out: &mut Vec<TxAction>,
    ) {
        if !port_up {
            self.shutdown_until = None;
        }
        if self.running && !enabled {
            self.running = false;
            self.tx_now = false;
            self.next_tick = None;
            if port_up {
                out.push(TxAction::Shutdown);
                self.shutdown_until = Some(now + config.reinit());
            }
        } else if !self.running && enabled {
            self.poll(true, config, now, out);
        }
    }

    /// TX_TIMER_INITIALIZE: the first LLDPDU goes out at once.
    fn initialize(&mut self, config: &AgentConfig, now: Duration) {
        *self = Transmitter {
            running: true,
            next_tx: now,
            tx_fast: 0,
            tx_credit: config.tx_credit_max,
            next_tick: None,
            tx_now: false,
            shutdown_until: None,
        };
    }

    /// A local change (localChange): SIGNAL_TX, one LLDPDU at once within the credit and the
    /// timer restarted. Not a fast start: 802.1AB starts one only for a new neighbour, and a
    /// burst per change would spend the credit of an operator's next commits (each change
    /// must reach the peer at once, not after the burst of the one before has drained it).
    pub(crate) fn local_change(&mut self, config: &AgentConfig, now: Duration) {
        if !self.running {
            return;
        }
        self.tx_now = true;
        let wait = if self.tx_fast > 0 { config.fast_tx() } else { config.tx_interval() };
        self.next_tx = now + wait;
    }

    /// newNeighbor: TX_FAST_START.
    pub(crate) fn fast_start(&mut self, config: &AgentConfig, now: Duration) {
        if !self.running {
            return;
        }
        if self.tx_fast == 0 {
            self.tx_fast = config.tx_fast_init;
        }
        self.next_tx = now;
    }

    /// Runs the machines up to `now`; `enabled` as for [`Transmitter::set_enabled`].
    pub(crate) fn poll(
        &mut self,
        enabled: bool,
        config: &AgentConfig,
        now: Duration,
        out: &mut Vec<TxAction>,
    ) {
        if !self.running {
            if self.shutdown_until.is_some_and(|t| t > now) {
                return;
            }
            self.shutdown_until = None;
            if !enabled {
                return;
            }
            self.initialize(config, now);
        }
        while let Some(tick) = self.next_tick.filter(|t| *t <= now) {
            self.tx_credit = (self.tx_credit + 1).min(config.tx_credit_max);
            self.next_tick = (self.tx_credit < config.tx_credit_max).then_some(tick + TICK);
        }
        if self.next_tx <= now {
            // TX_TIMER_EXPIRES, then SIGNAL_TX.
            self.tx_fast = self.tx_fast.saturating_sub(1);
            self.tx_now = true;
            let wait = if self.tx_fast > 0 { config.fast_tx() } else { config.tx_interval() };
            self.next_tx = now + wait;
        }
        if self.tx_now && self.tx_credit > 0 {
            self.tx_now = false;
            self.tx_credit -= 1;
            if self.next_tick.is_none() {
                self.next_tick = Some(now + TICK);
            }
            out.push(TxAction::Info);
        }
    }

    /// The next time [`Transmitter::poll`] has something to do.
    pub(crate) fn next_deadline(&self) -> Option<Duration> {
        if !self.running {
            return self.shutdown_until;
        }
        let tick = if self.tx_now { self.next_tick } else { None };
        Some(tick.map_or(self.next_tx, |t| t.min(self.next_tx)))
    }

    /// Credit left, for tests and state.
    pub(crate) fn credit(&self) -> u8 {
        self.tx_credit
    }

    pub(crate) fn fast(&self) -> u8 {
        self.tx_fast
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: fn(u64) -> Duration = Duration::from_secs;
    const MS: fn(u64) -> Duration = Duration::from_millis;

    /// Runs the transmitter deadline by deadline until `end`; returns when each frame went out.
    fn run(
        tx: &mut Transmitter,
        config: &AgentConfig,
        from: Duration,
        end: Duration,
    ) -> Vec<(Duration, TxAction)> {
        let mut sent = Vec::new();
        let mut now = from;
        while now <= end {
            let mut out = Vec::new();
            tx.poll(true, config, now, &mut out);
            sent.extend(out.into_iter().map(|a| (now, a)));
            match tx.next_deadline() {
                Some(t) if t > now => now = t,
                _ => break,
            }
        }
        sent
    }

    #[test]
    fn first_lldpdu_at_once_then_every_interval() {
        let c = AgentConfig::default();
        let mut tx = Transmitter::default();
        let sent = run(&mut tx, &c, S(0), S(95));
        let times: Vec<_> = sent.iter().map(|(t, _)| *t).collect();
        assert_eq!(times, vec![S(0), S(30), S(60), S(90)]);
        assert!(sent.iter().all(|(_, a)| *a == TxAction::Info));
    }

    #[test]
    fn new_neighbour_gives_tx_fast_init_frames_msg_fast_tx_apart() {
        let c = AgentConfig::default();
        let mut tx = Transmitter::default();
        run(&mut tx, &c, S(0), S(0));
        tx.fast_start(&c, S(10));
        let times: Vec<_> = run(&mut tx, &c, S(10), S(50)).into_iter().map(|(t, _)| t).collect();
        // Four fast frames (txFastInit) one second apart, then back to msgTxInterval.
        assert_eq!(times, vec![S(10), S(11), S(12), S(13), S(43)]);
        assert_eq!(tx.fast(), 0);
    }

    #[test]
    fn a_local_change_sends_one_lldpdu_at_once_and_no_burst() {
        let c = AgentConfig::default();
        let mut tx = Transmitter::default();
        run(&mut tx, &c, S(0), S(0));
        tx.local_change(&c, MS(10_500));
        let times: Vec<_> =
            run(&mut tx, &c, MS(10_500), S(80)).into_iter().map(|(t, _)| t).collect();
        // At once, then msgTxInterval from the change: one credit per change, so a change a
        // second never waits.
        assert_eq!(times, vec![MS(10_500), MS(40_500), MS(70_500)]);
        assert_eq!(tx.fast(), 0);
        for second in 81..100 {
            tx.local_change(&c, S(second));
            let mut out = Vec::new();
            tx.poll(true, &c, S(second), &mut out);
            assert_eq!(out, vec![TxAction::Info], "the change at {second} s went out at once");
        }
    }

    #[test]
    fn credit_limits_bursts_and_returns_one_per_second() {
        let c = AgentConfig { tx_credit_max: 2, ..AgentConfig::default() };
        let mut tx = Transmitter::default();
        let mut out = Vec::new();
        tx.poll(true, &c, S(0), &mut out); // credit 2 -> 1
        tx.local_change(&c, MS(100));
        tx.poll(true, &c, MS(100), &mut out); // credit 1 -> 0
        assert_eq!(tx.credit(), 0);
        // A local change now cannot send until a credit returns at 1 s.
        tx.local_change(&c, MS(200));
        tx.poll(true, &c, MS(200), &mut out);
        assert_eq!(out.len(), 2);
        assert_eq!(tx.next_deadline(), Some(S(1)));
        tx.poll(true, &c, S(1), &mut out);
        assert_eq!(out.len(), 3);
    }

    #[test]
    fn disable_sends_shutdown_and_waits_reinit_delay() {
        let c = AgentConfig::default();
        let mut tx = Transmitter::default();
        let mut out = Vec::new();
        tx.poll(true, &c, S(0), &mut out);
        tx.set_enabled(false, true, &c, S(5), &mut out);
        assert_eq!(out, vec![TxAction::Info, TxAction::Shutdown]);
        // Re-enabled 1 s later: reinitDelay (2 s) holds it back until 7 s.
        out.clear();
        tx.set_enabled(true, true, &c, S(6), &mut out);
        assert!(out.is_empty());
        assert_eq!(tx.next_deadline(), Some(S(7)));
        tx.poll(true, &c, S(7), &mut out);
        assert_eq!(out, vec![TxAction::Info]);
    }

    #[test]
    fn port_down_sends_nothing() {
        let c = AgentConfig::default();
        let mut tx = Transmitter::default();
        let mut out = Vec::new();
        tx.poll(true, &c, S(0), &mut out);
        out.clear();
        tx.set_enabled(false, false, &c, S(5), &mut out);
        assert!(out.is_empty());
        // No shutdown was sent, so nothing holds the restart back.
        tx.set_enabled(true, true, &c, MS(5100), &mut out);
        assert_eq!(out, vec![TxAction::Info]);
    }
}
