//! ETS and the APP table as DCBX left them in force, turned into what the NIC is given:
//! `struct ieee_ets` (the tables in force, our recommendation), and the APP entries to delete
//! and to add so that the NIC's table becomes the one in force, as `dcb app replace` does.

use lldp::dcbx::{AppOper, EtsAdmin, EtsOper, EtsReason, Source};
use pfc_dcb::kernel::EIGHT;
use pfc_dcb::{DcbApp, IeeeEts};

/// What DCBX left in force of ETS and APP on a port, and the NIC's APP table as last known.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EtsAppFacts {
    /// `None`: ETS is not configured on the port, and the NIC's is left as it is.
    pub ets: Option<EtsFacts>,
    /// `None`: APP is not configured on the port, and the NIC's table is left as it is.
    pub app: Option<AppOper>,
    pub apps_on_nic: Vec<DcbApp>,
}

/// ETS as DCBX left it on the port (configured, and what negotiation put in force).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EtsFacts {
    pub admin: EtsAdmin,
    pub oper: EtsOper,
}

/// The `ieee_ets` given, and where its tables came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EtsGiven {
    pub ets: IeeeEts,
    pub source: Source,
    pub reason: EtsReason,
}

impl EtsGiven {
    /// The tables in force as the NIC's configuration; our own recommendation, if we send one,
    /// as its recommendation (what a host-managed NIC reports to a reader such as `dcb ets`).
    pub fn for_port(facts: &EtsFacts) -> Self {
        let (config, tables) = (&facts.admin.config, &facts.oper.tables);
        let mut ets = IeeeEts {
            willing: u8::from(config.willing),
            ets_cap: if config.max_tcs == 0 { EIGHT as u8 } else { config.max_tcs },
            cbs: u8::from(config.cbs),
            tc_tx_bw: tables.tc_bandwidth,
            tc_tsa: tables.tsa.map(|t| t.0),
            prio_tc: tables.priority_tc,
            ..IeeeEts::default()
        };
        if let Some(reco) = &facts.admin.recommendation {
            ets.tc_reco_bw = reco.tc_bandwidth;
            ets.tc_reco_tsa = reco.tsa.map(|t| t.0);
            ets.reco_prio_tc = reco.priority_tc;
        }
        EtsGiven { ets, source: facts.oper.source, reason: facts.oper.reason }
    }
}

/// The APP table in force, and the difference from the NIC's table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppsGiven {
    /// The table in force, in DCBX's order.
    pub table: Vec<DcbApp>,
    /// Whether the peer's entries are in it.
    pub source: Source,
    /// The NIC's entries not in force: deleted first.
    pub delete: Vec<DcbApp>,
    /// The entries in force the NIC does not have: added after.
    pub add: Vec<DcbApp>,
}

impl AppsGiven {
    /// `oper` against `on_nic`, the NIC's table as last known (read at start, then as pfcd
    /// changed it). pfcd keeps the whole table: an entry it did not put there goes.
    pub fn for_port(oper: &AppOper, on_nic: &[DcbApp]) -> Self {
        let table: Vec<DcbApp> = oper
            .entries
            .iter()
            .map(|e| DcbApp { selector: e.selector.0, priority: e.priority, protocol: e.protocol })
            .collect();
        let delete = on_nic.iter().filter(|a| !table.contains(a)).copied().collect();
        let add = table.iter().filter(|a| !on_nic.contains(a)).copied().collect();
        AppsGiven { table, source: oper.source, delete, add }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lldp::wire::{AppEntry, AppSelector, EtsTables, Tsa};

    fn roce(priority: u8) -> AppEntry {
        AppEntry { priority, selector: AppSelector::UDP_DCCP_PORT, protocol: 4791 }
    }

    #[test]
    fn a_peers_recommendation_in_force_is_the_nics_configuration_and_ours_its_recommendation() {
        let mut admin = EtsAdmin::default();
        admin.config.willing = true;
        admin.recommendation = Some(EtsAdmin::default().config.tables);
        let theirs = EtsTables {
            priority_tc: [0, 0, 0, 1, 0, 0, 0, 0],
            tc_bandwidth: [40, 60, 0, 0, 0, 0, 0, 0],
            tsa: [
                Tsa::ETS,
                Tsa::ETS,
                Tsa::STRICT,
                Tsa::STRICT,
                Tsa::STRICT,
                Tsa::STRICT,
                Tsa::STRICT,
                Tsa::STRICT,
            ],
        };
        let oper =
            EtsOper { tables: theirs, source: Source::Peer, reason: EtsReason::PeerRecommendation };
        let given = EtsGiven::for_port(&EtsFacts { admin, oper });
        let e = given.ets;
        assert_eq!((e.willing, e.ets_cap, e.cbs), (1, 8, 0));
        assert_eq!(e.prio_tc, [0, 0, 0, 1, 0, 0, 0, 0]);
        assert_eq!(e.tc_tx_bw, [40, 60, 0, 0, 0, 0, 0, 0]);
        assert_eq!(e.tc_tsa, [2, 2, 0, 0, 0, 0, 0, 0]);
        assert_eq!((e.reco_prio_tc, e.tc_reco_bw[0]), ([0; 8], 100));
        assert_eq!((given.source, given.reason), (Source::Peer, EtsReason::PeerRecommendation));
    }

    #[test]
    fn the_app_table_becomes_the_one_in_force_by_deleting_and_adding_the_difference() {
        let iscsi = DcbApp { selector: 2, priority: 4, protocol: 3260 };
        let on_nic = [DcbApp::roce_v2(5), iscsi];
        let oper = AppOper { entries: vec![roce(3)], source: Source::Peer };
        let given = AppsGiven::for_port(&oper, &on_nic);
        assert_eq!(given.table, [DcbApp::roce_v2(3)]);
        assert_eq!(given.delete, on_nic);
        assert_eq!(given.add, [DcbApp::roce_v2(3)]);
        // Once the NIC has it, nothing is sent.
        let same = AppsGiven::for_port(&oper, &given.table);
        assert!(same.delete.is_empty() && same.add.is_empty());
    }
}
