//! The Backend boundary: transactions (prepare on all, then apply, or abort all; a refusal
//! is an rpc-error and running is unchanged), operational state, backend RPCs, the start-up
//! configuration, and a module without a backend being simply stored.

mod common;

use std::sync::{Arc, Mutex};

use common::fixture::*;
use mgmt::backend::{Backend, BackendError, Origin, StateRequest, Transaction};
use mgmt::engine::Mode;
use mgmt::yang::data::ChangeOp;
use netconf_proto::xml::{Element, NETCONF_BASE_NS};

/// Records what it is asked; refuses a label "refuse".
struct Recorder {
    name: String,
    modules: Vec<String>,
    log: Mutex<Vec<String>>,
}

impl Recorder {
    fn new(name: &str, modules: &[&str]) -> Arc<Recorder> {
        Arc::new(Recorder {
            name: name.into(),
            modules: modules.iter().map(|m| m.to_string()).collect(),
            log: Mutex::new(Vec::new()),
        })
    }

    fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.log.lock().expect("log"))
    }

    fn note(&self, what: &str, tx: &Transaction<'_>) {
        let changes: Vec<String> = tx
            .changes
            .iter()
            .map(|c| {
                let op = match c.op {
                    ChangeOp::Create => "create",
                    ChangeOp::Delete => "delete",
                    ChangeOp::Modify => "modify",
                };
                format!("{op} {}", c.path.to_json_path())
            })
            .collect();
        self.log.lock().expect("log").push(format!("{what} {}", changes.join(", ")));
    }
}

impl Backend for Recorder {
    fn name(&self) -> &str {
        &self.name
    }

    fn modules(&self) -> Vec<String> {
        self.modules.clone()
    }

    fn prepare(&self, tx: &Transaction<'_>) -> Result<(), BackendError> {
        self.note("prepare", tx);
        let refused = tx
            .new
            .child(MT, "settings")
            .and_then(|s| s.child(MT, "label"))
            .is_some_and(|l| l.text() == "refuse");
        if refused && self.modules.iter().any(|m| m == "mgmt-test") {
            return Err(BackendError::new(
                "the hardware cannot take label 'refuse'; choose another label",
            )
            .at("/mgmt-test:settings/label"));
        }
        Ok(())
    }

    fn apply(&self, tx: &Transaction<'_>) {
        self.note("apply", tx);
    }

    fn abort(&self, tx: &Transaction<'_>) {
        self.note("abort", tx);
    }

    fn state(&self, _request: &StateRequest<'_>) -> Result<Vec<Element>, BackendError> {
        if !self.modules.iter().any(|m| m == "mgmt-test") {
            return Ok(Vec::new());
        }
        Ok(vec![Element::new(MT, "counters")
            .with(Element::leaf(MT, "frames", "42"))
            .with(Element::new(MT, "port").with(Element::leaf(MT, "name", "p1")))])
    }

    fn rpcs(&self) -> Vec<(String, String)> {
        if self.modules.iter().any(|m| m == "mgmt-test") {
            vec![(MT.to_string(), "reset-counters".to_string())]
        } else {
            Vec::new()
        }
    }

    fn rpc(&self, origin: &Origin, input: &Element) -> Result<Vec<Element>, BackendError> {
        let port = input.child(MT, "port").map(Element::text).unwrap_or_default();
        if port == "bad" {
            return Err(BackendError::new("port 'bad' does not exist"));
        }
        self.log.lock().expect("log").push(format!("rpc {port} by {:?}", origin.user));
        Ok(vec![Element::leaf(MT, "cleared", "7")])
    }
}

#[tokio::test]
async fn transactions_refusals_state_and_rpcs() {
    let test = Recorder::new("test", &["mgmt-test"]);
    let ifs_backend = Recorder::new("interfaces", &["ietf-interfaces"]);
    let fx = Fx::with_backends(vec![ifs_backend.clone(), test.clone()]);
    // The start-up configuration (empty here) touched nothing.
    assert!(test.take().is_empty() && ifs_backend.take().is_empty());
    let mut c = fx.open("admin").await;

    // A change touching only mgmt-test goes to its backend only.
    ok(&c
        .rpc(
            "1",
            &edit("running", &format!("<settings xmlns=\"{MT}\"><label>a</label></settings>")),
        )
        .await);
    assert_eq!(
        test.take(),
        ["prepare create /mgmt-test:settings", "apply create /mgmt-test:settings"]
    );
    assert!(ifs_backend.take().is_empty());

    // Both modules in one edit: both prepare and apply, each seeing its own changes.
    let both =
        format!("<settings xmlns=\"{MT}\"><label>b</label></settings>{}", ifs(&iface("b0", "")));
    ok(&c.rpc("2", &edit("running", &both)).await);
    assert_eq!(
        test.take(),
        ["prepare modify /mgmt-test:settings/label", "apply modify /mgmt-test:settings/label"]
    );
    assert_eq!(
        ifs_backend.take(),
        ["prepare create /ietf-interfaces:interfaces", "apply create /ietf-interfaces:interfaces"]
    );

    // A refusal: operation-failed with the backend's message and path; the backend that had
    // prepared aborts; running is unchanged.
    let refused = format!(
        "{}<settings xmlns=\"{MT}\"><label>refuse</label></settings>",
        ifs(&iface("b1", ""))
    );
    let r = c.rpc("3", &edit("running", &refused)).await;
    let e = expect_err(&r, "operation-failed", "application");
    assert!(e.message.contains("cannot take label 'refuse'"), "{}", e.message);
    assert_eq!(e.path.as_deref(), Some("/mt:settings/mt:label"));
    let log = ifs_backend.take();
    assert_eq!(
        log.first().map(String::as_str),
        Some("prepare create /ietf-interfaces:interfaces/interface[name='b1']")
    );
    assert_eq!(
        log.get(1).map(String::as_str),
        Some("abort create /ietf-interfaces:interfaces/interface[name='b1']")
    );
    assert!(!test.take().iter().any(|l| l.starts_with("apply")));
    let running = get_config(&mut c, "running", "").await;
    assert!(running.contains("<label>b</label>") && !running.contains("b1"), "{running}");

    // The same through the candidate: commit refused, candidate kept for fixing.
    ok(&c
        .rpc(
            "4",
            &edit(
                "candidate",
                &format!("<settings xmlns=\"{MT}\"><label>refuse</label></settings>"),
            ),
        )
        .await);
    assert!(test.take().is_empty(), "candidate edits do not reach backends");
    expect_err(&c.rpc("5", "<commit/>").await, "operation-failed", "application");
    assert!(get_config(&mut c, "candidate", "").await.contains("refuse"));
    ok(&c.rpc("6", "<discard-changes/>").await);
    test.take();

    // Operational state merged into <get>, with defaults on request.
    let t =
        data(&c.rpc("7", &format!("<get><filter><counters xmlns=\"{MT}\"/></filter></get>")).await);
    assert!(
        t.contains("<frames>42</frames>")
            && t.contains("<name>p1</name>")
            && !t.contains("<drops>"),
        "{t}"
    );
    let t = data(&c.rpc("8", &format!("<get><filter><counters xmlns=\"{MT}\"/></filter><with-defaults xmlns=\"urn:ietf:params:xml:ns:yang:ietf-netconf-with-defaults\">report-all</with-defaults></get>")).await);
    assert!(t.contains("<drops>0</drops>"), "{t}");
    // get-config never shows state.
    assert!(!get_config(&mut c, "running", "").await.contains("frames"));

    // RPCs: validated against the schema, run by the backend, output returned.
    let r = c
        .rpc("9", &format!("<reset-counters xmlns=\"{MT}\"><port>p1</port></reset-counters>"))
        .await;
    assert_eq!(r.child(MT, "cleared").map(Element::text).as_deref(), Some("7"), "{}", r.to_xml());
    assert_eq!(test.take(), ["rpc p1 by Some(\"admin\")"]);
    let r = c.rpc("10", &format!("<reset-counters xmlns=\"{MT}\"/>")).await;
    assert!(
        r.child(NETCONF_BASE_NS, "rpc-error").is_some(),
        "the mandatory input is missing: {}",
        r.to_xml()
    );
    expect_err(
        &c.rpc("11", &format!("<reset-counters xmlns=\"{MT}\"><port>bad</port></reset-counters>"))
            .await,
        "operation-failed",
        "application",
    );

    // A confirmed commit's rollback goes through the backends too.
    ok(&c
        .rpc(
            "12",
            &edit("candidate", &format!("<settings xmlns=\"{MT}\"><label>c</label></settings>")),
        )
        .await);
    ok(&c.rpc("13", "<commit><confirmed/></commit>").await);
    ok(&c.rpc("14", "<cancel-commit/>").await);
    assert_eq!(
        test.take(),
        [
            "prepare modify /mgmt-test:settings/label",
            "apply modify /mgmt-test:settings/label",
            "prepare modify /mgmt-test:settings/label",
            "apply modify /mgmt-test:settings/label"
        ]
    );
}

#[tokio::test]
async fn backends_get_the_configuration_loaded_at_start_and_can_refuse_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let open = |backends: Vec<Arc<dyn Backend>>| {
        mgmt::engine::Engine::open(
            dir.path(),
            common::test_schema(),
            mgmt::protocol::sessions::Registry::new(4),
            mgmt::engine::EngineConfig {
                admin_user: Some("admin".into()),
                replay_log: 8,
                initial_config: None,
                ..Default::default()
            },
            backends,
        )
    };
    {
        let engine = open(Vec::new()).expect("engine");
        let xml = format!(
            "{}<settings xmlns=\"{MT}\"><label>refuse</label></settings>",
            engine.datastores().get(mgmt::datastore::DatastoreName::Running).expect("get")
        );
        engine.datastores().replace(mgmt::datastore::DatastoreName::Running, &xml).expect("stored");
    }
    let interfaces = Recorder::new("interfaces", &["ietf-interfaces"]);
    let nacm = Recorder::new("nacm", &["ietf-netconf-acm"]);
    {
        let _engine = open(vec![interfaces.clone(), nacm.clone()]).expect("engine");
    }
    assert!(interfaces.take().is_empty(), "nothing of its modules is configured");
    assert_eq!(
        nacm.take(),
        ["prepare create /ietf-netconf-acm:nacm", "apply create /ietf-netconf-acm:nacm"]
    );
    let test = Recorder::new("test", &["mgmt-test"]);
    let e = open(vec![test]).expect_err("refused");
    assert!(e.to_string().contains("cannot take label 'refuse'"), "{e}");
}

/// Blocks `prepare` until released.
struct Gate {
    entered: std::sync::atomic::AtomicBool,
    open: Mutex<bool>,
    cv: std::sync::Condvar,
}

impl Backend for Gate {
    fn name(&self) -> &str {
        "gate"
    }

    fn modules(&self) -> Vec<String> {
        vec!["mgmt-test".into()]
    }

    fn prepare(&self, _tx: &Transaction<'_>) -> Result<(), BackendError> {
        self.entered.store(true, std::sync::atomic::Ordering::SeqCst);
        let mut open = self.open.lock().expect("gate");
        while !*open {
            open = self.cv.wait(open).expect("gate");
        }
        Ok(())
    }

    fn apply(&self, _tx: &Transaction<'_>) {}
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readers_are_not_blocked_by_a_slow_commit() {
    let gate = Arc::new(Gate {
        entered: std::sync::atomic::AtomicBool::new(false),
        open: Mutex::new(false),
        cv: std::sync::Condvar::new(),
    });
    let fx = Fx::with_backends(vec![gate.clone()]);
    let mut writer = fx.open("admin").await;
    let mut reader = fx.open("admin").await;
    ok(&reader.rpc("0", &edit("running", &ifs(&iface("r0", "")))).await);
    // The writer's commit stops inside the backend's prepare, holding the writer's lock.
    writer
        .send(&format!(
            "<rpc message-id=\"w\" xmlns=\"{NETCONF_BASE_NS}\">{}</rpc>",
            edit("running", &format!("<settings xmlns=\"{MT}\"><label>slow</label></settings>"))
        ))
        .await;
    while !gate.entered.load(std::sync::atomic::Ordering::SeqCst) {
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    // Meanwhile other sessions read (the running they see is the one before the commit).
    for i in 0..5 {
        let t = tokio::time::Instant::now();
        let running = get_config(&mut reader, "running", "").await;
        assert!(running.contains("r0") && !running.contains("slow"), "{running}");
        let state = data(&reader.rpc(&format!("g{i}"), "<get><filter><netconf-state xmlns=\"urn:ietf:params:xml:ns:yang:ietf-netconf-monitoring\"><sessions/></netconf-state></filter></get>").await);
        assert!(state.contains("<session-id>"));
        assert!(t.elapsed() < std::time::Duration::from_secs(2), "a read waited for the writer");
    }
    *gate.open.lock().expect("gate") = true;
    gate.cv.notify_all();
    let reply = netconf_proto::xml::parse(&writer.recv().await.expect("reply")).expect("xml");
    ok(&reply);
    assert!(get_config(&mut reader, "running", "").await.contains("slow"));
}

/// A light change that finds the writer mutex held does not wait for it on the session's
/// async task: that would stall every session on the thread (the test's runtime has one).
/// If it did, the read below would only be answered once the watchdog opened the gate.
#[tokio::test]
async fn a_change_waiting_for_the_writer_does_not_stall_other_sessions() {
    use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
    let gate = Arc::new(Gate {
        entered: AtomicBool::new(false),
        open: Mutex::new(false),
        cv: std::sync::Condvar::new(),
    });
    let fx = Fx::with_backends(vec![gate.clone()]);
    let mut slow = fx.open("admin").await;
    let mut waiting = fx.open("admin").await;
    let mut reader = fx.open("admin").await;
    let rpc = |id: &str, op: &str| {
        format!("<rpc message-id=\"{id}\" xmlns=\"{NETCONF_BASE_NS}\">{op}</rpc>")
    };
    // Should a request block this thread, only the watchdog can open the gate (and it
    // says so): the test then fails instead of hanging.
    let watchdog_opened = Arc::new(AtomicBool::new(false));
    let open_gate = {
        let (gate, flag) = (gate.clone(), watchdog_opened.clone());
        move |by_watchdog: bool| {
            let mut open = gate.open.lock().expect("gate");
            if !*open {
                *open = true;
                flag.store(by_watchdog, SeqCst);
            }
            gate.cv.notify_all();
        }
    };
    let watchdog = {
        let open_gate = open_gate.clone();
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_secs(10));
            open_gate(true);
        })
    };
    // A change of running that stops in the backend's prepare, holding the writer mutex.
    slow.send(&rpc(
        "s",
        &edit("running", &format!("<settings xmlns=\"{MT}\"><label>slow</label></settings>")),
    ))
    .await;
    while !gate.entered.load(SeqCst) {
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    // A small edit of the candidate: light, but the writer mutex is held.
    waiting.send(&rpc("w", &edit("candidate", &ifs(&iface("w0", ""))))).await;
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    let running = get_config(&mut reader, "running", "").await;
    assert!(!watchdog_opened.load(SeqCst), "the read waited for the changes behind the writer");
    assert!(!running.contains("slow"), "{running}");
    open_gate(false);
    ok(&netconf_proto::xml::parse(&slow.recv().await.expect("reply")).expect("xml"));
    ok(&netconf_proto::xml::parse(&waiting.recv().await.expect("reply")).expect("xml"));
    assert!(get_config(&mut reader, "candidate", "").await.contains("w0"));
    drop(watchdog);
}

/// A light request run inline that would have to wait for the writer mutex stops before
/// changing anything, so that it can be run again on a blocking thread.
#[test]
fn an_inline_request_that_would_wait_changes_nothing() {
    use mgmt::datastore::DatastoreName;
    use mgmt::dispatch::{dispatch, Outcome};
    use mgmt::engine::SessionCtx;
    use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
    let gate = Arc::new(Gate {
        entered: AtomicBool::new(false),
        open: Mutex::new(false),
        cv: std::sync::Condvar::new(),
    });
    let fx = Fx::with_backends(vec![gate.clone()]);
    let engine = fx.engine.clone();
    let (a, b) = (
        SessionCtx { id: 1, user: "admin".into(), source: None },
        SessionCtx { id: 2, user: "admin".into(), source: None },
    );
    engine.session_started(&a);
    engine.session_started(&b);
    let op = |text: &str| {
        let msg = format!("<rpc message-id=\"1\" xmlns=\"{NETCONF_BASE_NS}\">{text}</rpc>");
        mgmt::protocol::rpc::parse_request(msg.as_bytes()).expect("request").operation
    };
    let kind = |o: &Outcome| match o {
        Outcome::Reply(mgmt::protocol::rpc::ReplyBody::Ok) => "ok",
        Outcome::Reply(mgmt::protocol::rpc::ReplyBody::Raw(_)) => "data",
        _ => "error",
    };
    // B holds the candidate's lock; its unlock will have to wait too.
    let lock = op("<lock><target><candidate/></target></lock>");
    assert_eq!(kind(&dispatch(&engine, &b, Mode::Blocking, false, &lock)), "ok");
    // A's change of running stops in the backend's prepare, holding the writer mutex.
    let slow = {
        let (engine, a) = (engine.clone(), a.clone());
        let change = op(&edit(
            "running",
            &format!("<settings xmlns=\"{MT}\"><label>slow</label></settings>"),
        ));
        std::thread::spawn(move || kind(&dispatch(&engine, &a, Mode::Blocking, false, &change)))
    };
    while !gate.entered.load(SeqCst) {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert!(engine.writer_busy());
    let before = engine.datastores().get(DatastoreName::Candidate).expect("candidate");
    // Run on another thread so that a request that does wait cannot hang the test.
    let inline = |text: String| {
        let (engine, b) = (engine.clone(), b.clone());
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let op = op(&text);
            let _ = tx.send(mgmt::session::inline::run(|mode| {
                kind(&dispatch(&engine, &b, mode, false, &op))
            }));
        });
        rx.recv_timeout(std::time::Duration::from_secs(5)).expect("an inline request never waits")
    };
    assert_eq!(inline(edit("candidate", &ifs(&iface("b0", "")))), None);
    assert_eq!(inline("<unlock><target><candidate/></target></unlock>".into()), None);
    assert_eq!(inline("<discard-changes/>".into()), None);
    assert_eq!(inline("<commit/>".into()), None);
    assert_eq!(engine.datastores().get(DatastoreName::Candidate).expect("candidate"), before);
    assert_eq!(engine.lock_holder(DatastoreName::Candidate), Some(2), "the lock is still held");
    // Reads take no lock.
    assert_eq!(inline("<get-config><source><running/></source></get-config>".into()), Some("data"));
    *gate.open.lock().expect("gate") = true;
    gate.cv.notify_all();
    assert_eq!(slow.join().expect("thread"), "ok");
    // With the writer free, inline requests go through.
    assert_eq!(inline(edit("candidate", &ifs(&iface("b0", "")))), Some("ok"));
    assert_eq!(inline("<unlock><target><candidate/></target></unlock>".into()), Some("ok"));
}

/// A backend that waits for another task of the server's runtime in `apply`, as a daemon's
/// backend does when it hands a change to a port task and waits for its answer: that is
/// only possible on a blocking thread (on an async worker `block_on` panics).
struct WaitsForATask {
    applied: Arc<std::sync::atomic::AtomicUsize>,
}

impl Backend for WaitsForATask {
    fn name(&self) -> &str {
        "waits"
    }

    fn modules(&self) -> Vec<String> {
        vec!["mgmt-test".into()]
    }

    fn apply(&self, _tx: &Transaction<'_>) {
        let rt = tokio::runtime::Handle::current();
        let answer = rt.block_on(async { tokio::spawn(async { 7 }).await.expect("task") });
        assert_eq!(answer, 7);
        self.applied.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn start_up_hands_the_stored_configuration_to_backends_on_a_blocking_thread() {
    // Some mgmt-test configuration stored by a first server (its own process, so that its
    // database lock is gone when it is killed).
    let dir = tempfile::tempdir().expect("tempdir");
    let state = dir.path().join("state");
    std::fs::create_dir_all(&state).expect("state dir");
    let users = format!("alice password {}\n", common::weak_hash("wonderland"));
    std::fs::write(state.join("users"), &users).expect("users");
    std::fs::write(dir.path().join("users"), &users).expect("users");
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_mgmt-serve"));
    command.arg(&state).args(common::serve_args("alice"));
    let (mut first, addr) = common::spawn_serve(command);
    let ssh = common::ssh_login(addr, common::Login::Password("alice", "wonderland"))
        .await
        .expect("login");
    let ch = common::open_subsystem(&ssh, "netconf").await.expect("subsystem");
    let mut c = common::NcClient::connect(ch.into_stream(), &common::both_bases()).await;
    let label = format!("<settings xmlns=\"{MT}\"><label>kept</label></settings>");
    ok(&c.rpc("1", &edit("running", &label)).await);
    first.kill().expect("kill");
    let _ = first.wait();

    let applied = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let backend = Arc::new(WaitsForATask { applied: applied.clone() });
    let server =
        mgmt::ssh::Server::start_with_backends(common::live_config(dir.path()), vec![backend])
            .await
            .expect("the server starts with a backend that waits in apply");
    assert_eq!(
        applied.load(std::sync::atomic::Ordering::SeqCst),
        1,
        "the stored configuration was applied"
    );
    server.shutdown().await;
}
