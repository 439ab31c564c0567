//! Where the server's CPU goes in bench.py's edit-config + commit, without SSH: the engine
//! in-process, each stage timed on its own, then the whole dispatch path.
//!
//!   cargo run --release -p mgmt --example edit_cost -- [ENTRIES] [REPS] [update | update-only | dispatch-only | create-only]   (512 20)
//!
//! Prints the median time of each stage (ms) over REPS runs. With `update`, then times what
//! bench.py's throughput part does: with ENTRIES interfaces present, one session changing the
//! description of one of them + commit, REPS times. With `update-only`, only that (so that
//! instruction counts of two REPS values differ by updates alone). With `dispatch-only`, only
//! the whole dispatch path (for profiles of it alone); with `create-only`, only the edit-config
//! into an empty candidate (discarded after each).

use std::sync::Arc;
use std::time::Instant;

use mgmt::dispatch::{dispatch, Outcome};
use mgmt::engine::Mode;
use mgmt::engine::{Engine, EngineConfig, SessionCtx};
use mgmt::protocol::rpc::{parse_request, ReplyBody};
use mgmt::protocol::sessions::Registry;
use mgmt::yang::data;
use mgmt::yang::schema::{ModuleSpec, Schema};

/// The server's allocator, so that the figures are the server's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const IF_NS: &str = "urn:ietf:params:xml:ns:yang:ietf-interfaces";
const IANA_NS: &str = "urn:ietf:params:xml:ns:yang:iana-if-type";
const NC: &str = "urn:ietf:params:xml:ns:netconf:base:1.0";

fn edit(n: usize) -> String {
    let mut body = String::new();
    for i in 0..n {
        body.push_str(&format!(
            "<interface><name>if{i}</name><type xmlns:ianaift=\"{IANA_NS}\">ianaift:ethernetCsmacd</type><description>bench</description><enabled>true</enabled></interface>"
        ));
    }
    format!("<rpc message-id=\"1\" xmlns=\"{NC}\"><edit-config><target><candidate/></target><config><interfaces xmlns=\"{IF_NS}\">{body}</interfaces></config></edit-config></rpc>")
}

fn remove_all() -> String {
    format!("<rpc message-id=\"2\" xmlns=\"{NC}\"><edit-config><target><candidate/></target><config xmlns:nc=\"{NC}\"><interfaces xmlns=\"{IF_NS}\" nc:operation=\"remove\"/></config></edit-config></rpc>")
}

fn commit() -> String {
    format!("<rpc message-id=\"3\" xmlns=\"{NC}\"><commit/></rpc>")
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn run(engine: &Arc<Engine>, ctx: &SessionCtx, msg: &str) {
    let op = parse_request(msg.as_bytes()).expect("request parses").operation;
    if let Outcome::Reply(ReplyBody::Errors(e)) = dispatch(engine, ctx, Mode::Blocking, false, &op)
    {
        panic!("rpc failed: {e:?}");
    }
}

fn main() {
    let args: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let n = args.first().copied().unwrap_or(512);
    let reps = args.get(1).copied().unwrap_or(20);
    let schema = Arc::new(
        Schema::new(
            &[],
            &[ModuleSpec::new("ietf-interfaces", &[]), ModuleSpec::new("iana-if-type", &[])],
        )
        .expect("schema"),
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let engine = Engine::open(
        dir.path(),
        schema.clone(),
        Registry::new(8),
        EngineConfig { admin_user: Some("admin".into()), ..EngineConfig::default() },
        Vec::new(),
    )
    .expect("engine");
    let ctx = SessionCtx { id: 1, user: "admin".into(), source: None };
    engine.session_started(&ctx);
    let msg = edit(n);
    if std::env::args().any(|a| a == "update-only") {
        update(&engine, &ctx, &msg, reps);
        return;
    }

    if std::env::args().any(|a| a == "create-only") {
        let discard = format!("<rpc message-id=\"5\" xmlns=\"{NC}\"><discard-changes/></rpc>");
        let mut e = Vec::new();
        for _ in 0..reps {
            let t = Instant::now();
            run(&engine, &ctx, &msg);
            e.push(t.elapsed().as_secs_f64() * 1e3);
            run(&engine, &ctx, &discard);
        }
        println!("  {:<24} {:8.3}", "dispatch edit-config", median(e));
        return;
    }
    if std::env::args().any(|a| a == "dispatch-only") {
        dispatch_only(&engine, &ctx, &msg, reps);
        return;
    }

    // Stage by stage, as apply_edit does them.
    let mut stages: Vec<(&str, Vec<f64>)> = [
        "parse rpc",
        "edit apply",
        "data_text",
        "libyang parse+validate",
        "libyang print",
        "parse canonical",
        "diff",
    ]
    .iter()
    .map(|s| (*s, Vec::new()))
    .collect();
    for _ in 0..reps {
        let t = Instant::now();
        let op = parse_request(msg.as_bytes()).expect("parses").operation;
        stages[0].1.push(t.elapsed().as_secs_f64() * 1e3);
        let config = op.child(NC, "config").expect("config");
        let mut scope = netconf_proto::xml::Scope::new();
        scope.enter(&op);
        let base = engine.datastores().snapshot(mgmt::datastore::DatastoreName::Candidate);
        let t = Instant::now();
        let mut root = base.root.clone();
        let errors = mgmt::yang::edit::apply(
            schema.model(),
            &mut root,
            config,
            &scope,
            mgmt::yang::edit::Op::Merge,
            mgmt::yang::edit::ErrorOption::StopOnError,
        );
        assert!(errors.is_empty());
        stages[1].1.push(t.elapsed().as_secs_f64() * 1e3);
        let t = Instant::now();
        let text = data::data_text(&root);
        stages[2].1.push(t.elapsed().as_secs_f64() * 1e3);
        let t = Instant::now();
        let tree = schema.parse_config(&text).expect("valid");
        stages[3].1.push(t.elapsed().as_secs_f64() * 1e3);
        let t = Instant::now();
        let canonical = schema.print_config(&tree).expect("prints");
        stages[4].1.push(t.elapsed().as_secs_f64() * 1e3);
        let t = Instant::now();
        let parsed = data::parse_data(&canonical).expect("parses back");
        stages[5].1.push(t.elapsed().as_secs_f64() * 1e3);
        let t = Instant::now();
        let changes = data::diff(schema.model(), &base.root, &parsed);
        stages[6].1.push(t.elapsed().as_secs_f64() * 1e3);
        assert!(changes.len() >= n.min(1));
    }
    println!("{n} entries, {} octets of edit-config, median of {reps} (ms):", msg.len());
    let mut sum = 0.0;
    for (name, v) in stages {
        let m = median(v);
        sum += m;
        println!("  {name:<24} {m:8.3}");
    }
    println!("  {:<24} {sum:8.3}", "sum of stages");

    dispatch_only(&engine, &ctx, &msg, reps);

    if std::env::args().any(|a| a == "update") {
        update(&engine, &ctx, &msg, reps);
    }
}

/// The whole path as a session runs it: edit-config of `msg` + commit, then remove all +
/// commit, `reps` times; prints the medians of the first two.
fn dispatch_only(engine: &Arc<Engine>, ctx: &SessionCtx, msg: &str, reps: usize) {
    let (mut e, mut c) = (Vec::new(), Vec::new());
    for _ in 0..reps {
        let t = Instant::now();
        run(engine, ctx, msg);
        e.push(t.elapsed().as_secs_f64() * 1e3);
        let t = Instant::now();
        run(engine, ctx, &commit());
        c.push(t.elapsed().as_secs_f64() * 1e3);
        run(engine, ctx, &remove_all());
        run(engine, ctx, &commit());
    }
    println!("  {:<24} {:8.3}", "dispatch edit-config", median(e));
    println!("  {:<24} {:8.3}", "dispatch commit", median(c));
}

/// With `msg`'s entries present, one session changing the description of one of them +
/// commit, `reps` times; prints the median.
fn update(engine: &Arc<Engine>, ctx: &SessionCtx, msg: &str, reps: usize) {
    run(engine, ctx, msg);
    run(engine, ctx, &commit());
    let mut u = Vec::new();
    for i in 0..reps {
        let edit = format!("<rpc message-id=\"4\" xmlns=\"{NC}\"><edit-config><target><candidate/></target><config><interfaces xmlns=\"{IF_NS}\"><interface><name>if0</name><description>v{i}</description></interface></interfaces></config></edit-config></rpc>");
        let t = Instant::now();
        run(engine, ctx, &edit);
        run(engine, ctx, &commit());
        u.push(t.elapsed().as_secs_f64() * 1e3);
    }
    println!("  {:<24} {:8.3}", "update 1 of N + commit", median(u));
}
