//! The per-connection SSH handler: authentication against the users file, and the `netconf`
//! subsystem (RFC 6242 §3), which starts a NETCONF session on the channel. Nothing else is
//! offered: no shell, no exec, no forwarding.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use russh::keys::PublicKey;
use russh::server::{Auth, Msg, PublicKeyOffer, Session, VerifiedPublicKey};
use russh::{Channel, ChannelId, Disconnect};
use tracing::{debug, info, warn};

use tokio::io::AsyncReadExt as _;

use super::admission::{AuthenticatedSlot, Stage, Ticket};
use super::auth_pool::AuthPool;
use super::login_cache::LoginCache;
use crate::access::users::Users;
use crate::engine::Engine;
use crate::protocol::sessions::Registry;
use crate::session::{self, SessionEnd, SessionSettings};

/// How long the server waits for a client to end a connection it has finished with.
const CLIENT_CLOSE_GRACE: Duration = Duration::from_secs(5);

/// Reads (and drops) whatever the client still sends until it closes the channel.
async fn drain<S: tokio::io::AsyncRead + Unpin>(stream: &mut S) {
    let mut buf = [0u8; 1024];
    while matches!(stream.read(&mut buf).await, Ok(n) if n > 0) {}
}

/// The users file in force and the logins verified against it. A reload replaces both, so
/// nothing verified against an older file outlives it.
#[derive(Debug)]
pub struct Accounts {
    /// The users allowed in.
    pub users: Users,
    /// Passwords recently verified against `users`.
    pub logins: LoginCache,
}

/// What every connection shares.
#[derive(Debug)]
pub struct Shared {
    /// The users allowed in, with their recent logins.
    pub accounts: RwLock<Arc<Accounts>>,
    /// The session table.
    pub registry: Arc<Registry>,
    /// Session limits and capabilities.
    pub settings: SessionSettings,
    /// The NETCONF engine.
    pub engine: Arc<Engine>,
    /// The threads that check passwords.
    pub auth_pool: AuthPool,
}

impl Shared {
    fn accounts(&self) -> Arc<Accounts> {
        self.accounts.read().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }
}

/// What the connection's task (`connection.rs`) learns from the handler.
#[derive(Debug, Default)]
pub struct Progress {
    /// Set when the NETCONF session starts.
    pub started: AtomicBool,
    /// Notified when the session is over and the client has been asked to disconnect: from
    /// then on the connection is the client's to close, and the task closes it if the client
    /// does not.
    pub finished: tokio::sync::Notify,
}

/// One SSH connection.
pub struct Handler {
    shared: Arc<Shared>,
    peer: Option<SocketAddr>,
    user: Option<String>,
    /// Session channels opened but not yet given a subsystem.
    channels: HashMap<ChannelId, Channel<Msg>>,
    /// Whether this connection already runs its NETCONF session (one per connection).
    has_session: bool,
    /// How far the connection has got (the connection's task watches it).
    progress: Arc<Progress>,
    /// The connection's place among unauthenticated connections, until it authenticates.
    ticket: Option<Ticket>,
    /// Its place among authenticated connections, after.
    _slot: Option<AuthenticatedSlot>,
}

impl Handler {
    /// A handler for a new connection from `peer` holding `ticket`, reporting to `progress`.
    pub fn new(
        shared: Arc<Shared>,
        peer: Option<SocketAddr>,
        progress: Arc<Progress>,
        ticket: Ticket,
    ) -> Self {
        Handler {
            shared,
            peer,
            user: None,
            channels: HashMap::new(),
            has_session: false,
            progress,
            ticket: Some(ticket),
            _slot: None,
        }
    }

    /// `user` has proven who they are: trades the connection's unauthenticated place for an
    /// authenticated one. If it has none left (displaced or cut while the check ran) or every
    /// authenticated place is taken, the connection is ended: an error from the handler makes
    /// russh drop it.
    fn authenticated(&mut self, user: &str, method: &str) -> Result<Auth, russh::Error> {
        let Some(ticket) = self.ticket.take() else { return Err(russh::Error::Inconsistent) };
        match ticket.promote() {
            Ok(slot) => {
                info!(user, peer = ?self.peer, method, "authenticated");
                self._slot = Some(slot);
                self.user = Some(user.to_string());
                Ok(Auth::Accept)
            }
            Err(refused) => {
                warn!(user, peer = ?self.peer, method, "closing an authenticated connection: {refused}");
                Err(russh::Error::Disconnect)
            }
        }
    }
}

impl russh::server::Handler for Handler {
    type Error = russh::Error;

    /// Called when the client asks for authentication, i.e. once the key exchange is done:
    /// a connection this far is displaced only after those that are not (admission.rs).
    async fn authentication_banner(&mut self) -> Result<Option<String>, Self::Error> {
        if let Some(ticket) = &self.ticket {
            ticket.reached(Stage::Authenticating);
        }
        Ok(None)
    }

    async fn auth_password(&mut self, user: &str, password: &str) -> Result<Auth, Self::Error> {
        let accounts = self.shared.accounts();
        let ok = accounts.logins.recalls(user, password) || {
            let (u, p) = (user.to_string(), password.to_string());
            // Argon2 is deliberately slow: keep it off the async workers, and off the blocking
            // pool that runs other users' requests (auth_pool.rs).
            let check = accounts.clone();
            let gone = self.ticket.as_ref().map(Ticket::gone_check);
            self.shared
                .auth_pool
                .run(move || {
                    // Displaced or cut while queued: it could not get in whatever the answer.
                    if gone.is_some_and(|gone| gone()) {
                        return false;
                    }
                    let ok = check.users.verify_password(&u, &p);
                    if ok {
                        check.logins.remember(&u, &p);
                    }
                    ok
                })
                .await
                .unwrap_or(false)
        };
        if ok {
            self.authenticated(user, "password")
        } else {
            warn!(user, peer = ?self.peer, method = "password", "authentication failed");
            Ok(Auth::reject())
        }
    }

    async fn auth_publickey_offered(
        &mut self,
        user: &str,
        offer: PublicKeyOffer<'_>,
    ) -> Result<Auth, Self::Error> {
        Ok(if self.shared.accounts().users.has_key(user, offer.public_key) {
            Auth::Accept
        } else {
            Auth::reject()
        })
    }

    async fn auth_publickey(
        &mut self,
        user: &str,
        key: VerifiedPublicKey<'_>,
    ) -> Result<Auth, Self::Error> {
        let public: &PublicKey = key.public_key;
        if self.shared.accounts().users.has_key(user, public) {
            self.authenticated(user, "publickey")
        } else {
            warn!(user, peer = ?self.peer, method = "publickey", "authentication failed");
            Ok(Auth::reject())
        }
    }

    async fn channel_open_session(
        &mut self,
        channel: Channel<Msg>,
        reply: russh::server::ChannelOpenHandle,
        _session: &mut Session,
    ) -> Result<(), Self::Error> {
        if self.has_session || !self.channels.is_empty() {
            debug!(peer = ?self.peer, "refusing a second session channel");
            reply.reject(russh::ChannelOpenFailure::ResourceShortage).await;
            return Ok(());
        }
        self.channels.insert(channel.id(), channel);
        reply.accept().await;
        Ok(())
    }

    async fn subsystem_request(
        &mut self,
        id: ChannelId,
        name: &str,
        session: &mut Session,
    ) -> Result<(), Self::Error> {
        let (Some(user), true) = (self.user.clone(), name == "netconf") else {
            warn!(peer = ?self.peer, subsystem = name, "refusing subsystem");
            session.channel_failure(id)?;
            return Ok(());
        };
        let Some(channel) = self.channels.remove(&id) else {
            session.channel_failure(id)?;
            return Ok(());
        };
        let handle = match self.shared.registry.open(&user, self.peer) {
            Ok(h) => h,
            Err(full) => {
                warn!(user, peer = ?self.peer, "refusing a NETCONF session: {full}");
                session.channel_failure(id)?;
                return Ok(());
            }
        };
        session.channel_success(id)?;
        self.has_session = true;
        self.progress.started.store(true, Ordering::Relaxed);
        info!(session = handle.id(), user, peer = ?self.peer, "NETCONF session started");
        let shared = self.shared.clone();
        let progress = self.progress.clone();
        let connection = session.handle();
        tokio::spawn(async move {
            let mut stream = channel.into_stream();
            let end = session::run(&mut stream, &handle, &shared.settings, &shared.engine).await;
            drop(handle); // leaves the session table
                          // After close-session the client closes the channel and the connection itself;
                          // closing the channel first races with clients that read the <ok/> and the
                          // channel's end together and then report an unexpected close (ncclient does).
                          // If the client does not close within a few seconds, the server does. After a
                          // client hang-up there is nothing to wait for; otherwise (time-out, kill,
                          // protocol error) the server ends the connection at once.
            let reason = format!("NETCONF session ended: {end}");
            if matches!(end, SessionEnd::Closed) {
                let _ = tokio::time::timeout(CLIENT_CLOSE_GRACE, drain(&mut stream)).await;
            }
            drop(stream); // closes the channel
            if matches!(end, SessionEnd::Closed | SessionEnd::PeerClosed) {
                tokio::time::sleep(CLIENT_CLOSE_GRACE).await;
            }
            let _ = connection.disconnect(Disconnect::ByApplication, reason, "en".into()).await;
            progress.finished.notify_one();
        });
        Ok(())
    }

    async fn shell_request(
        &mut self,
        id: ChannelId,
        session: &mut Session,
    ) -> Result<(), Self::Error> {
        session.channel_failure(id)?;
        Ok(())
    }

    async fn exec_request(
        &mut self,
        id: ChannelId,
        _data: &[u8],
        session: &mut Session,
    ) -> Result<(), Self::Error> {
        session.channel_failure(id)?;
        Ok(())
    }

    async fn channel_close(
        &mut self,
        id: ChannelId,
        _session: &mut Session,
    ) -> Result<(), Self::Error> {
        self.channels.remove(&id);
        Ok(())
    }
}
