//! pfcd's third kind of port (`ports = "interfaces"` with `data-plane = "nic"`): the NIC runs
//! PFC itself, and pfcd programs it through DCB netlink (`pfc_dcb`). The check made before
//! anything else at start-up (`startup_check`): every interface must have DCB operations; what
//! is asked of each NIC, worked out without I/O (`plan`).

pub mod plan;
mod startup_check;

pub use startup_check::check_before_start;
