//! The YANG modules pfcd serves, embedded at build time so that the daemon never depends on
//! files lying around: written to `<state-dir>/yang/` at start (where they differ) and loaded
//! from there, ours from `yang/` and the standard ones they import from `yang/standard/`.

/// pfcd's own modules (yang/).
pub const OURS: &[(&str, &str)] = &[
    ("ieee802-dot1q-lldp-pfc-tlv.yang", include_str!("../../yang/ieee802-dot1q-lldp-pfc-tlv.yang")),
    (
        "ieee802-dot1q-pfc-bridge-notifications.yang",
        include_str!("../../yang/ieee802-dot1q-pfc-bridge-notifications.yang"),
    ),
    ("ieee802-dot1q-pfc-bridge.yang", include_str!("../../yang/ieee802-dot1q-pfc-bridge.yang")),
    ("ieee802-dot1q-pfc.yang", include_str!("../../yang/ieee802-dot1q-pfc.yang")),
    ("pfcd-deviations.yang", include_str!("../../yang/pfcd-deviations.yang")),
    ("pfcd-headroom.yang", include_str!("../../yang/pfcd-headroom.yang")),
    ("pfcd-lab.yang", include_str!("../../yang/pfcd-lab.yang")),
    ("pfcd-lldp.yang", include_str!("../../yang/pfcd-lldp.yang")),
    ("pfcd-nic.yang", include_str!("../../yang/pfcd-nic.yang")),
    ("pfcd-pfc.yang", include_str!("../../yang/pfcd-pfc.yang")),
    ("pfcd-pipeline.yang", include_str!("../../yang/pfcd-pipeline.yang")),
    ("pfcd-watchdog.yang", include_str!("../../yang/pfcd-watchdog.yang")),
];

/// The standard modules they import, unmodified (yang/standard/).
pub const STANDARD: &[(&str, &str)] = &[
    (
        "iana-if-type@2014-05-08.yang",
        include_str!("../../yang/standard/iana-if-type@2014-05-08.yang"),
    ),
    (
        "ieee802-dot1ab-lldp@2022-03-15.yang",
        include_str!("../../yang/standard/ieee802-dot1ab-lldp@2022-03-15.yang"),
    ),
    (
        "ieee802-dot1ab-types@2022-03-15.yang",
        include_str!("../../yang/standard/ieee802-dot1ab-types@2022-03-15.yang"),
    ),
    (
        "ieee802-dot1q-bridge@2023-10-26.yang",
        include_str!("../../yang/standard/ieee802-dot1q-bridge@2023-10-26.yang"),
    ),
    (
        "ieee802-dot1q-lldp-dcbx-tlv@2023-07-03.yang",
        include_str!("../../yang/standard/ieee802-dot1q-lldp-dcbx-tlv@2023-07-03.yang"),
    ),
    (
        "ieee802-dot1q-types@2023-10-26.yang",
        include_str!("../../yang/standard/ieee802-dot1q-types@2023-10-26.yang"),
    ),
    (
        "ieee802-types@2023-10-22.yang",
        include_str!("../../yang/standard/ieee802-types@2023-10-22.yang"),
    ),
    (
        "ietf-datastores@2018-02-14.yang",
        include_str!("../../yang/standard/ietf-datastores@2018-02-14.yang"),
    ),
    (
        "ietf-inet-types@2013-07-15.yang",
        include_str!("../../yang/standard/ietf-inet-types@2013-07-15.yang"),
    ),
    (
        "ietf-interfaces@2018-02-20.yang",
        include_str!("../../yang/standard/ietf-interfaces@2018-02-20.yang"),
    ),
    (
        "ietf-netconf-acm@2018-02-14.yang",
        include_str!("../../yang/standard/ietf-netconf-acm@2018-02-14.yang"),
    ),
    (
        "ietf-netconf-monitoring@2010-10-04.yang",
        include_str!("../../yang/standard/ietf-netconf-monitoring@2010-10-04.yang"),
    ),
    (
        "ietf-netconf-nmda@2019-01-07.yang",
        include_str!("../../yang/standard/ietf-netconf-nmda@2019-01-07.yang"),
    ),
    (
        "ietf-netconf-notifications@2012-02-06.yang",
        include_str!("../../yang/standard/ietf-netconf-notifications@2012-02-06.yang"),
    ),
    (
        "ietf-netconf-with-defaults@2011-06-01.yang",
        include_str!("../../yang/standard/ietf-netconf-with-defaults@2011-06-01.yang"),
    ),
    (
        "ietf-netconf@2011-06-01.yang",
        include_str!("../../yang/standard/ietf-netconf@2011-06-01.yang"),
    ),
    (
        "ietf-origin@2018-02-14.yang",
        include_str!("../../yang/standard/ietf-origin@2018-02-14.yang"),
    ),
    (
        "ietf-routing@2018-03-13.yang",
        include_str!("../../yang/standard/ietf-routing@2018-03-13.yang"),
    ),
    (
        "ietf-yang-library@2019-01-04.yang",
        include_str!("../../yang/standard/ietf-yang-library@2019-01-04.yang"),
    ),
    (
        "ietf-yang-types@2013-07-15.yang",
        include_str!("../../yang/standard/ietf-yang-types@2013-07-15.yang"),
    ),
    (
        "nc-notifications@2008-07-14.yang",
        include_str!("../../yang/standard/nc-notifications@2008-07-14.yang"),
    ),
    (
        "notifications@2008-07-14.yang",
        include_str!("../../yang/standard/notifications@2008-07-14.yang"),
    ),
];
