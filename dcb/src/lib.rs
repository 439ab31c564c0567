//! Linux DCB netlink (`dcbnl`), pfcd's way to a NIC that runs PFC in hardware: the kernel's
//! IEEE DCB objects (`struct ieee_pfc`, `struct ieee_ets`, `struct dcbnl_buffer`, the APP
//! table of `struct dcb_app`) and the DCBX mode, read with `RTM_GETDCB` and written with
//! `RTM_SETDCB`.
//!
//! [`Request`] encodes what pfcd asks exactly as iproute2's `dcb` and the kernel's own structs
//! lay it out (host byte order, each attribute padded to four octets, nests flagged
//! `NLA_F_NESTED`); [`decode`] reads any such message back, a request or the kernel's answer;
//! [`DcbSocket`] sends a request and waits for its answer. Every refusal names the interface and
//! what was asked: on an interface without DCB operations (veth, most virtual devices) the
//! kernel answers `EOPNOTSUPP` to everything ([`DcbError::not_supported`]).

pub mod app;
pub mod buffer;
mod error;
pub mod ets;
pub mod kernel;
mod message;
mod netlink;
pub mod pfc;
mod request;
mod socket;

pub use app::DcbApp;
pub use buffer::DcbBuffer;
pub use error::{DcbError, DecodeError};
pub use ets::IeeeEts;
pub use message::{decode, decode_message, DcbMessage, Incoming};
pub use pfc::IeeePfc;
pub use request::{DcbxMode, IeeeObjects, Request};
pub use socket::DcbSocket;
