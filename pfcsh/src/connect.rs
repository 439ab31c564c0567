//! From flags and `config.toml` to an authenticated NETCONF session, with the host key
//! checked against `known_hosts` before any credential is sent. On first contact the key's
//! fingerprint is shown and the user asked (or, with no one to ask, `--accept-new` needed)
//! before it is pinned. Every failure is one line.

use std::io::IsTerminal as _;
use std::time::Duration;

use netconf_client::{Auth, Client, ConnectOptions, Error};

use crate::cli::Args;
use crate::settings::FileSettings;
use netconf_client::known_hosts::{fingerprint, host_id, KnownHosts};

/// The default NETCONF-over-SSH port.
pub const DEFAULT_PORT: u16 = 830;

/// Connects as `args` and the settings file say; `Err` is the one line to print.
pub fn connect(args: &Args) -> Result<Client, String> {
    let file = FileSettings::load(&crate::paths::config_file())?;
    let host = args.host.clone().or(file.host).unwrap_or_else(|| "127.0.0.1".into());
    let port = args.port.or(file.port).unwrap_or(DEFAULT_PORT);
    let user = args
        .user
        .clone()
        .or(file.user)
        .or_else(|| std::env::var("USER").ok())
        .unwrap_or_else(|| "admin".into());
    let interactive = std::io::stdin().is_terminal();
    let auth = if let Some(path) = args.password_file.clone().or(file.password_file.clone()) {
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read the password file {}: {e}", path.display()))?;
        Auth::Password(text.trim_end_matches(['\n', '\r']).to_string())
    } else if let Some(key) = args.key.clone().or(file.key.clone()) {
        Auth::KeyFile(key)
    } else if std::env::var_os("SSH_AUTH_SOCK").is_some() {
        Auth::Agent
    } else if interactive {
        prompt(&user, &host)?
    } else {
        return Err(format!(
            "no credentials for {user}@{host}: give --password-file or --key (or run an ssh-agent)"
        ));
    };

    let id = host_id(&host, port);
    let known_path = crate::paths::known_hosts_file();
    let mut known = KnownHosts::load(&known_path)?;
    let pinned = known.pinned(&id).map(<[u8]>::to_vec);
    let mut opts = ConnectOptions::new(host.clone(), port, user.clone(), auth.clone());
    opts.timeout = Duration::from_secs(args.timeout.max(1));
    let first_contact = pinned.is_none();
    opts.host_key_sha256 = match pinned {
        Some(digest) => Some(digest),
        None => Some(accept_new_key(&opts, &id, args.accept_new, interactive, known.path())?),
    };

    let client = match Client::connect(&opts) {
        // No agent key was accepted: ask for the password when someone can type it.
        Err(Error::Auth { .. }) if matches!(auth, Auth::Agent) && interactive => {
            opts.auth = prompt(&user, &host)?;
            Client::connect(&opts)
        }
        other => other,
    }
    .map_err(|e| explain(&e, &id, &user, known.path()))?;

    if first_contact {
        let digest = client.host_key_sha256().to_vec();
        known.pin(&id, &digest).map_err(|e| {
            format!("cannot record the host key in {}: {e}", known.path().display())
        })?;
        eprintln!(
            "pfcsh: host key {} of {id} pinned in {}",
            fingerprint(&digest),
            known.path().display()
        );
    }
    Ok(client)
}

/// First contact with `id`: learns the server's host key without authenticating (a
/// connection that expects no key at all stops right after the key exchange, before any
/// credential is sent), shows its fingerprint and asks; with no terminal, only
/// `--accept-new` accepts it. Returns the key's digest to connect with.
fn accept_new_key(
    opts: &ConnectOptions,
    id: &str,
    accept_new: bool,
    interactive: bool,
    known: &std::path::Path,
) -> Result<Vec<u8>, String> {
    let mut probe = opts.clone();
    probe.host_key_sha256 = Some(Vec::new());
    let digest =
        match Client::connect(&probe) {
            Err(Error::HostKey { actual, .. }) => hex::decode(&actual)
                .ok()
                .filter(|d| !d.is_empty())
                .ok_or_else(|| format!("{id} presented no host key pfcsh can check"))?,
            Err(e) => return Err(explain(&e, id, &opts.user, known)),
            Ok(_) => return Err(format!("{id} presented no host key pfcsh can check")),
        };
    let shown = fingerprint(&digest);
    if accept_new {
        return Ok(digest);
    }
    if !interactive {
        return Err(format!(
            "the host key of {id} is not known yet ({shown}): compare it with the one pfcd \
             logged at its start, then run again with --accept-new to pin it in {}",
            known.display()
        ));
    }
    eprintln!("pfcsh: the host key of {id} is not known yet.");
    eprintln!("pfcsh: its fingerprint is {shown} (pfcd logs its own at start: \"SSH host key\").");
    eprint!("Pin it in {} and connect? [y/N] ", known.display());
    let mut answer = String::new();
    std::io::stdin().read_line(&mut answer).map_err(|e| format!("cannot read the answer: {e}"))?;
    if matches!(answer.trim(), "y" | "Y" | "yes" | "Yes" | "YES") {
        Ok(digest)
    } else {
        Err(format!("the host key of {id} was not accepted: nothing sent, nothing pinned"))
    }
}

fn prompt(user: &str, host: &str) -> Result<Auth, String> {
    rpassword::prompt_password(format!("{user}@{host}'s password: "))
        .map(Auth::Password)
        .map_err(|e| format!("cannot read the password: {e}"))
}

/// One line for a failed connection.
fn explain(e: &Error, id: &str, user: &str, known: &std::path::Path) -> String {
    match e {
        Error::HostKey { actual, .. } => format!(
            "the host key of {id} has changed (now {}): refusing to connect; if the change is \
             expected, delete the line for {id} in {}",
            hex::decode(actual).map_or_else(|_| actual.clone(), |d| fingerprint(&d)),
            known.display()
        ),
        Error::Auth { method, .. } => {
            format!("login as {user} at {id} refused ({method}): check the user and its password or key")
        }
        Error::Connect { addr, source } => {
            format!("cannot connect to {addr}: {source} (is pfcd running there?)")
        }
        Error::Timeout { stage, after } => {
            format!("{id} did not answer within {}s ({stage})", after.as_secs())
        }
        other => format!("cannot open a NETCONF session with {id}: {other}"),
    }
}
