//! The SSH side of the client: TCP connect, libssh2 handshake, authentication, the `netconf`
//! subsystem (RFC 6242 §3), and framed message I/O over the channel with the pure
//! [`netconf_proto::framing`] decoder and encoder the server uses too (the same code both
//! ends, tested once).

use std::io::{Read as _, Write as _};
use std::net::{TcpStream, ToSocketAddrs};
use std::path::PathBuf;
use std::time::Duration;

use netconf_proto::framing::{self, Decoder, Framing};

use crate::error::{Error, Result};

/// How the client proves who it is.
#[derive(Debug, Clone)]
pub enum Auth {
    /// SSH password authentication.
    Password(String),
    /// Public-key authentication with an unencrypted private key file (OpenSSH or PEM
    /// format; libssh2 derives the public key from it).
    KeyFile(PathBuf),
    /// Public-key authentication with whichever identity a running ssh-agent
    /// (`$SSH_AUTH_SOCK`) holds that the server accepts, tried in the agent's order.
    Agent,
}

impl Auth {
    fn method(&self) -> &'static str {
        match self {
            Auth::Password(_) => "password",
            Auth::KeyFile(_) => "public key",
            Auth::Agent => "ssh-agent",
        }
    }
}

/// Where and how to connect.
#[derive(Debug, Clone)]
pub struct ConnectOptions {
    /// Host name or address.
    pub host: String,
    /// TCP port (830 is NETCONF over SSH's registered port).
    pub port: u16,
    /// SSH user name.
    pub user: String,
    /// Credentials.
    pub auth: Auth,
    /// Bound on the TCP connect and on every later wait for the server (each read or write,
    /// not a whole rpc): a silent server becomes [`Error::Timeout`] instead of a hang.
    pub timeout: Duration,
    /// Advertise base:1.1 besides base:1.0 (the default). `false` forces end-of-message
    /// framing even against a base:1.1 server, to exercise or compare both framings.
    pub advertise_base_1_1: bool,
    /// The expected SHA-256 of the server's host key blob (what `ssh-keygen -lf` shows,
    /// before base64). `None` accepts any host key: fine on loopback for tests and
    /// benchmarks, not across a network.
    pub host_key_sha256: Option<Vec<u8>>,
}

impl ConnectOptions {
    /// Options with a 30 s time-out, both base versions advertised, any host key accepted.
    pub fn new(host: impl Into<String>, port: u16, user: impl Into<String>, auth: Auth) -> Self {
        ConnectOptions {
            host: host.into(),
            port,
            user: user.into(),
            auth,
            timeout: Duration::from_secs(30),
            advertise_base_1_1: true,
            host_key_sha256: None,
        }
    }
}

/// The largest message the client accepts: far above any reply this workspace produces
/// (4096 interfaces ≈ 1 MiB), low enough that a runaway server cannot exhaust memory.
const MAX_MESSAGE: usize = 512 << 20;

/// A `netconf` subsystem channel with message framing.
pub(crate) struct Transport {
    // `channel` before `session`: libssh2 wants a channel freed before its session.
    channel: ssh2::Channel,
    session: ssh2::Session,
    decoder: Decoder,
    out: Framing,
    timeout: Duration,
    buf: Vec<u8>,
    /// SHA-256 of the server's host key blob, as libssh2 saw it during the handshake.
    host_key_sha256: Vec<u8>,
}

/// Tries each identity the ssh-agent holds until the server accepts one.
fn agent_auth(session: &ssh2::Session, user: &str) -> std::result::Result<(), ssh2::Error> {
    let mut agent = session.agent()?;
    agent.connect()?;
    agent.list_identities()?;
    let mut last = ssh2::Error::new(
        ssh2::ErrorCode::Session(LIBSSH2_ERROR_PUBLICKEY_UNVERIFIED),
        "the ssh-agent holds no key the server accepts",
    );
    for identity in agent.identities()? {
        match agent.userauth(user, &identity) {
            Ok(()) => return Ok(()),
            Err(e) => last = e,
        }
    }
    let _ = agent.disconnect();
    Err(last)
}

/// libssh2's "public key unverified" code, for "no identity worked".
const LIBSSH2_ERROR_PUBLICKEY_UNVERIFIED: i32 = -19;

/// libssh2's time-out code; ssh2 turns it into `io::ErrorKind::TimedOut` on channel I/O.
const LIBSSH2_ERROR_TIMEOUT: i32 = -9;

fn ssh_error(stage: &'static str, timeout: Duration) -> impl Fn(ssh2::Error) -> Error {
    move |source| match source.code() {
        ssh2::ErrorCode::Session(LIBSSH2_ERROR_TIMEOUT) => Error::Timeout { stage, after: timeout },
        _ => Error::Ssh { stage, source },
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl Transport {
    /// Connects, authenticates and starts the `netconf` subsystem. Framing starts as
    /// end-of-message (the hellos always use it).
    pub(crate) fn open(opts: &ConnectOptions) -> Result<Transport> {
        let addr_text = format!("{}:{}", opts.host, opts.port);
        let connect_err = |source| Error::Connect { addr: addr_text.clone(), source };
        let addrs: Vec<_> =
            (opts.host.as_str(), opts.port).to_socket_addrs().map_err(connect_err)?.collect();
        let mut last = std::io::Error::new(std::io::ErrorKind::NotFound, "no address");
        let mut tcp = None;
        for addr in addrs {
            match TcpStream::connect_timeout(&addr, opts.timeout) {
                Ok(s) => {
                    tcp = Some(s);
                    break;
                }
                Err(e) => last = e,
            }
        }
        let tcp = tcp.ok_or_else(|| connect_err(last))?;
        // Small request/reply messages: do not let Nagle hold the last segment of an rpc.
        let _ = tcp.set_nodelay(true);

        let timeout = opts.timeout;
        let mut session = ssh2::Session::new().map_err(ssh_error("session set-up", timeout))?;
        session.set_timeout(u32::try_from(timeout.as_millis()).unwrap_or(u32::MAX));
        session.set_tcp_stream(tcp);
        session.handshake().map_err(ssh_error("handshake", timeout))?;

        let host_key_sha256 =
            session.host_key_hash(ssh2::HashType::Sha256).unwrap_or_default().to_vec();
        if let Some(expected) = &opts.host_key_sha256 {
            if host_key_sha256 != expected.as_slice() {
                return Err(Error::HostKey {
                    expected: hex(expected),
                    actual: hex(&host_key_sha256),
                });
            }
        }

        let auth_result = match &opts.auth {
            Auth::Password(pw) => session.userauth_password(&opts.user, pw),
            Auth::KeyFile(path) => session.userauth_pubkey_file(&opts.user, None, path, None),
            Auth::Agent => agent_auth(&session, &opts.user),
        };
        match auth_result {
            Ok(()) if session.authenticated() => {}
            Ok(()) => {
                return Err(Error::Auth {
                    user: opts.user.clone(),
                    method: opts.auth.method(),
                    reason: "the server did not confirm authentication".into(),
                })
            }
            Err(e) => {
                return Err(match ssh_error("authentication", timeout)(e) {
                    Error::Ssh { source, .. } => Error::Auth {
                        user: opts.user.clone(),
                        method: opts.auth.method(),
                        reason: source.message().to_string(),
                    },
                    other => other,
                })
            }
        }

        let mut channel = session.channel_session().map_err(ssh_error("channel open", timeout))?;
        // NETCONF uses the channel's data stream only; anything on stderr would otherwise
        // pile up in libssh2's buffer and eventually stall the window.
        channel
            .handle_extended_data(ssh2::ExtendedData::Ignore)
            .map_err(ssh_error("channel set-up", timeout))?;
        channel.subsystem("netconf").map_err(ssh_error("netconf subsystem request", timeout))?;
        Ok(Transport {
            channel,
            session,
            decoder: Decoder::new(Framing::EndOfMessage, MAX_MESSAGE),
            out: Framing::EndOfMessage,
            timeout,
            buf: vec![0; 64 * 1024],
            host_key_sha256,
        })
    }

    /// SHA-256 of the server's host key blob (empty if libssh2 gave none).
    pub(crate) fn host_key_sha256(&self) -> &[u8] {
        &self.host_key_sha256
    }

    /// Waits at most `wait` for the next complete message: `Ok(None)` when none came in
    /// time. A message half received stays in the decoder for the next call.
    pub(crate) fn recv_within(&mut self, wait: Duration) -> Result<Option<Vec<u8>>> {
        self.session.set_timeout(u32::try_from(wait.as_millis()).unwrap_or(u32::MAX).max(1));
        let got = self.recv();
        self.session.set_timeout(u32::try_from(self.timeout.as_millis()).unwrap_or(u32::MAX));
        match got {
            Ok(m) => Ok(Some(m)),
            Err(Error::Timeout { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Switches both directions' framing (after the hellos).
    pub(crate) fn set_framing(&mut self, framing: Framing) {
        self.decoder.set_framing(framing);
        self.out = framing;
    }

    fn io_error(&self, stage: &'static str, e: std::io::Error) -> Error {
        if e.kind() == std::io::ErrorKind::TimedOut {
            Error::Timeout { stage, after: self.timeout }
        } else {
            Error::Io(e)
        }
    }

    /// Frames and sends one message.
    ///
    /// Deliberately no `flush()`: ssh2's `Write::flush` is `libssh2_channel_flush_ex`, which
    /// *discards unread incoming data* rather than pushing outgoing data (libssh2's
    /// `write` has already sent everything when it returns). Calling it after our hello
    /// threw away a server hello that had already arrived, and the client then waited for
    /// it forever.
    pub(crate) fn send(&mut self, message: &[u8]) -> Result<()> {
        let framed = framing::encode(self.out, message)?;
        self.channel.write_all(&framed).map_err(|e| self.io_error("sending", e))
    }

    /// The next complete message. [`Error::Closed`] if the server ended the channel between
    /// messages, [`Error::Framing`] if it did so in the middle of one.
    pub(crate) fn recv(&mut self) -> Result<Vec<u8>> {
        loop {
            if let Some(m) = self.decoder.next_message()? {
                return Ok(m);
            }
            let n = self.channel.read(&mut self.buf).map_err(|e| self.io_error("receiving", e))?;
            if n == 0 {
                self.decoder.finish()?;
                return Err(Error::Closed);
            }
            self.decoder.feed(&self.buf[..n]);
        }
    }

    /// Ends the channel and the SSH connection from our side, tolerating a server that
    /// already closed them (RFC 6242 lets either side close after close-session). Waits at
    /// most `linger` for the server's channel close, so a server that never answers cannot
    /// hold the caller.
    pub(crate) fn shutdown(mut self, linger: Duration) {
        self.session.set_timeout(u32::try_from(linger.as_millis()).unwrap_or(u32::MAX).max(1));
        let _ = self.channel.send_eof();
        let _ = self.channel.close();
        let _ = self.channel.wait_close();
        let _ = self.session.disconnect(None, "close-session", None);
    }
}
