//! The real kernel on an interface without DCB operations (veth): every request is refused with
//! EOPNOTSUPP, and the error names the interface and what was asked.

use nix::errno::Errno;
use pfc_dcb::{DcbError, DcbSocket, DcbxMode, IeeeObjects, IeeePfc};
use test_support::netns::{can_run, in_netns, Netns};

const INTERFACE: &str = "dcbv0";

/// EOPNOTSUPP, in the C library's words, as `dcb` says it.
const NOT_SUPPORTED: (Errno, &str) = (Errno::EOPNOTSUPP, "Operation not supported");

fn assert_refused(
    result: Result<impl std::fmt::Debug, DcbError>,
    (errno, why): (Errno, &str),
    interface: &str,
) {
    let err = result.expect_err("the kernel refuses");
    assert_eq!(err.errno(), Some(errno), "{err}");
    let text = err.to_string();
    assert!(text.starts_with(&format!("{interface}: ")), "names the interface: {text}");
    assert!(text.contains(&format!("{errno:?} ({why})")), "says why: {text}");
}

#[test]
fn on_veth_a_get_and_a_set_are_refused_with_eopnotsupp_naming_the_interface() {
    if !can_run("on_veth_a_get_and_a_set_are_refused_with_eopnotsupp_naming_the_interface") {
        return;
    }
    let ns = Netns::new("dcbv");
    ns.link(&["add", INTERFACE, "type", "veth", "peer", "name", "dcbv1"]);
    let mut socket = in_netns(&ns, DcbSocket::open).expect("open a DCB socket");

    let get = socket.ieee_get(INTERFACE);
    assert!(get.as_ref().is_err_and(DcbError::not_supported), "{get:?}");
    assert_refused(get, NOT_SUPPORTED, INTERFACE);

    let pfc = IeeeObjects {
        pfc: Some(IeeePfc { pfc_en: 0x08, ..Default::default() }),
        ..Default::default()
    };
    assert_refused(socket.ieee_set(INTERFACE, &pfc), NOT_SUPPORTED, INTERFACE);
    assert_refused(socket.dcbx_set(INTERFACE, DcbxMode::HOST_IEEE), NOT_SUPPORTED, INTERFACE);
    assert_refused(socket.dcbx_get(INTERFACE), NOT_SUPPORTED, INTERFACE);

    // An interface that is not there is another refusal, named as well.
    assert_refused(
        socket.ieee_get("dcbv-absent"),
        (Errno::ENODEV, "No such device"),
        "dcbv-absent",
    );
}
