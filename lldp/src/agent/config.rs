//! The per-port LLDP settings of IEEE 802.1AB-2016 9.2.5 and their defaults (SPEC §2.4), named
//! as the `ieee802-dot1ab-lldp` YANG module names them.

use std::time::Duration;

use pfc_wire::MacAddr;

use crate::wire::NEAREST_BRIDGE;

/// adminStatus (9.2.5.1): which directions the agent runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum AdminStatus {
    TxOnly,
    RxOnly,
    #[default]
    TxAndRx,
    Disabled,
}

impl AdminStatus {
    pub fn tx(self) -> bool {
        matches!(self, AdminStatus::TxOnly | AdminStatus::TxAndRx)
    }

    pub fn rx(self) -> bool {
        matches!(self, AdminStatus::RxOnly | AdminStatus::TxAndRx)
    }

    /// The YANG enumeration name: `tx-only`, `rx-only`, `tx-and-rx`, `disabled`.
    pub fn as_str(self) -> &'static str {
        match self {
            AdminStatus::TxOnly => "tx-only",
            AdminStatus::RxOnly => "rx-only",
            AdminStatus::TxAndRx => "tx-and-rx",
            AdminStatus::Disabled => "disabled",
        }
    }
}

impl std::str::FromStr for AdminStatus {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s {
            "tx-only" => AdminStatus::TxOnly,
            "rx-only" => AdminStatus::RxOnly,
            "tx-and-rx" => AdminStatus::TxAndRx,
            "disabled" => AdminStatus::Disabled,
            other => {
                return Err(format!(
                    "'{other}' is not an LLDP admin status: use tx-only, rx-only, tx-and-rx or \
                     disabled"
                ))
            }
        })
    }
}

/// One port's LLDP agent settings. Times are whole seconds, as 802.1AB and the YANG module have
/// them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentConfig {
    pub admin_status: AdminStatus,
    /// Destination address of the LLDPDUs sent, and the only one accepted on receive.
    pub dest_mac_address: MacAddr,
    /// msgTxInterval, seconds between normal transmissions (1..=3600).
    pub message_tx_interval: u16,
    /// msgTxHold: TTL = msgTxInterval × msgTxHold + 1 (1..=100).
    pub message_tx_hold_multiplier: u16,
    /// msgFastTx, seconds between fast transmissions (1..=3600).
    pub message_fast_tx: u16,
    /// txFastInit: LLDPDUs sent in a fast burst (1..=8).
    pub tx_fast_init: u8,
    /// reinitDelay, seconds after a shutdown before the transmitter starts again (1..=100).
    pub reinit_delay: u16,
    /// txCreditMax: LLDPDUs that may be sent back to back; one credit returns per second
    /// (1..=10).
    pub tx_credit_max: u8,
    /// Remote systems kept for this port; an LLDPDU from one more is dropped and
    /// tooManyNeighbors set (9.2.5.15).
    pub max_neighbours: usize,
}

impl Default for AgentConfig {
    fn default() -> Self {
        AgentConfig {
            admin_status: AdminStatus::TxAndRx,
            dest_mac_address: NEAREST_BRIDGE,
            message_tx_interval: 30,
            message_tx_hold_multiplier: 4,
            message_fast_tx: 1,
            tx_fast_init: 4,
            reinit_delay: 2,
            tx_credit_max: 5,
            max_neighbours: 4,
        }
    }
}

/// A setting outside the range 802.1AB allows.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("LLDP setting {name} is {value}, outside {allowed}")]
pub struct ConfigError {
    pub name: &'static str,
    pub value: u64,
    pub allowed: &'static str,
}

impl AgentConfig {
    /// txTTL (9.2.5.22): min(65535, msgTxInterval × msgTxHold + 1) seconds.
    pub fn ttl(&self) -> u16 {
        let ttl =
            u32::from(self.message_tx_interval) * u32::from(self.message_tx_hold_multiplier) + 1;
        u16::try_from(ttl).unwrap_or(u16::MAX)
    }

    pub(crate) fn tx_interval(&self) -> Duration {
        Duration::from_secs(self.message_tx_interval.into())
    }

    pub(crate) fn fast_tx(&self) -> Duration {
        Duration::from_secs(self.message_fast_tx.into())
    }

    pub(crate) fn reinit(&self) -> Duration {
        Duration::from_secs(self.reinit_delay.into())
    }

    /// Checks every value against the ranges of 802.1AB-2016 9.2.5 (and the YANG module).
    pub fn validate(&self) -> Result<(), ConfigError> {
        let check = |name, value: u64, lo: u64, hi: u64, allowed| {
            if (lo..=hi).contains(&value) {
                Ok(())
            } else {
                Err(ConfigError { name, value, allowed })
            }
        };
        check("message-tx-interval", self.message_tx_interval.into(), 1, 3600, "1 to 3600")?;
        check(
            "message-tx-hold-multiplier",
            self.message_tx_hold_multiplier.into(),
            1,
            100,
            "1 to 100",
        )?;
        check("message-fast-tx", self.message_fast_tx.into(), 1, 3600, "1 to 3600")?;
        check("tx-fast-init", self.tx_fast_init.into(), 1, 8, "1 to 8")?;
        check("reinit-delay", self.reinit_delay.into(), 1, 100, "1 to 100")?;
        check("tx-credit-max", self.tx_credit_max.into(), 1, 10, "1 to 10")?;
        check("max-neighbours", self.max_neighbours as u64, 1, 1024, "1 to 1024")?;
        if !self.dest_mac_address.is_group() {
            return Err(ConfigError {
                name: "dest-mac-address",
                value: self.dest_mac_address.as_u64(),
                allowed: "group addresses (01-80-C2-00-00-0E, -03 or -00)",
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ttl_is_interval_times_hold_plus_one_capped() {
        assert_eq!(AgentConfig::default().ttl(), 121);
        let c = AgentConfig {
            message_tx_interval: 3600,
            message_tx_hold_multiplier: 100,
            ..Default::default()
        };
        assert_eq!(c.ttl(), 65535);
        let c = AgentConfig {
            message_tx_interval: 1,
            message_tx_hold_multiplier: 2,
            ..Default::default()
        };
        assert_eq!(c.ttl(), 3);
    }

    #[test]
    fn defaults_are_the_standard_ones_and_valid() {
        let c = AgentConfig::default();
        assert_eq!(
            (c.message_tx_interval, c.message_tx_hold_multiplier, c.message_fast_tx),
            (30, 4, 1)
        );
        assert_eq!((c.tx_fast_init, c.reinit_delay, c.tx_credit_max), (4, 2, 5));
        assert_eq!(c.validate(), Ok(()));
        let bad = AgentConfig { tx_credit_max: 0, ..c };
        assert_eq!(
            bad.validate().map_err(|e| e.to_string()),
            Err("LLDP setting tx-credit-max is 0, outside 1 to 10".into())
        );
    }

    #[test]
    fn admin_status_names() {
        for s in
            [AdminStatus::TxOnly, AdminStatus::RxOnly, AdminStatus::TxAndRx, AdminStatus::Disabled]
        {
            assert_eq!(s.as_str().parse::<AdminStatus>(), Ok(s));
        }
        assert!(!AdminStatus::Disabled.tx() && !AdminStatus::Disabled.rx());
        assert!(AdminStatus::TxOnly.tx() && !AdminStatus::TxOnly.rx());
    }
}
