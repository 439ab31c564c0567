//! The listening NETCONF-over-SSH server: binds the port, gives each accepted connection a
//! place (`admission.rs`) and runs it (`connection.rs`) through russh with the [`Handler`].

use std::net::SocketAddr;
use std::sync::{Arc, RwLock};

use russh::{MethodKind, MethodSet};
use thiserror::Error;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tracing::{info, warn};

use super::admission::{Admission, AdmissionStats, Limits};
use super::auth_pool::AuthPool;
use super::connection::{self, Deadlines};
use super::handler::{Accounts, Handler, Progress, Shared};
use super::hostkey::{self, HostKeyError};
use super::login_cache::LoginCache;
use crate::access::users::{Users, UsersError};
use crate::backend::Backend;
use crate::config::Config;
use crate::engine::{Engine, EngineConfig, EngineError};
use crate::protocol::sessions::Registry;
use crate::session::budget::RequestLimits;
use crate::session::SessionSettings;
use crate::yang::schema::{Schema, SchemaError};

/// Why the server cannot start.
#[derive(Debug, Error)]
pub enum StartError {
    /// The state directory cannot be created, or is not safe to trust.
    #[error(transparent)]
    StateDir(#[from] crate::state_dir::StateDirError),
    /// The host key cannot be loaded or generated.
    #[error(transparent)]
    HostKey(#[from] HostKeyError),
    /// The users file is missing or wrong.
    #[error(transparent)]
    Users(#[from] UsersError),
    /// The YANG modules cannot be loaded.
    #[error(transparent)]
    Schema(#[from] SchemaError),
    /// The datastores cannot be opened, or a backend refused the stored configuration.
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// The password-check threads cannot be started.
    #[error("cannot start the password-check threads: {0}")]
    AuthPool(std::io::Error),
    /// The address cannot be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// The cause.
        source: std::io::Error,
    },
}

/// A running server. Dropping it does not stop it; call [`Server::shutdown`].
#[derive(Debug)]
pub struct Server {
    local_addr: SocketAddr,
    shared: Arc<Shared>,
    admission: Arc<Admission>,
    users_path: std::path::PathBuf,
    login_cache_ttl: Option<std::time::Duration>,
    stop: watch::Sender<bool>,
    task: JoinHandle<()>,
}

impl Server {
    /// Prepares the state directory, host key and users, binds the listening socket and
    /// starts accepting connections. Every module is simply stored (no backend).
    pub async fn start(config: Config) -> Result<Server, StartError> {
        Self::start_with_backends(config, Vec::new()).await
    }

    /// Like [`Server::start`], with the backends that own some modules' data.
    pub async fn start_with_backends(
        config: Config,
        backends: Vec<Arc<dyn Backend>>,
    ) -> Result<Server, StartError> {
        crate::state_dir::prepare(&config.state_dir)?;
        let host_key = hostkey::load_or_generate(&config.host_key_path())?;
        let users_path = config.users_path();
        let users = Users::load(&users_path)?;
        if users.is_empty() {
            warn!(path = %users_path.display(), "the users file lists nobody: no one can log in");
        }

        let ssh = russh::server::Config {
            methods: MethodSet::from(&[MethodKind::PublicKey, MethodKind::Password][..]),
            auth_rejection_time: config.auth_rejection_time,
            auth_rejection_time_initial: Some(std::time::Duration::ZERO),
            keys: vec![host_key],
            // No connection-level inactivity limit: a subscribed session may stay quiet for
            // hours (RFC 5277). Sessions enforce their own idle time-out; connections that do
            // not authenticate or start a session in time are cut by `connection::serve`.
            inactivity_timeout: None,
            max_auth_attempts: 6,
            nodelay: true,
            // What russh holds of a channel's data that its session has not read yet: 16
            // packets (at most 32 KiB each) per connection, not 100. russh opens the SSH
            // window as data arrives, not as it is read, so this queue is the only bound on
            // it: with 100, each busy connection could hold 3 MiB outside the request budget
            // (`crate::session::budget`).
            channel_buffer_size: 16,
            ..Default::default()
        };
        let schema = {
            let (dirs, modules) = (config.yang_dirs.clone(), config.modules.clone());
            tokio::task::spawn_blocking(move || Schema::new(&dirs, &modules))
                .await
                .map_err(|e| SchemaError::Context(e.to_string()))??
        };
        let registry = Registry::new(config.max_sessions);
        // On a blocking thread: opening sled may wait for its lock, and the backends'
        // prepare and apply of the stored configuration are promised a blocking thread.
        let engine = {
            let dir = config.datastores_path();
            let engine_config = EngineConfig {
                admin_user: config.admin_user.clone(),
                replay_log: config.replay_log,
                initial_config: config.initial_config.clone(),
                max_filter_cost: config.max_filter_cost,
                moved: config.moved.clone(),
            };
            let registry = registry.clone();
            tokio::task::spawn_blocking(move || {
                Engine::open(&dir, Arc::new(schema), registry, engine_config, backends)
            })
            .await
            .map_err(|e| EngineError::StartThread(e.to_string()))??
        };
        let shared = Arc::new(Shared {
            accounts: RwLock::new(Arc::new(Accounts {
                users,
                logins: LoginCache::new(config.login_cache_ttl),
            })),
            registry,
            engine: engine.clone(),
            settings: SessionSettings {
                capabilities: engine.capabilities().to_vec(),
                max_message_size: config.max_message_size,
                hello_timeout: config.hello_timeout,
                idle_timeout: config.idle_timeout,
                indent_replies: config.indent_replies,
                requests: RequestLimits::new(&config),
            },
            auth_pool: AuthPool::new(config.auth_threads).map_err(StartError::AuthPool)?,
        });
        let admission = Admission::new(Limits {
            unauthenticated: config.max_unauthenticated,
            per_source: config.max_unauthenticated_per_source,
            authenticated: config.max_connections,
        });

        let listener = TcpListener::bind(config.listen)
            .await
            .map_err(|source| StartError::Bind { addr: config.listen, source })?;
        let local_addr = listener
            .local_addr()
            .map_err(|source| StartError::Bind { addr: config.listen, source })?;
        info!(%local_addr, "NETCONF server listening");

        let (stop, stopped) = watch::channel(false);
        let deadlines =
            Deadlines { login: config.login_grace_time, session_start: config.hello_timeout };
        let task = tokio::spawn(accept_loop(
            listener,
            Arc::new(ssh),
            shared.clone(),
            admission.clone(),
            stopped,
            deadlines,
        ));
        let login_cache_ttl = config.login_cache_ttl;
        Ok(Server { local_addr, shared, admission, users_path, login_cache_ttl, stop, task })
    }

    /// The address actually bound (useful with port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The session table.
    pub fn sessions(&self) -> &Arc<Registry> {
        &self.shared.registry
    }

    /// The NETCONF engine (datastores, notifications).
    pub fn engine(&self) -> &Arc<Engine> {
        &self.shared.engine
    }

    /// Connections accepted, displaced, cut at the login deadline and authenticated, and how
    /// many hold a place now.
    pub fn admission(&self) -> AdmissionStats {
        self.admission.stats()
    }

    /// How many users have a password login cached (see [`super::login_cache`]).
    pub fn cached_logins(&self) -> usize {
        self.shared.accounts.read().unwrap_or_else(std::sync::PoisonError::into_inner).logins.len()
    }

    /// Re-reads the users file; on error the previous users stay in force. Logins verified
    /// against the previous file are forgotten: a changed password takes effect at once.
    pub fn reload_users(&self) -> Result<(), UsersError> {
        let users = Users::load(&self.users_path)?;
        let accounts = Accounts { users, logins: LoginCache::new(self.login_cache_ttl) };
        *self.shared.accounts.write().unwrap_or_else(std::sync::PoisonError::into_inner) =
            Arc::new(accounts);
        Ok(())
    }

    /// Stops accepting, ends every session and waits for the accept loop to finish.
    pub async fn shutdown(self) {
        let _ = self.stop.send(true);
        self.shared.registry.kill_all();
        let _ = self.task.await;
    }
}

async fn accept_loop(
    listener: TcpListener,
    ssh: Arc<russh::server::Config>,
    shared: Arc<Shared>,
    admission: Arc<Admission>,
    mut stopped: watch::Receiver<bool>,
    deadlines: Deadlines,
) {
    // The flood log's summary is written when its interval is over, even if the flood
    // stopped and nothing else would write it.
    let mut summaries = tokio::time::interval(super::flood_log::INTERVAL);
    summaries.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let (socket, peer) = tokio::select! {
            _ = summaries.tick() => {
                admission.flood_log().flush();
                continue;
            }
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    // Typically EMFILE: back off briefly instead of spinning.
                    warn!("accept failed: {e}");
                    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                    continue;
                }
            },
            _ = stopped.changed() => break,
        };
        // Every connection gets in; a full table makes room by displacing another.
        let (ticket, watch) = admission.admit(peer);
        let progress = Arc::new(Progress::default());
        let handler = Handler::new(shared.clone(), Some(peer), progress.clone(), ticket);
        tokio::spawn(connection::serve(
            socket,
            peer,
            ssh.clone(),
            handler,
            progress,
            watch,
            deadlines,
            stopped.clone(),
        ));
    }
}
