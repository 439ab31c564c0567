//! A filter's cost is bounded (issue 23, point 5): an XPath filter whose evaluation could
//! take more node visits than the server's limit is refused before it runs, a subtree
//! filter that takes more steps is stopped, each with a too-big error that says so; and an
//! XPath filter that is allowed but costly runs on the blocking pool, so the session
//! thread keeps serving everyone else, however small the data it filters.

mod common;

use std::time::Duration;

use common::fixture::{data, edit, expect_err, iface, ifs, ok, Client, Fx, IF};
use mgmt::engine::EngineConfig;
use netconf_proto::xml::NETCONF_BASE_NS;
use tokio::time::Instant;

const NMDA: &str = "urn:ietf:params:xml:ns:yang:ietf-netconf-nmda";
const NOTIF: &str = "urn:ietf:params:xml:ns:netconf:notification:1.0";

/// Every node, for every node, for every node: n³ node visits.
const CUBIC: &str = "//*[count(//*[count(//*) > 0]) > 0]";
/// And once more: n⁴.
const QUARTIC: &str = "//*[count(//*[count(//*[count(//*) > 0]) > 0]) > 0]";

/// Running with `entries` interfaces (three nodes each), written by the administrator.
async fn seed(c: &mut Client, entries: usize) {
    let all: String = (0..entries).map(|i| iface(&format!("e{i}"), "")).collect();
    ok(&c.rpc("seed", &edit("running", &ifs(&all))).await);
}

fn xpath_get_config(select: &str) -> String {
    format!(
        "<get-config><source><running/></source><filter type=\"xpath\" select=\"{select}\"/></get-config>"
    )
}

/// An XPath filter within the limit but slow (a cubic one on about 300 nodes) runs off the
/// session's thread even though running is small enough for light requests: another
/// session's read is answered while it runs. The test's runtime has one thread: a filter
/// run on it would hold that read until the filter was done.
#[tokio::test]
async fn a_costly_xpath_filter_does_not_stall_other_sessions() {
    let fx = Fx::with_config(EngineConfig { max_filter_cost: u64::MAX, ..Default::default() });
    let mut admin = fx.open("admin").await;
    seed(&mut admin, 100).await;
    let size = fx.engine.datastores().size(mgmt::datastore::DatastoreName::Running);
    assert!(size <= mgmt::engine::MAX_DATASTORE, "running must be light-sized: {size}");
    let mut slow = fx.open("admin").await;
    let mut reader = fx.open("admin").await;

    let t0 = Instant::now();
    slow.send(&format!(
        "<rpc message-id=\"slow\" xmlns=\"{NETCONF_BASE_NS}\">{}</rpc>",
        xpath_get_config(CUBIC)
    ))
    .await;
    let read = async {
        let r = reader.rpc("read", "<get-config><source><running/></source></get-config>").await;
        (Instant::now(), r)
    };
    let filtered = async {
        let r = netconf_proto::xml::parse(&slow.recv().await.expect("reply")).expect("xml");
        (Instant::now(), r)
    };
    let ((read_at, read), (filtered_at, filtered)) = tokio::join!(read, filtered);
    assert!(data(&read).contains("e99"));
    assert!(data(&filtered).contains("e99"), "the filter selects every node");
    eprintln!("read answered after {:?}, the filter after {:?}", read_at - t0, filtered_at - t0);
    assert!(
        filtered_at.duration_since(read_at) > Duration::from_millis(100),
        "the read waited for the filter: read after {:?}, filter after {:?}",
        read_at - t0,
        filtered_at - t0
    );
}

/// Filters that would cost more than the limit are refused with too-big, saying why; the
/// session goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn filters_over_the_cost_limit_are_refused() {
    let fx = Fx::new();
    let mut c = fx.open("admin").await;
    seed(&mut c, 100).await;

    // An XPath filter of <get-config>, of <get-data>, of <get>.
    let get_data = format!(
        "<get-data xmlns=\"{NMDA}\" xmlns:ds=\"urn:ietf:params:xml:ns:yang:ietf-datastores\"><datastore>ds:running</datastore><xpath-filter>{QUARTIC}</xpath-filter></get-data>"
    );
    let get = format!("<get><filter type=\"xpath\" select=\"{QUARTIC}\"/></get>");
    for request in [xpath_get_config(QUARTIC), get_data, get] {
        let t0 = Instant::now();
        let e = expect_err(&c.rpc("x", &request).await, "too-big", "application");
        assert!(e.message.contains("node visits"), "{}", e.message);
        assert!(
            t0.elapsed() < Duration::from_secs(2),
            "refused before running: {:?}",
            t0.elapsed()
        );
    }

    // A subtree filter of 100 000 containment nodes, each matched against every interface.
    let nodes: String =
        (0..100_000).map(|i| format!("<interface><name>x{i}</name></interface>")).collect();
    let filter = format!(
        "<filter type=\"subtree\"><interfaces xmlns=\"{IF}\">{nodes}</interfaces></filter>"
    );
    let r =
        c.rpc("s", &format!("<get-config><source><running/></source>{filter}</get-config>")).await;
    let e = expect_err(&r, "too-big", "application");
    assert!(e.message.contains("subtree filter"), "{}", e.message);

    // A subscription whose XPath filter is too costly even for a small event.
    let sub = format!(
        "<create-subscription xmlns=\"{NOTIF}\"><filter type=\"xpath\" select=\"{QUARTIC}\"/></create-subscription>"
    );
    let e = expect_err(&c.rpc("n", &sub).await, "too-big", "application");
    assert!(e.message.contains("node visits"), "{}", e.message);

    // Ordinary filters still work, and the session is still there.
    let one = "/if:interfaces/if:interface[if:name='e7']";
    let r = c
        .rpc(
            "ok",
            &format!(
                "<get-config xmlns:if=\"{IF}\"><source><running/></source><filter type=\"xpath\" select=\"{one}\"/></get-config>"
            ),
        )
        .await;
    let text = data(&r);
    assert!(text.contains("e7") && !text.contains("e8"), "{text}");
}
