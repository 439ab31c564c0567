//! `mgmt-serve --indent`: replies an element a line, so that a line diff of two configurations
//! (Ansible's `--diff`) shows the nodes that changed; the data is the same as without it.

mod common;

use std::process::Command;

use common::{both_bases, errors, open_subsystem, ssh_login, Login, NcClient, IF_NS};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn indented_replies_put_each_element_on_its_own_line() {
    let (_dir, state) = common::serve_state(&["alice"]);
    let mut command = Command::new(env!("CARGO_BIN_EXE_mgmt-serve"));
    command.arg(&state).args(common::serve_args("alice")).arg("--indent");
    let (mut server, addr) = common::spawn_serve(command);
    let ssh = ssh_login(addr, Login::Password("alice", "pw")).await.expect("login");
    let ch = open_subsystem(&ssh, "netconf").await.expect("subsystem");
    let mut c = NcClient::connect(ch.into_stream(), &both_bases()).await;
    let edit = format!(
        "<edit-config><target><running/></target><config><interfaces xmlns=\"{IF_NS}\">\
         <interface><name>eth0</name><type xmlns:ianaift=\"urn:ietf:params:xml:ns:yang:iana-if-type\">ianaift:ethernetCsmacd</type>\
         <description>  two spaces kept  </description></interface></interfaces></config></edit-config>"
    );
    assert_eq!(errors(&c.rpc("1", &edit).await), vec![]);
    let filter = format!("<filter><interfaces xmlns=\"{IF_NS}\"/></filter>");
    let get = format!(
        "<rpc message-id=\"2\" xmlns=\"urn:ietf:params:xml:ns:netconf:base:1.0\"><get-config><source><running/></source>{filter}</get-config></rpc>"
    );
    c.send(&get).await;
    let raw = String::from_utf8(c.recv().await.expect("reply")).expect("utf-8");
    for line in [
        "\n      <interface>",
        "\n        <name>eth0</name>",
        "\n        <description>  two spaces kept  </description>",
    ] {
        assert!(raw.contains(line), "{line:?} in {raw}");
    }
    let _ = c.rpc("3", "<close-session/>").await;
    server.kill().expect("kill");
    let _ = server.wait();
}
