//! The listening NETCONF-over-SSH server: binds the port, accepts connections up to the
//! connection limit, and runs each through russh with the [`Handler`].

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};

use russh::{MethodKind, MethodSet};
use thiserror::Error;
use tokio::net::TcpListener;
use tokio::sync::{watch, Semaphore};
use tokio::task::JoinHandle;
use tracing::{debug, info, warn};

use super::handler::{Accounts, Handler, Shared};
use super::hostkey::{self, HostKeyError};
use super::login_cache::LoginCache;
use crate::backend::Backend;
use crate::config::Config;
use crate::engine::{Engine, EngineConfig, EngineError};
use crate::schema::{Schema, SchemaError};
use crate::session::SessionSettings;
use crate::sessions::Registry;
use crate::users::{Users, UsersError};

/// Why the server cannot start.
#[derive(Debug, Error)]
pub enum StartError {
    /// The state directory cannot be created.
    #[error("cannot create the state directory {path}: {source}")]
    StateDir {
        /// The directory.
        path: std::path::PathBuf,
        /// The cause.
        source: std::io::Error,
    },
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
        std::fs::create_dir_all(&config.state_dir)
            .map_err(|source| StartError::StateDir { path: config.state_dir.clone(), source })?;
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
            // hours (RFC 5277). Sessions enforce their own idle time-out; connections that
            // never start a session are cut by the guard in `accept_loop`.
            inactivity_timeout: None,
            max_auth_attempts: 6,
            nodelay: true,
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
            },
        });

        let listener = TcpListener::bind(config.listen)
            .await
            .map_err(|source| StartError::Bind { addr: config.listen, source })?;
        let local_addr = listener
            .local_addr()
            .map_err(|source| StartError::Bind { addr: config.listen, source })?;
        info!(%local_addr, "NETCONF server listening");

        let (stop, stopped) = watch::channel(false);
        let task = tokio::spawn(accept_loop(
            listener,
            Arc::new(ssh),
            shared.clone(),
            Arc::new(Semaphore::new(config.max_connections)),
            stopped,
            config.hello_timeout,
        ));
        let login_cache_ttl = config.login_cache_ttl;
        Ok(Server { local_addr, shared, users_path, login_cache_ttl, stop, task })
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
    connections: Arc<Semaphore>,
    mut stopped: watch::Receiver<bool>,
    start_timeout: std::time::Duration,
) {
    loop {
        let (socket, peer) = tokio::select! {
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
        let Ok(permit) = connections.clone().try_acquire_owned() else {
            warn!(%peer, "refusing a connection: too many connections");
            drop(socket);
            continue;
        };
        let _ = socket.set_nodelay(true);
        let started = Arc::new(AtomicBool::new(false));
        let handler = Handler::new(shared.clone(), Some(peer), started.clone());
        let ssh = ssh.clone();
        let mut stopped = stopped.clone();
        tokio::spawn(async move {
            let _permit = permit;
            // russh reads a packet's length and then its body: two reads per packet unless
            // something buffers below it.
            let stream = tokio::io::BufReader::with_capacity(16 * 1024, socket);
            match russh::server::run_stream(ssh, stream, handler).await {
                Ok(session) => {
                    let handle = session.handle();
                    // Authentication, the subsystem and the hello must be done in time.
                    let guard = async {
                        tokio::time::sleep(start_timeout).await;
                        if started.load(Ordering::Relaxed) {
                            std::future::pending::<()>().await;
                        }
                    };
                    tokio::select! {
                        result = session => {
                            if let Err(e) = result {
                                debug!(%peer, "SSH connection ended with an error: {e}");
                            }
                        }
                        _ = stopped.changed() => {
                            let _ = handle
                                .disconnect(russh::Disconnect::ByApplication, "server shutting down".into(), "en".into())
                                .await;
                        }
                        () = guard => {
                            warn!(%peer, "closing a connection that started no NETCONF session in time");
                            let _ = handle
                                .disconnect(russh::Disconnect::ByApplication, "no NETCONF session started in time".into(), "en".into())
                                .await;
                        }
                    }
                }
                Err(e) => debug!(%peer, "SSH handshake failed: {e}"),
            }
        });
    }
}
