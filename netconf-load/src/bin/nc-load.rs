//! nc-load: the netconfd baseline's NETCONF workload (bench.py) on netconf-client's blocking
//! client, for any server reachable over SSH. See `--help` and `netconf_load`.

use std::io::Write as _;
use std::path::PathBuf;
use std::time::Duration;

use netconf_client::{Auth, ConnectOptions};
use netconf_load::Settings;

const HELP: &str = "\
nc-load: NETCONF load generator (the workload of bench/netconfd-baseline/bench.py)

usage: nc-load [options]

target (defaults from NC_HOST, NC_PORT, NC_USER, NC_PASSWORD, else bench.py's netconfd set-up):
  --host HOST          server address                        [127.0.0.1]
  --port PORT          SSH port                              [8830]
  --user USER          SSH user                              [nctest]
  --password PW        password authentication               [nctest]
  --key FILE           public-key authentication with this private key file instead
  --base10             advertise only base:1.0 (end-of-message framing)
  --timeout SECS       give up on a silent server after this long per wait   [600]

server CPU (Linux /proc; without PIDs no CPU figures):
  --server-pid PID     a server process (repeatable; default NC_SERVER_PID). Counted: its
                       utime+stime, those of all its live descendants, and cutime+cstime
                       (descendants that exited and were reaped), so a server behind sshd
                       can be measured by giving sshd's PID too.
  --ssh-pid PID        a process carrying the server's SSH (repeatable), e.g. the sshd in
                       front of netconfd: CPU is then printed twice, server alone and
                       server + ssh (with descendants: sshd's per-session children and
                       netconf-subsystem).

workload:
  --only PARTS         any of a (connect+hello), b (get-config 1/512/4096 entries),
                       c (edit-config N entries into candidate + commit), d (throughput of
                       K sessions looping edit-config(1 entry)+commit)          [abcd]
  --reps N             repetitions of parts a, b and c     [20 / 50 / 20 as bench.py]
  --sizes LIST         entry counts for b and c            [1,512,4096]
  --sessions LIST      K values for d                       [1,10,50]
  --duration SECS      length of each throughput measurement                 [20]
  --quick              bench.py's smoke test: reps 3/5/2, sizes 1,512, K 1,4, 3 s
  --label NAME         name printed with the results (and the TSV's first column)
  --tsv FILE           also append one tab-separated line per result to FILE:
                       label key n p50 p99 min max cpu_ms/op cpu+ssh_ms/op ops/s cpu% cpu+ssh% errors

Latency is client wall clock around each call (ms); p50 is the median, p99 nearest rank.
The workload edits /interfaces (ietf-interfaces with iana-if-type) in the candidate: the
server needs both modules and :candidate. Parts b and c leave no interfaces behind.
";

fn env_or(name: &str, default: &str) -> String {
    std::env::var(name).ok().filter(|v| !v.is_empty()).unwrap_or_else(|| default.to_string())
}

fn parse<T: std::str::FromStr>(what: &str, v: Option<String>) -> Result<T, String> {
    let v = v.ok_or_else(|| format!("{what} needs a value (see --help)"))?;
    v.parse().map_err(|_| format!("{what}: cannot parse {v:?}"))
}

fn list(what: &str, v: Option<String>) -> Result<Vec<usize>, String> {
    let v: String = parse(what, v)?;
    v.split(',')
        .map(|x| x.trim().parse().map_err(|_| format!("{what}: bad number {x:?}")))
        .collect()
}

struct Cli {
    settings: Settings,
    label: String,
    tsv: Option<PathBuf>,
}

fn parse_args() -> Result<Option<Cli>, String> {
    let mut host = env_or("NC_HOST", "127.0.0.1");
    let mut port: u16 = env_or("NC_PORT", "8830").parse().map_err(|_| "NC_PORT is not a port")?;
    let mut user = env_or("NC_USER", "nctest");
    let mut auth = Auth::Password(env_or("NC_PASSWORD", "nctest"));
    let mut server_pids: Vec<u32> = match std::env::var("NC_SERVER_PID") {
        Ok(p) if !p.is_empty() => vec![p.parse().map_err(|_| "NC_SERVER_PID is not a PID")?],
        _ => Vec::new(),
    };
    let mut ssh_pids = Vec::new();
    let (mut only, mut reps, mut sizes, mut sessions, mut duration) =
        (None, None, None, None, None);
    let (mut quick, mut base10, mut timeout) = (false, false, 600u64);
    let mut label = String::new();
    let mut tsv = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "-h" | "--help" => return Ok(None),
            "--host" => host = parse("--host", args.next())?,
            "--port" => port = parse("--port", args.next())?,
            "--user" => user = parse("--user", args.next())?,
            "--password" => auth = Auth::Password(parse("--password", args.next())?),
            "--key" => auth = Auth::KeyFile(parse::<PathBuf>("--key", args.next())?),
            "--base10" => base10 = true,
            "--timeout" => timeout = parse("--timeout", args.next())?,
            "--server-pid" => server_pids.push(parse("--server-pid", args.next())?),
            "--ssh-pid" => ssh_pids.push(parse("--ssh-pid", args.next())?),
            "--only" => only = Some(parse::<String>("--only", args.next())?),
            "--reps" => reps = Some(parse::<usize>("--reps", args.next())?),
            "--sizes" => sizes = Some(list("--sizes", args.next())?),
            "--sessions" => sessions = Some(list("--sessions", args.next())?),
            "--duration" => duration = Some(parse::<f64>("--duration", args.next())?),
            "--quick" => quick = true,
            "--label" => label = parse("--label", args.next())?,
            "--tsv" => tsv = Some(parse::<PathBuf>("--tsv", args.next())?),
            other => return Err(format!("unknown argument {other:?} (see --help)")),
        }
    }
    let mut connect = ConnectOptions::new(host, port, user, auth);
    connect.timeout = Duration::from_secs(timeout);
    connect.advertise_base_1_1 = !base10;
    let mut settings = if quick { Settings::quick(connect) } else { Settings::full(connect) };
    settings.server_pids = server_pids;
    settings.ssh_pids = ssh_pids;
    if let Some(o) = only {
        if o.is_empty() || !o.chars().all(|c| "abcd".contains(c)) {
            return Err(format!("--only {o:?}: use letters from abcd"));
        }
        settings.parts = o;
    }
    if let Some(r) = reps {
        (settings.connect_reps, settings.get_reps, settings.edit_reps) = (r, r, r);
    }
    if let Some(s) = sizes {
        settings.sizes = s;
    }
    if let Some(s) = sessions {
        if s.contains(&0) {
            return Err("--sessions: K must be at least 1".into());
        }
        settings.sessions = s;
    }
    if let Some(d) = duration {
        if !(d > 0.0 && d.is_finite()) {
            return Err("--duration must be positive".into());
        }
        settings.duration = Duration::from_secs_f64(d);
    }
    Ok(Some(Cli { settings, label, tsv }))
}

fn main() -> std::process::ExitCode {
    let cli = match parse_args() {
        Ok(Some(cli)) => cli,
        Ok(None) => {
            print!("{HELP}");
            return std::process::ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("nc-load: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    let s = &cli.settings;
    let mut out = std::io::stdout();
    let _ = writeln!(
        out,
        "nc-load{} @ {}:{} as {} ({} cpus); server pids {:?}, ssh pids {:?}",
        if cli.label.is_empty() { String::new() } else { format!(" [{}]", cli.label) },
        s.connect.host,
        s.connect.port,
        s.connect.user,
        std::thread::available_parallelism().map(usize::from).unwrap_or(0),
        s.server_pids,
        s.ssh_pids,
    );
    let rows = netconf_load::run(s, &mut out);

    let _ = writeln!(out, "\n=== SUMMARY {} (ms; p50 median, p99 nearest rank) ===", cli.label);
    for r in &rows {
        let _ = writeln!(out, "{}", r.line());
    }
    if let Some(path) = &cli.tsv {
        let text: String = rows.iter().map(|r| r.tsv(&cli.label) + "\n").collect();
        let written = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .and_then(|mut f| f.write_all(text.as_bytes()));
        if let Err(e) = written {
            eprintln!("nc-load: cannot write {}: {e}", path.display());
            return std::process::ExitCode::FAILURE;
        }
    }
    // Missing rows mean a part failed: say so in the exit status for scripts.
    let expected = expected_rows(s);
    if rows.len() < expected {
        eprintln!("nc-load: {} of {expected} measurements failed", expected - rows.len());
        return std::process::ExitCode::FAILURE;
    }
    std::process::ExitCode::SUCCESS
}

/// How many rows a complete run of `s` produces.
fn expected_rows(s: &Settings) -> usize {
    let p = |c| usize::from(s.parts.contains(c));
    p('a') + p('b') * s.sizes.len() + p('c') * 3 * s.sizes.len() + p('d') * s.sessions.len()
}
