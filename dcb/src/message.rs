//! What comes back from the kernel (and what any encoder built): netlink messages read into
//! DCB messages, acknowledgements and errors.

use pfc_wire::Fields;

use crate::app::DcbApp;
use crate::buffer::DcbBuffer;
use crate::error::DecodeError;
use crate::ets::IeeeEts;
use crate::kernel::*;
use crate::netlink::{align, attrs, field};
use crate::pfc::IeeePfc;
use crate::request::IeeeObjects;

/// One DCB message (`RTM_GETDCB` / `RTM_SETDCB`), a request or the kernel's answer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DcbMessage {
    pub nl_type: u16,
    pub flags: u16,
    pub seq: u32,
    pub pid: u32,
    pub cmd: u8,
    pub interface: Option<String>,
    /// The `DCB_ATTR_IEEE` nest: a SET's objects, or a GET's answer.
    pub ieee: Option<IeeeObjects>,
    /// `DCB_ATTR_IEEE` as one octet: a SET's outcome, 0 or a negative errno cut to eight bits.
    pub ieee_status: Option<u8>,
    /// `DCB_ATTR_DCBX`: a mode (in SDCBX, and GET answers) or SDCBX's outcome (0 or 1).
    pub dcbx: Option<u8>,
}

/// One netlink message read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Incoming {
    Dcb(Box<DcbMessage>),
    /// `NLMSG_ERROR` with error 0: the request `seq` was done.
    Ack {
        seq: u32,
    },
    /// `NLMSG_ERROR`: the request `seq` failed with this errno (positive).
    Error {
        seq: u32,
        errno: i32,
    },
    /// Anything else (`NLMSG_DONE`, another family's message).
    Other {
        nl_type: u16,
        seq: u32,
    },
}

/// The messages of one datagram, in order; the first that cannot be read ends it.
pub fn decode(datagram: &[u8]) -> Vec<Result<Incoming, DecodeError>> {
    let mut out = Vec::new();
    let mut rest = datagram;
    while !rest.is_empty() {
        let f = Fields::new(rest, || DecodeError::Truncated {
            what: "netlink message header",
            needed: field::NLMSG_HDRLEN,
            got: rest.len(),
        });
        let len = match f.array(field::NLMSG_LEN).map(u32::from_ne_bytes) {
            Ok(len) => len as usize,
            Err(e) => {
                out.push(Err(e));
                break;
            }
        };
        if len < field::NLMSG_HDRLEN || len > rest.len() {
            out.push(Err(DecodeError::BadLength {
                what: "netlink message",
                length: len,
                room: rest.len(),
            }));
            break;
        }
        out.push(decode_message(&rest[..len]));
        rest = rest.get(align(len)..).unwrap_or_default();
    }
    out
}

/// One netlink message, exactly its `nlmsg_len` octets.
pub fn decode_message(msg: &[u8]) -> Result<Incoming, DecodeError> {
    let short =
        |needed| move || DecodeError::Truncated { what: "netlink message", needed, got: msg.len() };
    let f = Fields::new(msg, short(field::NLMSG_HDRLEN));
    let nl_type = u16::from_ne_bytes(f.array(field::NLMSG_TYPE)?);
    let seq = u32::from_ne_bytes(f.array(field::NLMSG_SEQ)?);
    match nl_type {
        NLMSG_ERROR => {
            let f = Fields::new(msg, short(field::NLMSGERR_ERROR.end));
            let error = i32::from_ne_bytes(f.array(field::NLMSGERR_ERROR)?);
            // The error carries the request's header, whose sequence number is the one asked.
            let seq = Fields::new(msg, short(field::NLMSGERR_SEQ.end))
                .array(field::NLMSGERR_SEQ)
                .map(u32::from_ne_bytes)
                .unwrap_or(seq);
            Ok(match error {
                0 => Incoming::Ack { seq },
                e => Incoming::Error { seq, errno: e.saturating_neg() },
            })
        }
        RTM_GETDCB | RTM_SETDCB => Ok(Incoming::Dcb(Box::new(decode_dcb(msg)?))),
        _ => Ok(Incoming::Other { nl_type, seq }),
    }
}

fn decode_dcb(msg: &[u8]) -> Result<DcbMessage, DecodeError> {
    let f = Fields::new(msg, || DecodeError::Truncated {
        what: "DCB message",
        needed: field::DCB_ATTRS,
        got: msg.len(),
    });
    let mut m = DcbMessage {
        nl_type: u16::from_ne_bytes(f.array(field::NLMSG_TYPE)?),
        flags: u16::from_ne_bytes(f.array(field::NLMSG_FLAGS)?),
        seq: u32::from_ne_bytes(f.array(field::NLMSG_SEQ)?),
        pid: u32::from_ne_bytes(f.array(field::NLMSG_PID)?),
        cmd: f.u8(field::DCB_CMD)?,
        ..Default::default()
    };
    f.octets(field::DCB_PAD)?;
    for attr in attrs(f.rest(field::DCB_ATTRS..)?) {
        let attr = attr?;
        match attr.nla_type {
            DCB_ATTR_IFNAME => m.interface = Some(interface_name(attr.value)?),
            DCB_ATTR_IEEE if attr.value.len() == 1 => m.ieee_status = Some(attr.value[0]),
            DCB_ATTR_IEEE => m.ieee = Some(decode_ieee(attr.value)?),
            DCB_ATTR_DCBX => m.dcbx = Some(one_octet("DCB_ATTR_DCBX", attr.value)?),
            // Attributes pfcd does not use (CEE, capabilities, …) are skipped.
            _ => {}
        }
    }
    Ok(m)
}

/// The objects of a `DCB_ATTR_IEEE` nest. Peer objects, rate limits and QCN are skipped.
fn decode_ieee(nest: &[u8]) -> Result<IeeeObjects, DecodeError> {
    let mut objects = IeeeObjects::default();
    for attr in attrs(nest) {
        let attr = attr?;
        match attr.nla_type {
            DCB_ATTR_IEEE_ETS => objects.ets = Some(IeeeEts::parse(attr.value)?),
            DCB_ATTR_IEEE_PFC => objects.pfc = Some(IeeePfc::parse(attr.value)?),
            DCB_ATTR_DCB_BUFFER => objects.buffer = Some(DcbBuffer::parse(attr.value)?),
            DCB_ATTR_IEEE_APP_TABLE => {
                for app in attrs(attr.value) {
                    let app = app?;
                    if app.nla_type == DCB_ATTR_IEEE_APP {
                        objects.apps.push(DcbApp::parse(app.value)?);
                    }
                }
            }
            _ => {}
        }
    }
    Ok(objects)
}

fn interface_name(value: &[u8]) -> Result<String, DecodeError> {
    let name = value.split(|&b| b == 0).next().filter(|_| value.contains(&0));
    name.and_then(|n| std::str::from_utf8(n).ok())
        .map(str::to_string)
        .ok_or(DecodeError::BadInterfaceName)
}

fn one_octet(what: &'static str, value: &[u8]) -> Result<u8, DecodeError> {
    value.first().copied().ok_or(DecodeError::Truncated { what, needed: 1, got: 0 })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::{DcbxMode, Request};

    #[test]
    fn an_error_names_the_requests_sequence_number_and_its_errno() {
        let mut msg = vec![0u8; 36];
        msg[0..4].copy_from_slice(&36u32.to_ne_bytes());
        msg[4..6].copy_from_slice(&NLMSG_ERROR.to_ne_bytes());
        msg[16..20].copy_from_slice(&(-95i32).to_ne_bytes());
        msg[28..32].copy_from_slice(&7u32.to_ne_bytes());
        assert_eq!(decode(&msg), [Ok(Incoming::Error { seq: 7, errno: 95 })]);
        msg[16..20].copy_from_slice(&0i32.to_ne_bytes());
        assert_eq!(decode(&msg), [Ok(Incoming::Ack { seq: 7 })]);
    }

    #[test]
    fn a_request_reads_back_as_what_was_asked() {
        let apps = vec![DcbApp::roce_v2(3), DcbApp { selector: 1, priority: 5, protocol: 0x8906 }];
        let set = Request::ieee_set(IeeeObjects { apps: apps.clone(), ..Default::default() });
        let [Ok(Incoming::Dcb(m))] = &decode(&set.encode("eth0", 9, 0).expect("encode"))[..] else {
            panic!("not one DCB message")
        };
        assert_eq!((m.nl_type, m.cmd, m.seq), (RTM_SETDCB, DCB_CMD_IEEE_SET, 9));
        assert_eq!(m.interface.as_deref(), Some("eth0"));
        assert_eq!(m.ieee.as_ref().map(|i| &i.apps), Some(&apps));
        let dcbx = Request::SetDcbx(DcbxMode::HOST_IEEE).encode("eth0", 1, 0).expect("encode");
        let [Ok(Incoming::Dcb(m))] = &decode(&dcbx)[..] else { panic!("not one DCB message") };
        assert_eq!(m.dcbx, Some(0x09));
    }

    #[test]
    fn garbage_is_an_error_never_a_panic() {
        for len in 0..64 {
            let mut msg =
                Request::SetDcbx(DcbxMode::HOST_IEEE).encode("eth0", 1, 0).expect("encode");
            msg.resize(len, 0xff);
            let _ = decode(&msg);
        }
        assert!(decode(&[0xff; 40]).iter().any(|r| r.is_err()));
    }
}
