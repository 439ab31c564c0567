//! The kernel's numbers, as `<linux/netlink.h>`, `<linux/rtnetlink.h>` and `<linux/dcbnl.h>`
//! define them; the tests compile the same headers and compare.

/// `NETLINK_ROUTE` message types of DCB.
pub const RTM_GETDCB: u16 = 78;
pub const RTM_SETDCB: u16 = 79;

/// Netlink's own message types.
pub const NLMSG_ERROR: u16 = 2;
pub const NLMSG_DONE: u16 = 3;

/// `nlmsg_flags`: a request, and an acknowledgement asked for.
pub const NLM_F_REQUEST: u16 = 0x01;
pub const NLM_F_ACK: u16 = 0x04;

/// `nla_type`'s flag of an attribute that holds attributes.
pub const NLA_F_NESTED: u16 = 0x8000;
/// `nla_type`'s flags: what is left is the attribute's type.
pub const NLA_TYPE_MASK: u16 = !(NLA_F_NESTED | 0x4000);

/// `enum dcbnl_commands`.
pub const DCB_CMD_IEEE_SET: u8 = 20;
pub const DCB_CMD_IEEE_GET: u8 = 21;
pub const DCB_CMD_GDCBX: u8 = 22;
pub const DCB_CMD_SDCBX: u8 = 23;
pub const DCB_CMD_IEEE_DEL: u8 = 27;

/// `enum dcbnl_attrs`: the top-level attributes.
pub const DCB_ATTR_IFNAME: u16 = 1;
pub const DCB_ATTR_IEEE: u16 = 13;
pub const DCB_ATTR_DCBX: u16 = 14;

/// `enum ieee_attrs`: the attributes inside `DCB_ATTR_IEEE`.
pub const DCB_ATTR_IEEE_ETS: u16 = 1;
pub const DCB_ATTR_IEEE_PFC: u16 = 2;
pub const DCB_ATTR_IEEE_APP_TABLE: u16 = 3;
pub const DCB_ATTR_DCB_BUFFER: u16 = 10;

/// `enum ieee_attrs_app`: one entry of `DCB_ATTR_IEEE_APP_TABLE`.
pub const DCB_ATTR_IEEE_APP: u16 = 1;

/// The DCBX mode's bits (`DCB_CAP_DCBX_*`).
pub const DCB_CAP_DCBX_HOST: u8 = 0x01;
pub const DCB_CAP_DCBX_LLD_MANAGED: u8 = 0x02;
pub const DCB_CAP_DCBX_VER_CEE: u8 = 0x04;
pub const DCB_CAP_DCBX_VER_IEEE: u8 = 0x08;
pub const DCB_CAP_DCBX_STATIC: u8 = 0x10;

/// `IEEE_8021QAZ_MAX_TCS`, `IEEE_8021Q_MAX_PRIORITIES` and `DCBX_MAX_BUFFERS`: all eight.
pub const EIGHT: usize = 8;
