//! Interoperability with ncclient (Debian's python3-ncclient, over paramiko): connect with a
//! password and with a key, check the negotiated capabilities, see an rpc-error come back as
//! ncclient's RPCError, and close the session.
//!
//! Runs Debian's /usr/bin/python3 (not whatever python3 is first on PATH), which is where
//! python3-ncclient installs. Missing: fails under CI, skipped loudly elsewhere.

mod common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::{external_tool, weak_hash};
use mgmt::config::Config;
use mgmt::ssh::Server;
use russh::keys::ssh_key::LineEnding;
use russh::keys::{Algorithm, PrivateKey};

const PYTHON: &str = "/usr/bin/python3";

/// The interpreter, if it exists and has ncclient (same convention as `external_tool`).
fn python_with_ncclient() -> Option<std::path::PathBuf> {
    let python = external_tool(PYTHON, "python3")?;
    let ok =
        Command::new(&python).args(["-c", "import ncclient"]).output().map(|o| o.status.success());
    if ok.unwrap_or(false) {
        return Some(python);
    }
    let msg = format!(
        "{PYTHON} cannot import ncclient (Debian package python3-ncclient); run scripts/deps.sh"
    );
    if std::env::var_os("CI").is_some() {
        panic!("{msg}");
    }
    eprintln!("\n!!!!! SKIPPED: {msg} !!!!!\n");
    None
}

async fn run_driver(python: &Path, args: Vec<String>) -> serde_json::Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ncclient_driver.py");
    let python = python.to_path_buf();
    let output =
        tokio::task::spawn_blocking(move || Command::new(python).arg(script).args(args).output())
            .await
            .expect("no panic")
            .expect("run python");
    assert!(
        output.status.success(),
        "ncclient driver failed:\nstdout: {}\nstderr: {}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("driver prints JSON")
}

fn check(result: &serde_json::Value) {
    assert_eq!(result["connected"], true);
    let id = result["session_id"].as_str().expect("session id as text");
    assert!(id.parse::<u32>().is_ok_and(|n| n > 0), "session id {id}");
    let caps: Vec<&str> = result["server_capabilities"]
        .as_array()
        .expect("list")
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    assert!(caps.contains(&"urn:ietf:params:netconf:base:1.0"), "{caps:?}");
    assert!(caps.contains(&"urn:ietf:params:netconf:base:1.1"), "{caps:?}");
    assert_eq!(result["get"]["tag"], "operation-not-supported");
    assert_eq!(result["get"]["type"], "protocol");
    assert_eq!(result["get"]["severity"], "error");
    assert!(result["get"]["message"].as_str().is_some_and(|m| m.contains("'get'")));
    assert_eq!(result["close_session_ok"], true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ncclient_password_and_key_login() {
    let Some(python) = python_with_ncclient() else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    let key = PrivateKey::random(&mut rand::rng(), Algorithm::Ed25519).expect("client key");
    let key_file = dir.path().join("client_key");
    std::fs::write(&key_file, key.to_openssh(LineEnding::LF).expect("openssh").as_bytes())
        .expect("key file");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&key_file, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    }
    let public = key.public_key().to_openssh().expect("public");
    std::fs::write(
        dir.path().join("users"),
        format!("alice password {}\nalice key {public}\n", weak_hash("wonderland")),
    )
    .expect("users file");
    let server = Server::start(Config {
        listen: "127.0.0.1:0".parse().expect("addr"),
        state_dir: dir.path().join("state"),
        users_file: Some(dir.path().join("users")),
        auth_rejection_time: Duration::from_millis(10),
        ..Config::default()
    })
    .await
    .expect("server starts");
    let port = server.local_addr().port().to_string();

    let by_password = run_driver(
        &python,
        vec![
            "127.0.0.1".into(),
            port.clone(),
            "alice".into(),
            "password".into(),
            "wonderland".into(),
        ],
    )
    .await;
    check(&by_password);

    let by_key = run_driver(
        &python,
        vec![
            "127.0.0.1".into(),
            port,
            "alice".into(),
            "key".into(),
            key_file.display().to_string(),
        ],
    )
    .await;
    check(&by_key);
    assert_ne!(by_password["session_id"], by_key["session_id"], "each session has its own id");

    server.shutdown().await;
}
