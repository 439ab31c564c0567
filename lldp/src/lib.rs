//! lldp: the LLDP agent with DCBX, free of YANG and NETCONF.

pub mod wire;
