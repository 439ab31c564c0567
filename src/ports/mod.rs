//! What every port shares, whatever runs it: the handle the northbound side holds
//! ([`PortHandle`]), the thread's loop ([`run`]), the configuration that comes down
//! ([`PortIntent`]) and the state that goes up ([`PortSnapshot`], [`PortEvent`] on a bounded
//! [`event_channel`]), what a task follows and reports ([`follow`], [`report`], [`drops`], the
//! PFC [`watchdog`]'s view), the headroom results and the allowance selected from them
//! ([`headroom`]), LLDP's view ([`lldp_view`]), [`PortSet`], what the northbound side needs of a
//! set of ports, and the health of their threads ([`watched`]); what both kinds of port on a
//! real interface run: LLDP/DCBX on its socket ([`interface_lldp`]) and the headroom calculated
//! from the configuration ([`calculation`]). The kinds of port are apart: the embedded lab's
//! simulated ports in `crate::lab`, the software bridge's on real interfaces in `crate::real`,
//! a NIC's in `crate::nic`.

pub mod calculation;
pub mod drops;
pub mod event;
pub mod event_channel;
pub mod follow;
pub mod follow_interface;
pub mod handle;
pub mod headroom;
pub mod intent;
pub mod interface_lldp;
pub mod lldp_view;
pub mod report;
pub mod run;
pub mod set;
pub mod snapshot;
pub mod watchdog;
pub mod watched;

pub use event::PortEvent;
pub use event_channel::{EventReceiver, EventSender};
pub use handle::PortHandle;
pub use intent::{DcbxIntent, HeadroomMethod, PortIntent, PRIORITIES};
pub use lldp_view::LldpView;
pub use set::PortSet;
pub use snapshot::{PortSnapshot, PrioritySnapshot};
