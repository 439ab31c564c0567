//! What Linux says of an interface's device: its driver's name, which decides how
//! `ieee_pfc.delay` is read (`plan::DRIVERS`).

use std::path::Path;

/// The driver bound to `interface`'s device (`/sys/class/net/IF/device/driver`, a link whose
/// last component is the name ethtool reports as `driver`); `None` for an interface without a
/// device, as virtual ones are.
pub fn driver(interface: &str) -> Option<String> {
    let link =
        std::fs::read_link(Path::new("/sys/class/net").join(interface).join("device/driver"));
    link.ok()?.file_name().map(|n| n.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_and_an_absent_interface_have_no_driver() {
        assert_eq!(driver("lo"), None);
        assert_eq!(driver("no-such-if0"), None);
    }
}
