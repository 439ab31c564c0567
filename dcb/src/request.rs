//! What pfcd asks of the kernel: each request encoded as iproute2's `dcb` and the kernel's own
//! structs lay it out (the tests compare both, octet for octet).

use crate::app::DcbApp;
use crate::buffer::DcbBuffer;
use crate::error::DcbError;
use crate::ets::IeeeEts;
use crate::kernel::*;
use crate::netlink::MessageWriter;
use crate::pfc::IeeePfc;

/// `IFNAMSIZ`: an interface's name and its terminating NUL.
const IFNAMSIZ: usize = 16;

/// The IEEE objects of one interface: what a SET carries (absent ones are left as they are) and
/// what a GET answers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IeeeObjects {
    pub ets: Option<IeeeEts>,
    pub pfc: Option<IeeePfc>,
    pub buffer: Option<DcbBuffer>,
    /// APP table entries: added by a SET, removed by a DEL, the whole table in a GET's answer.
    pub apps: Vec<DcbApp>,
}

impl IeeeObjects {
    /// The objects present, for messages: "ETS, PFC, buffer, APP".
    pub fn names(&self) -> String {
        let present = [
            (self.ets.is_some(), "ETS"),
            (self.pfc.is_some(), "PFC"),
            (self.buffer.is_some(), "buffer"),
            (!self.apps.is_empty(), "APP"),
        ];
        let names: Vec<_> = present.iter().filter(|(p, _)| *p).map(|(_, n)| *n).collect();
        if names.is_empty() {
            "nothing".into()
        } else {
            names.join(", ")
        }
    }
}

/// The DCBX mode (`DCB_CAP_DCBX_*` bits): who runs DCBX (the host's agent, or the NIC's own
/// firmware) and which version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DcbxMode(pub u8);

impl DcbxMode {
    /// DCBX run by a host agent (pfcd), IEEE version: what `dcb dcbx set dev X host ieee` sets.
    pub const HOST_IEEE: DcbxMode = DcbxMode(DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE);

    /// True when the NIC's firmware runs DCBX itself.
    pub fn lld_managed(self) -> bool {
        self.0 & DCB_CAP_DCBX_LLD_MANAGED != 0
    }
}

/// One request to the kernel's DCB netlink.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    /// `DCB_CMD_IEEE_GET`: every IEEE object and the DCBX mode (what every `dcb … show` sends).
    IeeeGet,
    /// `DCB_CMD_IEEE_SET`: the objects given, APP entries added.
    IeeeSet(Box<IeeeObjects>),
    /// `DCB_CMD_IEEE_DEL`: APP entries removed.
    AppDelete(Vec<DcbApp>),
    /// `DCB_CMD_GDCBX`: the DCBX mode.
    GetDcbx,
    /// `DCB_CMD_SDCBX`: the DCBX mode set.
    SetDcbx(DcbxMode),
}

impl Request {
    /// `DCB_CMD_IEEE_SET` of `objects`.
    pub fn ieee_set(objects: IeeeObjects) -> Self {
        Request::IeeeSet(Box::new(objects))
    }

    /// What it asks, for messages.
    pub fn describe(&self) -> String {
        match self {
            Request::IeeeGet => "IEEE get".into(),
            Request::IeeeSet(objects) => format!("IEEE set of {}", objects.names()),
            Request::AppDelete(_) => "APP delete".into(),
            Request::GetDcbx => "DCBX mode get".into(),
            Request::SetDcbx(mode) => format!("DCBX mode set to {:#04x}", mode.0),
        }
    }

    /// The message for `interface`, with the sequence number and port id given; asks for an
    /// acknowledgement, as `dcb` does, so that a success is told from silence.
    pub fn encode(&self, interface: &str, seq: u32, pid: u32) -> Result<Vec<u8>, DcbError> {
        if interface.is_empty() || interface.len() >= IFNAMSIZ || interface.contains('\0') {
            return Err(DcbError::BadInterfaceName { interface: interface.into() });
        }
        let (nl_type, cmd) = match self {
            Request::IeeeGet => (RTM_GETDCB, DCB_CMD_IEEE_GET),
            Request::IeeeSet(_) => (RTM_SETDCB, DCB_CMD_IEEE_SET),
            Request::AppDelete(_) => (RTM_SETDCB, DCB_CMD_IEEE_DEL),
            Request::GetDcbx => (RTM_GETDCB, DCB_CMD_GDCBX),
            Request::SetDcbx(_) => (RTM_SETDCB, DCB_CMD_SDCBX),
        };
        let mut w = MessageWriter::dcb(nl_type, NLM_F_REQUEST | NLM_F_ACK, seq, pid, cmd);
        let mut name = interface.as_bytes().to_vec();
        name.push(0);
        w.attr(DCB_ATTR_IFNAME, &name);
        match self {
            Request::IeeeGet | Request::GetDcbx => {}
            Request::IeeeSet(objects) => write_ieee(&mut w, objects),
            Request::AppDelete(apps) => {
                write_ieee(&mut w, &IeeeObjects { apps: apps.clone(), ..Default::default() })
            }
            Request::SetDcbx(mode) => w.attr(DCB_ATTR_DCBX, &[mode.0]),
        }
        Ok(w.finish())
    }
}

/// The `DCB_ATTR_IEEE` nest, its objects in the order the kernel applies them.
fn write_ieee(w: &mut MessageWriter, objects: &IeeeObjects) {
    let ieee = w.nest(DCB_ATTR_IEEE);
    if let Some(ets) = &objects.ets {
        w.attr(DCB_ATTR_IEEE_ETS, &ets.to_bytes());
    }
    if let Some(pfc) = &objects.pfc {
        w.attr(DCB_ATTR_IEEE_PFC, &pfc.to_bytes());
    }
    if let Some(buffer) = &objects.buffer {
        w.attr(DCB_ATTR_DCB_BUFFER, &buffer.to_bytes());
    }
    if !objects.apps.is_empty() {
        let table = w.nest(DCB_ATTR_IEEE_APP_TABLE);
        for app in &objects.apps {
            w.attr(DCB_ATTR_IEEE_APP, &app.to_bytes());
        }
        w.close(table);
    }
    w.close(ieee);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_the_kernel_cannot_hold_is_refused_before_sending() {
        for bad in ["", "sixteen-letters!", "a\0b"] {
            let err = Request::IeeeGet.encode(bad, 1, 0).expect_err("refused");
            assert!(matches!(err, DcbError::BadInterfaceName { .. }), "{bad:?}: {err}");
        }
        assert!(Request::IeeeGet.encode("fifteen-letters", 1, 0).is_ok());
    }
}
