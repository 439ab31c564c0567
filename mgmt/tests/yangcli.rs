//! Interoperability with yangcli (yuma123, Debian package `yangcli`): a live server on
//! 127.0.0.1, driven by yangcli in batch mode through hello (with module discovery by
//! get-schema), get-config and an edit-config (merge into candidate, then commit); the edit
//! is then checked by reading running with our own client.
//!
//! Missing yangcli: fails under CI, skipped loudly elsewhere.

mod common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{
    external_tool, interface_description, live_password_server, read_running, seed_interface,
};

const YANGCLI: &str = "/usr/bin/yangcli";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn yangcli_hello_get_config_and_edit_config() {
    let Some(yangcli) = external_tool(YANGCLI, "yangcli") else { return };
    let (server, dir) = live_password_server().await;
    let addr = server.local_addr();
    // Something in running first, so yangcli's get-config has content to show.
    seed_interface(addr, "eth0", "seeded-by-mgmt").await;

    let script = dir.path().join("script.ycl");
    std::fs::write(
        &script,
        "sget-config /interfaces source=running\n\
         merge /interfaces/interface -- name=eth7 type=ethernetCsmacd description=set-by-yangcli\n\
         commit\n\
         sget-config /interfaces source=running\n",
    )
    .expect("script");
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).expect("home");
    let out_path = dir.path().join("yangcli.out");
    let out = std::fs::File::create(&out_path).expect("output file");
    let mut child = Command::new(yangcli)
        .env("HOME", &home) // yangcli keeps ~/.yuma (history, module cache) under HOME
        .args([
            "--server=127.0.0.1".to_string(),
            format!("--ncport={}", addr.port()),
            "--user=alice".into(),
            "--password=wonderland".into(),
            "--batch-mode".into(),
            format!("--run-script={}", script.display()),
            "--autoload=true".into(),
            "--timeout=20".into(),
        ])
        .stdin(Stdio::null())
        .stdout(out.try_clone().expect("dup"))
        .stderr(out)
        .spawn()
        .expect("run yangcli");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if started.elapsed() > Duration::from_secs(90) {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "yangcli did not finish in 90 s:\n{}",
                std::fs::read_to_string(&out_path).unwrap_or_default()
            );
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let output = std::fs::read_to_string(&out_path).expect("yangcli output");
    assert!(status.success(), "yangcli exited with {status}:\n{output}");

    // Hello: yangcli saw our capabilities and chose base:1.1 framing.
    assert!(output.contains("Protocol version set to: RFC 6241 (base:1.1)"), "{output}");
    // No module went missing (autoload fetched each by get-schema) and nothing failed.
    for bad in ["not loaded", "Error", "error(", "rpc-error", "canceled"] {
        assert!(!output.contains(bad), "yangcli output has {bad:?}:\n{output}");
    }
    // get-config showed what running held; the edit-config and the commit were answered ok.
    assert!(output.contains("seeded-by-mgmt"), "first get-config shows eth0:\n{output}");
    assert_eq!(output.matches("RPC OK Reply").count(), 2, "edit-config and commit ok:\n{output}");
    assert!(output.contains("set-by-yangcli"), "last get-config shows eth7:\n{output}");

    // Read back with our own client: the edit is in running, the seeded entry untouched.
    let data = read_running(addr).await;
    assert_eq!(interface_description(&data, "eth7").as_deref(), Some("set-by-yangcli"));
    assert_eq!(interface_description(&data, "eth0").as_deref(), Some("seeded-by-mgmt"));
    server.shutdown().await;
}
