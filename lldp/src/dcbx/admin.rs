//! A port's administrative DCBX settings and the TLVs they are advertised in.
//!
//! We advertise the administrative values, never the operational ones: a willing port that
//! adopts its peer's PFC Enable keeps telling the peer what it would like, so the two ends
//! cannot chase each other's changes (this is also what lldpad does).

use crate::wire::{
    AppEntry, AppPriority, EtsConfig, EtsRecommendation, EtsTables, PfcConfig, PfcFormat,
    PfcLocalDelay, TimeInterval, Tlv, Tsa,
};

/// PFC settings (the PFC Configuration TLV's fields).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PfcAdmin {
    /// Accept the peer's PFC Enable (symmetric attribute passing).
    pub willing: bool,
    /// MACsec Bypass Capability: true = this station cannot bypass MACsec when it is disabled.
    pub mbc: bool,
    /// This station can send and receive MACsec-protected PFC frames.
    pub macsec_capable: bool,
    /// This station can send PFC frames on the Express Privacy Channel.
    pub privacy_capable: bool,
    /// Traffic classes that may have PFC enabled at once (0..=15).
    pub pfc_cap: u8,
    /// Priorities with PFC enabled: bit n = priority n.
    pub pfc_enable: u8,
    /// Supports the headroom measurement protocol.
    pub rtm_hdrm: bool,
    /// Supports the PTP link-delay headroom method.
    pub ptp_hdrm: bool,
    /// Send the 6-octet IEEE 802.1Q-2018 TLV (for old peers) instead of the 7-octet one.
    pub legacy_tlv: bool,
}

impl Default for PfcAdmin {
    fn default() -> Self {
        PfcAdmin {
            willing: false,
            mbc: false,
            macsec_capable: false,
            privacy_capable: false,
            pfc_cap: 8,
            pfc_enable: 0,
            rtm_hdrm: false,
            ptp_hdrm: false,
            legacy_tlv: false,
        }
    }
}

impl PfcAdmin {
    /// The TLV as sent. In the legacy form the four P802.1Qdt bits are not sent, so the peer
    /// sees them as 0 — and so do we when negotiating ([`PfcAdmin::as_advertised`]).
    pub fn tlv(&self) -> PfcConfig {
        let tlv = PfcConfig {
            willing: self.willing,
            mbc: self.mbc,
            macsec_capable: self.macsec_capable,
            privacy_capable: self.privacy_capable,
            pfc_cap: self.pfc_cap,
            pfc_enable: self.pfc_enable,
            rtm_hdrm: self.rtm_hdrm,
            ptp_hdrm: self.ptp_hdrm,
            format: PfcFormat::Qdt,
        };
        if self.legacy_tlv {
            tlv.legacy()
        } else {
            tlv
        }
    }

    /// Our settings as the peer learns them: what negotiation of the new bits must use, since a
    /// capability the peer was never told about cannot be agreed.
    pub fn as_advertised(&self) -> PfcAdmin {
        let t = self.tlv();
        PfcAdmin {
            macsec_capable: t.macsec_capable,
            privacy_capable: t.privacy_capable,
            rtm_hdrm: t.rtm_hdrm,
            ptp_hdrm: t.ptp_hdrm,
            ..self.clone()
        }
    }
}

/// ETS settings: our configuration, and optionally a recommendation for a willing peer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EtsAdmin {
    /// The ETS Configuration TLV (its Willing bit says whether we accept a recommendation).
    pub config: EtsConfig,
    pub recommendation: Option<EtsTables>,
}

impl Default for EtsAdmin {
    /// Eight traffic classes, every priority in class 0 with all the bandwidth, ETS everywhere.
    fn default() -> Self {
        let mut tc_bandwidth = [0; 8];
        tc_bandwidth[0] = 100;
        EtsAdmin {
            config: EtsConfig {
                willing: false,
                cbs: false,
                max_tcs: 0,
                tables: EtsTables { priority_tc: [0; 8], tc_bandwidth, tsa: [Tsa::ETS; 8] },
            },
            recommendation: None,
        }
    }
}

/// Application Priority settings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AppAdmin {
    /// Merge the peer's entries into the operational table (the TLV has no Willing bit: this is
    /// a local choice only).
    pub willing: bool,
    pub entries: Vec<AppEntry>,
}

/// Everything DCBX sends and negotiates on one port.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DcbxAdmin {
    pub pfc: PfcAdmin,
    /// `None`: no ETS TLVs are sent and ETS is not negotiated.
    pub ets: Option<EtsAdmin>,
    /// `None`: no Application Priority TLV is sent.
    pub app: Option<AppAdmin>,
    /// Our delays as a PFC receiver, sent in the PFC Local Delay TLV; `None`: not sent.
    pub local_delay: Option<TimeInterval>,
}

impl DcbxAdmin {
    /// The organizationally specific TLVs to send, in the order ETS Configuration, ETS
    /// Recommendation, PFC Configuration, Application Priority, PFC Local Delay.
    pub fn tlvs(&self) -> Vec<Tlv> {
        let mut tlvs = Vec::new();
        if let Some(ets) = &self.ets {
            tlvs.push(Tlv::EtsConfig(ets.config));
            if let Some(tables) = ets.recommendation {
                tlvs.push(Tlv::EtsRecommendation(EtsRecommendation { tables }));
            }
        }
        tlvs.push(Tlv::PfcConfig(self.pfc.tlv()));
        if let Some(app) = &self.app {
            tlvs.push(Tlv::AppPriority(AppPriority { entries: app.entries.clone() }));
        }
        if let Some(delay) = self.local_delay {
            tlvs.push(Tlv::PfcLocalDelay(PfcLocalDelay { delay }));
        }
        tlvs
    }
}
