//! The kernel's side: a `NETLINK_ROUTE` socket that sends one DCB request at a time and waits
//! for its answer and acknowledgement (or its error).

use std::os::fd::{AsRawFd, OwnedFd};
use std::time::Duration;

use nix::errno::Errno;
use nix::sys::socket::{
    bind, recv, sendto, setsockopt, socket, sockopt, AddressFamily, MsgFlags, NetlinkAddr,
    SockFlag, SockProtocol, SockType,
};
use nix::sys::time::TimeVal;

use crate::error::DcbError;
use crate::message::{decode, DcbMessage, Incoming};
use crate::request::{DcbxMode, IeeeObjects, Request};

/// How long the kernel may take to answer: it answers at once, so this only bounds a lost reply.
const ANSWER_WITHIN: Duration = Duration::from_secs(5);

/// Large enough for a GET's answer with a full APP table.
const RECEIVE_BUFFER: usize = 64 * 1024;

/// A DCB netlink socket, in the network namespace of the thread that opened it.
#[derive(Debug)]
pub struct DcbSocket {
    fd: OwnedFd,
    seq: u32,
}

impl DcbSocket {
    pub fn open() -> Result<Self, DcbError> {
        let open = |errno| DcbError::Open { errno };
        let fd = socket(
            AddressFamily::Netlink,
            SockType::Raw,
            SockFlag::SOCK_CLOEXEC,
            SockProtocol::NetlinkRoute,
        )
        .map_err(open)?;
        bind(fd.as_raw_fd(), &NetlinkAddr::new(0, 0)).map_err(open)?;
        let timeout = TimeVal::new(ANSWER_WITHIN.as_secs() as _, 0);
        setsockopt(&fd, sockopt::ReceiveTimeout, &timeout).map_err(open)?;
        Ok(DcbSocket { fd, seq: 0 })
    }

    /// Sends `request` about `interface` and returns the kernel's answer (a GET's objects, a
    /// SET's outcome), once the kernel has acknowledged it. A refusal, by `NLMSG_ERROR` or by a
    /// SET's status attribute, is [`DcbError::Refused`].
    pub fn request(
        &mut self,
        interface: &str,
        request: &Request,
    ) -> Result<Option<DcbMessage>, DcbError> {
        self.seq = self.seq.wrapping_add(1);
        let seq = self.seq;
        let message = request.encode(interface, seq, 0)?;
        let failed = |op| {
            move |errno| DcbError::Socket {
                interface: interface.into(),
                request: request.describe(),
                op,
                errno,
            }
        };
        sendto(self.fd.as_raw_fd(), &message, &NetlinkAddr::new(0, 0), MsgFlags::empty())
            .map_err(failed("send"))?;
        let mut answer = None;
        let mut buf = vec![0u8; RECEIVE_BUFFER];
        loop {
            let n = loop {
                match recv(self.fd.as_raw_fd(), &mut buf, MsgFlags::empty()) {
                    Err(Errno::EINTR) => continue,
                    Err(Errno::EAGAIN) => {
                        return Err(failed("waiting 5 s for the answer")(Errno::ETIMEDOUT))
                    }
                    other => break other.map_err(failed("receive"))?,
                }
            };
            for incoming in decode(&buf[..n]) {
                let incoming = incoming.map_err(|source| DcbError::Reply {
                    interface: interface.into(),
                    request: request.describe(),
                    source,
                })?;
                match incoming {
                    Incoming::Dcb(m) if m.seq == seq => answer = Some(*m),
                    Incoming::Ack { seq: s } if s == seq => {
                        return refused_in_answer(interface, request, answer)
                    }
                    Incoming::Error { seq: s, errno } if s == seq => {
                        return Err(DcbError::Refused {
                            interface: interface.into(),
                            request: request.describe(),
                            errno: Errno::from_raw(errno),
                        })
                    }
                    // An earlier request's late answer, or something not ours.
                    _ => {}
                }
            }
        }
    }

    /// Every IEEE object of `interface` and its DCBX mode.
    pub fn ieee_get(
        &mut self,
        interface: &str,
    ) -> Result<(IeeeObjects, Option<DcbxMode>), DcbError> {
        let answer = self.request(interface, &Request::IeeeGet)?.unwrap_or_default();
        Ok((answer.ieee.unwrap_or_default(), answer.dcbx.map(DcbxMode)))
    }

    /// Sets the objects given; APP entries are added.
    pub fn ieee_set(&mut self, interface: &str, objects: &IeeeObjects) -> Result<(), DcbError> {
        self.request(interface, &Request::ieee_set(objects.clone())).map(drop)
    }

    pub fn dcbx_get(&mut self, interface: &str) -> Result<Option<DcbxMode>, DcbError> {
        Ok(self.request(interface, &Request::GetDcbx)?.and_then(|m| m.dcbx).map(DcbxMode))
    }

    pub fn dcbx_set(&mut self, interface: &str, mode: DcbxMode) -> Result<(), DcbError> {
        self.request(interface, &Request::SetDcbx(mode)).map(drop)
    }
}

/// A SET's answer carries its outcome as an attribute: `DCB_ATTR_IEEE`, the driver's negative
/// errno cut to eight bits; SDCBX's `DCB_ATTR_DCBX`, 1 when the driver refused the mode.
fn refused_in_answer(
    interface: &str,
    request: &Request,
    answer: Option<DcbMessage>,
) -> Result<Option<DcbMessage>, DcbError> {
    let errno = match (request, &answer) {
        (Request::IeeeSet(_) | Request::AppDelete(_), Some(m)) => match m.ieee_status {
            Some(status) if status != 0 => Some(Errno::from_raw(256 - i32::from(status))),
            _ => None,
        },
        (Request::SetDcbx(_), Some(m)) if m.dcbx.is_some_and(|s| s != 0) => Some(Errno::EINVAL),
        _ => None,
    };
    match errno {
        Some(errno) => Err(DcbError::Refused {
            interface: interface.into(),
            request: request.describe(),
            errno,
        }),
        None => Ok(answer),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pfc::IeeePfc;

    fn answer(ieee_status: Option<u8>, dcbx: Option<u8>) -> Option<DcbMessage> {
        Some(DcbMessage { ieee_status, dcbx, ..Default::default() })
    }

    #[test]
    fn a_set_the_driver_refused_inside_its_answer_is_an_error_not_a_success() {
        let set =
            Request::ieee_set(IeeeObjects { pfc: Some(IeeePfc::default()), ..Default::default() });
        // -EOPNOTSUPP (-95) cut to eight bits.
        let err = refused_in_answer("eth1", &set, answer(Some(161), None)).expect_err("refused");
        assert_eq!(err.errno(), Some(Errno::EOPNOTSUPP));
        assert!(
            err.to_string().starts_with("eth1: the kernel refused DCB IEEE set of PFC"),
            "{err}"
        );
        assert!(refused_in_answer("eth1", &set, answer(Some(0), None)).is_ok());
        let dcbx = Request::SetDcbx(DcbxMode::HOST_IEEE);
        let err = refused_in_answer("eth1", &dcbx, answer(None, Some(1))).expect_err("refused");
        assert_eq!(err.errno(), Some(Errno::EINVAL));
        // A GET's DCBX attribute is the mode, not an outcome.
        assert!(refused_in_answer("eth1", &Request::IeeeGet, answer(None, Some(9))).is_ok());
    }
}
