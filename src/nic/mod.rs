//! pfcd's third kind of port (`ports = "interfaces"` with `data-plane = "nic"`): the NIC runs
//! PFC itself, and pfcd programs it through DCB netlink (`pfc_dcb`). What exists is the check
//! made before anything else at start-up: every interface must have DCB operations (and, while
//! the NIC ports themselves are not built, pfcd stops there with a message that says so).

mod startup_check;

pub use startup_check::check_before_start;
