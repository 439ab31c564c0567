//! Start-up and shutdown: the state directory, the first start's administrator, the YANG
//! modules, the lab's ports, the NETCONF server with the northbound backends; then wait for a
//! signal (SIGTERM or SIGINT stop, SIGHUP re-reads the settings file and the users file).

pub mod banner;
pub mod credentials;
pub mod modules;
pub mod startup_signals;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tracing::{info, warn};

use crate::lab::Lab;
use crate::nic::NicPorts;
use crate::northbound;
use crate::ports::set::PortSet;
use crate::real::RealPorts;
use crate::settings::{DataPlane, Ports, Settings, SettingsSource};

/// Why pfcd stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum DaemonError {
    #[error("cannot prepare the state directory {path}: {source}")]
    StateDir { path: PathBuf, source: std::io::Error },
    #[error(transparent)]
    UnsafeStateDir(#[from] mgmt::state_dir::StateDirError),
    #[error(transparent)]
    Credentials(#[from] credentials::CredentialsError),
    #[error("cannot start the lab's ports: {0}")]
    Lab(std::io::Error),
    #[error("cannot start the bridge on the interfaces: {0}")]
    Interfaces(String),
    #[error("cannot start on the interfaces' NICs: {0}")]
    Nic(String),
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
    #[error(transparent)]
    Server(#[from] mgmt::ssh::server::StartError),
    #[error("the ports failed: {0}")]
    Ports(String),
    #[error("cannot wait for signals: {0}")]
    Signals(std::io::Error),
}

/// Async worker threads: SSH and light requests (mgmt-serve's default, see its comment).
const WORKERS: usize = 1;
/// Most threads for heavy requests, password checks and backend calls.
const BLOCKING: usize = 8;

/// Runs pfcd until SIGTERM or SIGINT; `source` is where `settings` came from (SIGHUP reads it
/// again).
pub fn run(settings: Settings, source: SettingsSource) -> Result<(), DaemonError> {
    let nic_mode =
        settings.ports == Ports::Interfaces && settings.interfaces.data_plane == DataPlane::Nic;
    let nic_found = if nic_mode {
        Some(crate::nic::check_before_start(&settings.interfaces.names).map_err(DaemonError::Nic)?)
    } else {
        None
    };
    startup_signals::hold_hangups().map_err(|e| DaemonError::Signals(e.into()))?;
    let state_dir = &settings.state_dir;
    mgmt::state_dir::prepare(state_dir)?;
    let users_file = settings.users_path();
    let admin = credentials::ensure_admin(&users_file, state_dir, &settings.admin_user)?;
    let yang_dirs = write_modules(state_dir)?;
    let mut nic = None;
    let (ports, lab, initial_config): (Arc<dyn PortSet>, _, _) = match settings.ports {
        Ports::Lab => {
            let lab = Arc::new(Lab::start(&settings.lab).map_err(DaemonError::Lab)?);
            let initial = northbound::initial_config(&lab.links);
            (lab.clone(), Some(lab), initial)
        }
        Ports::Interfaces => {
            let names: Vec<&str> = settings.interfaces.names.iter().map(String::as_str).collect();
            let initial = northbound::initial_config_for(&names);
            match nic_found {
                Some(found) => {
                    let ports = Arc::new(
                        NicPorts::start(&settings.interfaces, found).map_err(DaemonError::Nic)?,
                    );
                    nic = Some(ports.clone());
                    (ports as Arc<dyn PortSet>, None, initial)
                }
                None => {
                    let real =
                        RealPorts::start(&settings.interfaces).map_err(DaemonError::Interfaces)?;
                    (Arc::new(real), None, initial)
                }
            }
        }
    };
    let config = mgmt::config::Config {
        listen: settings.listen,
        state_dir: state_dir.clone(),
        users_file: Some(users_file),
        yang_dirs,
        admin_user: Some(settings.admin_user.clone()),
        auth_rejection_time: Duration::from_millis(500),
        initial_config: Some(initial_config),
        moved: northbound::moved::moved(),
        ..Default::default()
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(WORKERS)
        .max_blocking_threads(BLOCKING)
        .enable_all()
        .build()
        .map_err(DaemonError::Runtime)?;
    let result =
        runtime.block_on(serve(config, &settings, &source, &admin, ports.clone(), lab, nic));
    ports.stop();
    result
}

async fn serve(
    config: mgmt::config::Config,
    settings: &Settings,
    source: &SettingsSource,
    admin: &credentials::Admin,
    ports: Arc<dyn PortSet>,
    lab: Option<Arc<Lab>>,
    nic: Option<Arc<NicPorts>>,
) -> Result<(), DaemonError> {
    use tokio::signal::unix::{signal, SignalKind};
    // The handlers first: a signal that came between "pfcd ready" and their installation
    // would take its default action (SIGHUP's ends the process).
    let mut term = signal(SignalKind::terminate()).map_err(DaemonError::Signals)?;
    let mut int = signal(SignalKind::interrupt()).map_err(DaemonError::Signals)?;
    let mut hup = signal(SignalKind::hangup()).map_err(DaemonError::Signals)?;
    startup_signals::release_hangups().map_err(|e| DaemonError::Signals(e.into()))?;
    let mut backends = northbound::backends(ports.clone(), lab);
    if let Some(nic) = nic {
        backends.push(Arc::new(northbound::nic::NicBackend::new(nic)));
    }
    let server = mgmt::ssh::Server::start_with_backends(config, backends).await?;
    banner::print(server.local_addr(), settings, admin, ports.as_ref());
    let mut health = tokio::time::interval(Duration::from_secs(1));
    let mut failed = None;
    loop {
        tokio::select! {
            _ = term.recv() => break,
            _ = int.recv() => break,
            _ = health.tick() => {
                if let Some(why) = ports.failure() {
                    tracing::error!(%why, "stopping");
                    failed = Some(why);
                    break;
                }
            }
            _ = hup.recv() => {
                if source.file.is_some() {
                    reread_settings(source, settings);
                }
                match server.reload_users() {
                    Ok(()) => info!("SIGHUP: users file re-read"),
                    Err(e) => warn!(error = %e, "SIGHUP: the users file cannot be used; the previous users stay"),
                }
            }
        }
    }
    info!("stopping");
    server.shutdown().await;
    failed.map_or(Ok(()), |why| Err(DaemonError::Ports(why)))
}

/// SIGHUP: reads the settings file again and says what changed. Every setting shapes what pfcd
/// started (the listening socket, the state directory, the ports), so a change is logged as
/// taking effect at the next start; a file that cannot be used is reported and changes nothing.
fn reread_settings(source: &SettingsSource, running: &Settings) {
    let path = source.file.as_deref().unwrap_or(Path::new("-"));
    let new = match source.load() {
        Ok(s) => s,
        Err(e) => {
            warn!(error = %e, "SIGHUP: the settings file cannot be used; nothing changes");
            return;
        }
    };
    let changed = running.differences(&new);
    if changed.is_empty() {
        info!(file = %path.display(), "SIGHUP: settings file re-read, unchanged");
    } else {
        warn!(
            file = %path.display(),
            changed = %changed.join(", "),
            "SIGHUP: settings changed; they take effect at the next start"
        );
    }
}

/// Writes the embedded modules under `<state-dir>/yang/` where they differ; returns the
/// directories to load (ours, then the standard ones).
fn write_modules(state_dir: &Path) -> Result<Vec<PathBuf>, DaemonError> {
    let ours = state_dir.join("yang");
    let standard = ours.join("standard");
    for (dir, files) in [(&ours, modules::OURS), (&standard, modules::STANDARD)] {
        let err = |source| DaemonError::StateDir { path: dir.clone(), source };
        std::fs::create_dir_all(dir).map_err(err)?;
        for (name, text) in files {
            let path = dir.join(name);
            if std::fs::read_to_string(&path).ok().as_deref() != Some(*text) {
                mgmt::state_dir::write_file(&path, text.as_bytes(), 0o644).map_err(err)?;
            }
        }
    }
    Ok(vec![ours, standard])
}
