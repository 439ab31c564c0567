//! One accepted TCP connection, from its first byte to its end: runs it through russh and cuts
//! it when it is displaced, misses the login deadline, starts no NETCONF session in time, is
//! not closed by the client once its session is over, or the server stops.
//!
//! The login deadline runs from the accept, so it covers the client's version line, the key
//! exchange and authentication alike. Cutting does not rely on russh: its session task reads
//! queued requests such as a disconnect only outside a key exchange, and after a disconnect
//! it waits for the client to close. A client that stops in the middle of a key exchange would
//! never go. So the connection is shut down at the socket (a duplicate of its descriptor kept
//! for that), which ends every read of russh's task at once.

use std::net::{Shutdown, SocketAddr};
use std::os::fd::AsFd as _;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpStream;
use tokio::sync::watch;
use tokio::time::Instant;
use tracing::{debug, info, warn};

use super::admission::{Stage, TicketWatch};
use super::flood_log::Closed;
use super::handler::{Handler, Progress};
use super::quick_ack::QuickAck;

/// How long a cut connection is given to end after the disconnect message before its socket
/// is shut down.
const DISCONNECT_GRACE: Duration = Duration::from_millis(200);

/// How long russh's task may take to notice a shut-down socket.
const SHUTDOWN_WAIT: Duration = Duration::from_secs(5);

/// The time limits of one connection, from its accept.
#[derive(Debug, Clone, Copy)]
pub struct Deadlines {
    /// To authenticate (version line, key exchange and authentication included).
    pub login: Duration,
    /// To start a NETCONF session.
    pub session_start: Duration,
}

/// Why the server ends a connection.
#[derive(Debug, Clone, Copy)]
enum Cut {
    Displaced,
    LoginTimeout,
    NoSession,
    /// The session is over and the client was asked to disconnect: it is slow to close.
    SessionOver,
    Shutdown,
}

impl Cut {
    fn text(self) -> &'static str {
        match self {
            Cut::Displaced => "too many unauthenticated connections",
            Cut::LoginTimeout => "authentication not done in time",
            Cut::NoSession => "no NETCONF session started in time",
            Cut::SessionOver => "NETCONF session ended",
            Cut::Shutdown => "server shutting down",
        }
    }
}

/// Runs the connection until it ends. `progress` is the handler's report; `watch` says whether
/// the connection was displaced and settles the login deadline with the admission table.
#[allow(clippy::too_many_arguments)]
pub async fn serve(
    socket: TcpStream,
    peer: SocketAddr,
    ssh: Arc<russh::server::Config>,
    handler: Handler,
    progress: Arc<Progress>,
    watch: TicketWatch,
    deadlines: Deadlines,
    mut stopped: watch::Receiver<bool>,
) {
    let accepted = Instant::now();
    let login_deadline = accepted + deadlines.login;
    let start_deadline = accepted + deadlines.session_start;
    let _ = socket.set_nodelay(true);
    // Without it a connection stuck in a key exchange could not be cut (module comment). If
    // the process is out of descriptors, refuse the connection rather than run it uncuttable.
    let killer = match socket.as_fd().try_clone_to_owned() {
        Ok(fd) => std::net::TcpStream::from(fd),
        Err(e) => {
            warn!(%peer, "refusing a connection: cannot duplicate its socket: {e}");
            return;
        }
    };
    // russh reads a packet's length and then its body: two reads per packet unless something
    // buffers below it.
    let stream = tokio::io::BufReader::with_capacity(16 * 1024, QuickAck(socket));

    // Until the client's version line has arrived, russh's future is ours: dropping it (and
    // the duplicate, when this returns) closes the connection.
    let session = tokio::select! {
        started = russh::server::run_stream(ssh, stream, handler) => match started {
            Ok(session) => session,
            Err(e) => {
                debug!(%peer, "SSH connection ended before its version line: {e}");
                return;
            }
        },
        () = watch.displaced() => return,
        // Settled with the table before the branches are dropped: dropping russh's future drops
        // the handler and with it the connection's place.
        expired = async {
            tokio::time::sleep_until(login_deadline).await;
            watch.expire()
        } => {
            if expired && watch.flood_log().line(Closed::NoVersionLine) {
                info!(%peer, "closing a connection that sent no SSH version line in time");
            }
            return;
        }
        _ = stopped.changed() => return,
    };

    watch.reached(Stage::VersionLine);
    let handle = session.handle();
    tokio::pin!(session);
    let login_guard = async {
        tokio::time::sleep_until(login_deadline).await;
        if !watch.expire() {
            std::future::pending::<()>().await;
        }
    };
    let start_guard = async {
        tokio::time::sleep_until(start_deadline).await;
        if progress.started.load(Ordering::Relaxed) {
            std::future::pending::<()>().await;
        }
    };
    let cut = tokio::select! {
        result = &mut session => {
            if let Err(e) = result {
                debug!(%peer, "SSH connection ended with an error: {e}");
            }
            return;
        }
        () = watch.displaced() => Cut::Displaced,
        () = login_guard => Cut::LoginTimeout,
        () = start_guard => Cut::NoSession,
        () = progress.finished.notified() => Cut::SessionOver,
        _ = stopped.changed() => Cut::Shutdown,
    };
    match cut {
        Cut::LoginTimeout => {
            if watch.flood_log().line(Closed::NotAuthenticated) {
                info!(%peer, "closing a connection that did not authenticate in time")
            }
        }
        Cut::NoSession => {
            warn!(%peer, "closing a connection that started no NETCONF session in time")
        }
        Cut::Displaced | Cut::SessionOver | Cut::Shutdown => {}
    }
    // A client past its key exchange gets a disconnect message saying why (after a session, the
    // handler has sent it); then the socket is shut down whatever the client does.
    if !matches!(cut, Cut::SessionOver) {
        let _ = tokio::time::timeout(
            DISCONNECT_GRACE,
            handle.disconnect(russh::Disconnect::ByApplication, cut.text().into(), "en".into()),
        )
        .await;
    }
    if tokio::time::timeout(DISCONNECT_GRACE, &mut session).await.is_ok() {
        return;
    }
    let _ = killer.shutdown(Shutdown::Both);
    if tokio::time::timeout(SHUTDOWN_WAIT, &mut session).await.is_err() {
        warn!(%peer, "the SSH task did not end after its socket was shut down");
    }
}
