//! One NETCONF session over any byte stream (an SSH channel in production, an in-memory pipe
//! in tests): hello exchange, then framed `<rpc>` in, `<rpc-reply>` out, until the client
//! closes the session, the stream ends, a time-out fires or the session is killed.

use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::time::Instant;
use tracing::{debug, info, warn};

use crate::dispatch::{dispatch, Outcome};
use crate::error::{ErrorTag, RpcError};
use crate::framing::{self, Decoder, Framing, FramingError};
use crate::hello::{self, HelloError, Sender};
use crate::rpc::{self, ReplyAttrs, ReplyBody};
use crate::sessions::SessionHandle;

/// Limits and capabilities of a session.
#[derive(Debug, Clone)]
pub struct SessionSettings {
    /// The capabilities the server advertises in its hello.
    pub capabilities: Vec<String>,
    /// The largest message accepted, in bytes.
    pub max_message_size: usize,
    /// How long the client has to send its hello.
    pub hello_timeout: Duration,
    /// How long a session may go without a complete message before it is closed.
    pub idle_timeout: Option<Duration>,
}

/// Why a session ended.
#[derive(Debug)]
pub enum SessionEnd {
    /// The client sent `<close-session>`.
    Closed,
    /// The client closed the stream between messages.
    PeerClosed,
    /// The session was killed (kill-session or server shutdown).
    Killed,
    /// No hello within the hello time-out.
    HelloTimeout,
    /// No message within the idle time-out.
    IdleTimeout,
    /// The client's hello was refused.
    BadHello(HelloError),
    /// The byte stream could not be split into messages.
    Framing(FramingError),
    /// A message on a base:1.0 session was not well-formed XML (malformed-message may not be
    /// sent to base:1.0 clients, so the session is closed).
    Malformed,
    /// Reading or writing the stream failed.
    Io(std::io::Error),
}

impl std::fmt::Display for SessionEnd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SessionEnd::Closed => write!(f, "closed by the client (close-session)"),
            SessionEnd::PeerClosed => write!(f, "the client closed the connection"),
            SessionEnd::Killed => write!(f, "killed"),
            SessionEnd::HelloTimeout => write!(f, "no hello from the client in time"),
            SessionEnd::IdleTimeout => write!(f, "idle time-out"),
            SessionEnd::BadHello(e) => write!(f, "refused the client's hello: {e}"),
            SessionEnd::Framing(e) => write!(f, "bad framing: {e}"),
            SessionEnd::Malformed => write!(f, "malformed message on a base:1.0 session"),
            SessionEnd::Io(e) => write!(f, "I/O error: {e}"),
        }
    }
}

struct Conn<'a, S> {
    stream: &'a mut S,
    decoder: Decoder,
    out_framing: Framing,
    buf: Vec<u8>,
}

impl<S: AsyncRead + AsyncWrite + Unpin> Conn<'_, S> {
    async fn send(&mut self, message: &str) -> Result<(), SessionEnd> {
        let framed =
            framing::encode(self.out_framing, message.as_bytes()).map_err(SessionEnd::Framing)?;
        self.stream.write_all(&framed).await.map_err(SessionEnd::Io)?;
        self.stream.flush().await.map_err(SessionEnd::Io)
    }

    /// The next message, or why there is none. `deadline` bounds the wait.
    async fn next_message(
        &mut self,
        deadline: Option<Instant>,
        timeout_end: fn() -> SessionEnd,
        handle: &SessionHandle,
    ) -> Result<Vec<u8>, SessionEnd> {
        loop {
            match self.decoder.next_message() {
                Ok(Some(m)) => return Ok(m),
                Ok(None) => {}
                Err(e) => return Err(self.framing_failed(e).await),
            }
            let timer = async {
                match deadline {
                    Some(d) => tokio::time::sleep_until(d).await,
                    None => std::future::pending().await,
                }
            };
            let n = tokio::select! {
                read = self.stream.read(&mut self.buf) => read.map_err(SessionEnd::Io)?,
                () = timer => return Err(timeout_end()),
                () = handle.killed() => return Err(SessionEnd::Killed),
            };
            if n == 0 {
                return Err(match self.decoder.finish() {
                    Ok(()) => SessionEnd::PeerClosed,
                    Err(e) => SessionEnd::Framing(e),
                });
            }
            let Some(data) = self.buf.get(..n) else {
                return Err(SessionEnd::Io(std::io::Error::other("read past the buffer")));
            };
            self.decoder.feed(data);
        }
    }

    /// Tells an oversize client why before closing; other framing errors close silently (the
    /// stream cannot be resynchronised, so a reply could not be placed reliably).
    async fn framing_failed(&mut self, e: FramingError) -> SessionEnd {
        if let FramingError::MessageTooLarge { limit } = e {
            let body = ReplyBody::Errors(vec![RpcError::too_big(limit)]);
            let _ = self.send(&rpc::reply(&ReplyAttrs::none(), &body)).await;
        }
        SessionEnd::Framing(e)
    }
}

/// Runs a session to its end and shuts the stream down.
pub async fn run<S>(
    stream: &mut S,
    handle: &SessionHandle,
    settings: &SessionSettings,
) -> SessionEnd
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let end = run_inner(stream, handle, settings).await;
    match &end {
        SessionEnd::Closed | SessionEnd::PeerClosed => {
            info!(session = handle.id(), "session ended: {end}")
        }
        _ => warn!(session = handle.id(), "session ended: {end}"),
    }
    let _ = stream.shutdown().await;
    end
}

async fn run_inner<S>(
    stream: &mut S,
    handle: &SessionHandle,
    settings: &SessionSettings,
) -> SessionEnd
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let mut conn = Conn {
        stream,
        decoder: Decoder::new(Framing::EndOfMessage, settings.max_message_size),
        out_framing: Framing::EndOfMessage,
        buf: vec![0; 32 * 1024],
    };

    // Both peers send their hello at once, in end-of-message framing (RFC 6242 §4.1).
    let ours = hello::server_hello(&settings.capabilities, handle.id());
    if let Err(end) = conn.send(&ours).await {
        return end;
    }
    let deadline = Instant::now() + settings.hello_timeout;
    let theirs = match conn.next_message(Some(deadline), || SessionEnd::HelloTimeout, handle).await
    {
        Ok(m) => m,
        Err(end) => return end,
    };
    let client = match hello::parse_hello(&theirs, Sender::Client) {
        Ok(h) => h,
        Err(e) => return SessionEnd::BadHello(e),
    };
    let framing = match hello::negotiate(&settings.capabilities, &client.capabilities) {
        Ok(f) => f,
        Err(e) => return SessionEnd::BadHello(e),
    };
    conn.decoder.set_framing(framing);
    conn.out_framing = framing;
    info!(
        session = handle.id(),
        ?framing,
        client_capabilities = client.capabilities.len(),
        "hello exchanged"
    );

    loop {
        let deadline = settings.idle_timeout.map(|d| Instant::now() + d);
        let message = match conn.next_message(deadline, || SessionEnd::IdleTimeout, handle).await {
            Ok(m) => m,
            Err(end) => return end,
        };
        let (attrs, outcome) = match rpc::parse_request(&message) {
            Ok(request) => {
                debug!(session = handle.id(), message_id = %request.message_id, operation = %request.operation.name, "rpc");
                (request.reply_attrs, dispatch(&request.operation, handle.id()))
            }
            Err(rejected) => {
                if rejected.error.tag == ErrorTag::MalformedMessage
                    && framing == Framing::EndOfMessage
                {
                    return SessionEnd::Malformed;
                }
                debug!(session = handle.id(), error = %rejected.error, "rejected message");
                (rejected.reply_attrs, Outcome::Reply(ReplyBody::Errors(vec![*rejected.error])))
            }
        };
        match outcome {
            Outcome::Reply(body) => {
                if let Err(end) = conn.send(&rpc::reply(&attrs, &body)).await {
                    return end;
                }
            }
            Outcome::ReplyAndClose(body) => {
                return match conn.send(&rpc::reply(&attrs, &body)).await {
                    Ok(()) => SessionEnd::Closed,
                    Err(end) => end,
                };
            }
        }
    }
}
