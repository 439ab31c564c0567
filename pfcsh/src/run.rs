//! Start-up: flags, connection, the server's schema, then the interactive shell or the
//! commands of `-c`, `-f` or stdin, which stop at the first that fails. Exit status 0 when
//! everything succeeded, 1 otherwise; failures before the session is up write nothing (no
//! history, no pinned key).

use std::ffi::OsString;
use std::io::{BufRead as _, IsTerminal as _};
use std::process::ExitCode;

use clap::Parser as _;
use netconf_client::Client;
use yang2::context::Context;

use crate::cli::Args;
use crate::schema;
use crate::session::{Flow, Format, Session};

/// pfcsh's main.
pub fn run(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    let args = match Args::try_parse_from(args) {
        Ok(a) => a,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { ExitCode::from(2) } else { ExitCode::SUCCESS };
        }
    };
    match start(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            crate::visible::eprintln(&format!("pfcsh: {e}"));
            ExitCode::FAILURE
        }
    }
}

/// Connects and loads the schema: what start-up costs before the first prompt.
pub fn open(args: &Args) -> Result<Session, String> {
    let mut client = crate::connect::connect(args)?;
    let ctx = load_schema(&mut client)?;
    let format = if args.json {
        Format::Json
    } else if args.xml {
        Format::Xml
    } else {
        Format::Table
    };
    crate::show::units::set_plain(args.plain);
    Ok(Session::new(client, ctx, format))
}

/// The server's modules in a libyang context, fetching those not cached yet.
pub fn load_schema(client: &mut Client) -> Result<Context, String> {
    let reply = client
        .get(Some(schema::YANG_LIBRARY_FILTER))
        .map_err(|e| crate::rpc_error::sentence("reading the server's yang-library", &e))?;
    let modules = schema::parse_library(reply.data().unwrap_or_default())?;
    if modules.is_empty() {
        return Err("the server reports no YANG modules (ietf-yang-library)".into());
    }
    let dir = crate::paths::cache_dir().join("yang");
    let built_in = schema::built_in_checker().map_err(|e| e.to_string())?;
    schema::ensure_cached(client, &modules, &built_in, &dir)?;
    schema::build_context(&dir, &modules).map_err(|e| e.to_string())
}

/// Ok(true) when every command succeeded.
fn start(args: &Args) -> Result<bool, String> {
    let scripted = !args.commands.is_empty() || args.file.is_some();
    let interactive = !scripted && std::io::stdin().is_terminal();
    let mut session = open(args)?;
    if interactive {
        return crate::repl::run(session).map(|failed| !failed);
    }
    let commands: Vec<(String, String)> = if !args.commands.is_empty() {
        args.commands
            .iter()
            .flat_map(|c| crate::words::split_commands(c))
            .enumerate()
            .map(|(i, c)| (format!("command {}", i + 1), c))
            .collect()
    } else if let Some(file) = &args.file {
        std::fs::read_to_string(file)
            .map_err(|e| format!("cannot read {}: {e}", file.display()))?
            .lines()
            .enumerate()
            .map(|(i, l)| (format!("{}:{}", file.display(), i + 1), l.to_string()))
            .collect()
    } else {
        // Each line runs as it arrives: a producer may wait between commands, or for their
        // output, and a pipe is read to its end only when nothing fails.
        let lines = std::io::stdin()
            .lock()
            .lines()
            .map_while(Result::ok)
            .enumerate()
            .map(|(i, l)| (format!("line {}", i + 1), l));
        let ok = run_script(&mut session, lines, false);
        session.close();
        return Ok(ok);
    };
    let ok = run_script(&mut session, commands.into_iter(), true);
    session.close();
    Ok(ok)
}

/// Runs `commands` (where each comes from, the command) until the first that fails: what
/// follows a failed `set` must not be committed. True when all succeeded. `count_rest`: say how
/// many commands were left unrun (a script or `-c`; not stdin, whose rest may not have come).
fn run_script(
    session: &mut Session,
    mut commands: impl Iterator<Item = (String, String)>,
    count_rest: bool,
) -> bool {
    let wanted = |l: &str| !l.trim().is_empty() && !l.trim().starts_with('#');
    while let Some((place, line)) = commands.next() {
        let line = line.trim();
        if !wanted(line) {
            continue;
        }
        match session.execute(line) {
            Ok(Flow::Continue) => {}
            Ok(Flow::Quit) => break,
            Err(e) => {
                let rest = if count_rest {
                    match commands.filter(|(_, l)| wanted(l)).count() {
                        0 => String::new(),
                        1 => "; the command after it was not run".into(),
                        n => format!("; the {n} commands after it were not run"),
                    }
                } else {
                    "; the commands after it are not run".into()
                };
                crate::visible::eprintln(&format!("pfcsh: {place}: {line}: {e}{rest}"));
                return false;
            }
        }
    }
    true
}
