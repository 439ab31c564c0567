//! One NETCONF session over any byte stream (an SSH channel in production, an in-memory pipe
//! in tests): hello exchange, then framed `<rpc>` in, `<rpc-reply>` out, until the client
//! closes the session, the stream ends, a time-out fires or the session is killed.
//!
//! Beside the loop: [`inline`] (which requests the session runs on its own task), [`budget`]
//! (the memory budget for requests in progress), `delivery.rs` (which notifications a
//! subscriber gets, and where their filter runs).

pub mod budget;
mod delivery;
pub mod inline;

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::broadcast::error::RecvError;
use tokio::time::Instant;
use tracing::{debug, info, warn};

use crate::dispatch::{dispatch, Outcome, Subscription};
use crate::engine::{small_for_changes, EndReason, Engine, Mode, SessionCtx};
use crate::notify::{format_time, Notification, NETMOD_NOTIFICATION_NS, NOTIFICATION_NS};
use crate::protocol::error::{ErrorTag, ErrorType, RpcError};
use crate::protocol::rpc::{self, ReplyAttrs, ReplyBody};
use crate::protocol::sessions::{SessionCounters, SessionHandle};
use budget::{Account, RequestLimits};
use delivery::deliverable;
use netconf_proto::framing::{self, Decoder, Frame, Framing, FramingError, Refused};
use netconf_proto::hello::{self, Hello, HelloError, Sender};

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
    /// Whether replies are indented (`netconf_proto::xml::indent`).
    pub indent_replies: bool,
    /// What one request may hold and parse, and the budget the sessions share.
    pub requests: RequestLimits,
}

/// The largest hello accepted: a client's capabilities take a few kilobytes.
const MAX_HELLO: usize = 1024 * 1024;

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

enum Event {
    Message(Vec<u8>),
    /// A message refused as it arrived (too large, or over the memory budget).
    Refused(Refused),
    Notification(Arc<Notification>),
    ReplayComplete,
    Stop,
}

struct Conn<'a, S> {
    stream: &'a mut S,
    decoder: Decoder,
    out_framing: Framing,
    buf: Vec<u8>,
    /// What this session holds of the request memory budget.
    account: Arc<Account>,
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
        match self.next_event(deadline, timeout_end, handle, None).await? {
            Event::Message(m) => Ok(m),
            Event::Refused(r) => {
                let limit = match r.cause {
                    framing::Refusal::TooLarge { limit } => limit,
                    framing::Refusal::Refused => MAX_HELLO,
                };
                Err(self.framing_failed(FramingError::MessageTooLarge { limit }).await)
            }
            _ => Err(SessionEnd::Io(std::io::Error::other("unexpected event"))),
        }
    }

    /// Charges the session's account for what the decoder holds; a message the budget
    /// cannot hold is refused as it arrives (skipped to its end, then answered too-big).
    fn charge_input(&mut self) {
        if self.account.set(self.decoder.buffered()).is_err() {
            self.decoder.refuse_current();
            // Less than before: cannot fail.
            let _ = self.account.set(self.decoder.buffered());
        }
    }

    /// The next message or notification event, or why the session ends.
    async fn next_event(
        &mut self,
        deadline: Option<Instant>,
        timeout_end: fn() -> SessionEnd,
        handle: &SessionHandle,
        mut sub: Option<&mut Subscription>,
    ) -> Result<Event, SessionEnd> {
        loop {
            match self.decoder.next_frame() {
                Ok(Some(Frame::Message(m))) => return Ok(Event::Message(m)),
                Ok(Some(Frame::Refused(r))) => return Ok(Event::Refused(r)),
                Ok(None) => {}
                Err(e) => return Err(self.framing_failed(e).await),
            }
            if let Some(s) = sub.as_deref_mut() {
                if let Some(n) = s.replay.pop_front() {
                    return Ok(Event::Notification(n));
                }
                if s.replay_complete {
                    s.replay_complete = false;
                    return Ok(Event::ReplayComplete);
                }
            }
            let timer = async {
                match deadline {
                    Some(d) => tokio::time::sleep_until(d).await,
                    None => std::future::pending().await,
                }
            };
            let stop = sub.as_deref().and_then(|s| s.stop);
            let stop_timer = async {
                match stop {
                    Some(t) => {
                        let left = t.duration_since(SystemTime::now()).unwrap_or(Duration::ZERO);
                        tokio::time::sleep(left).await;
                    }
                    None => std::future::pending().await,
                }
            };
            let live = async {
                match sub.as_deref_mut() {
                    Some(s) => s.live.recv().await,
                    None => std::future::pending().await,
                }
            };
            let n = tokio::select! {
                read = self.stream.read(&mut self.buf) => read.map_err(SessionEnd::Io)?,
                () = timer => return Err(timeout_end()),
                () = handle.killed() => return Err(SessionEnd::Killed),
                () = stop_timer => return Ok(Event::Stop),
                event = live => match event {
                    Ok(n) => return Ok(Event::Notification(n)),
                    Err(RecvError::Lagged(missed)) => {
                        warn!(session = handle.id(), missed, "the session fell behind the event stream; notifications were lost");
                        continue;
                    }
                    Err(RecvError::Closed) => return Ok(Event::Stop),
                },
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
            self.charge_input();
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
    engine: &Arc<Engine>,
) -> SessionEnd
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let info = handle.info();
    let ctx = SessionCtx {
        id: handle.id(),
        user: info.as_ref().map(|i| i.username.clone()).unwrap_or_default(),
        source: info.and_then(|i| i.source),
    };
    let end = run_inner(stream, handle, settings, engine, &ctx).await;
    match &end {
        SessionEnd::Closed | SessionEnd::PeerClosed => {
            info!(session = handle.id(), "session ended: {end}")
        }
        _ => warn!(session = handle.id(), "session ended: {end}"),
    }
    let reason = match &end {
        SessionEnd::Closed => EndReason::Closed,
        SessionEnd::PeerClosed | SessionEnd::Io(_) => EndReason::Dropped,
        SessionEnd::Killed if handle.killed_by().is_some() => EndReason::Killed,
        SessionEnd::HelloTimeout | SessionEnd::IdleTimeout => EndReason::Timeout,
        SessionEnd::BadHello(_) => EndReason::BadHello,
        _ => EndReason::Other,
    };
    if matches!(end, SessionEnd::BadHello(_)) {
        engine.bad_hello();
    }
    let _ = stream.shutdown().await;
    let engine2 = engine.clone();
    let (id, killed_by) = (handle.id(), handle.killed_by());
    // Clean-up may roll a confirmed commit back: off the async workers.
    let _ = tokio::task::spawn_blocking(move || engine2.session_ended(id, reason, killed_by)).await;
    end
}

/// Parses a request message within `limits`, charging `account` for the tree it builds;
/// the message itself is let go (and uncharged) once parsed.
fn parse_request(
    message: Vec<u8>,
    limits: netconf_proto::xml::ParseLimits,
    account: &Account,
) -> Result<rpc::Request, rpc::Rejected> {
    let parsed = rpc::parse_request_limited(&message, limits, &mut |n| account.grow(n).is_ok());
    account.shrink(message.capacity());
    parsed
}

/// Parses the client's hello within the request limits (on the blocking pool if it is
/// large, as any large message).
async fn parse_hello(
    message: Vec<u8>,
    account: &Arc<Account>,
    settings: &SessionSettings,
    handle: &SessionHandle,
) -> Result<Hello, SessionEnd> {
    let limits = settings.requests.parse;
    let parse = move |message: Vec<u8>, account: &Account| {
        let charge = &mut |n| account.grow(n).is_ok();
        let hello = hello::parse_hello_limited(&message, Sender::Client, limits, charge);
        account.shrink(message.capacity());
        hello
    };
    let parsed = if message.len() <= inline::MAX_MESSAGE {
        parse(message, account)
    } else {
        let account = account.clone();
        let work = tokio::task::spawn_blocking(move || parse(message, &account));
        tokio::select! {
            done = work => done.map_err(|_| SessionEnd::Io(std::io::Error::other("the hello's parse failed")))?,
            () = handle.killed() => return Err(SessionEnd::Killed),
        }
    };
    parsed.map_err(SessionEnd::BadHello)
}

/// A request message, as far as the session got with it before replying.
enum Handled {
    /// Parsed (a small message, on the session's task); not yet run.
    Parsed(Box<rpc::Request>),
    /// A large message parsed and run on the blocking pool: its message-id, operation name,
    /// reply attributes and outcome.
    Done(String, String, ReplyAttrs, Outcome),
    /// A large message whose parse panicked (a panic while handling it is `Done`, with an
    /// operation-failed reply).
    Failed,
}

/// The reply to a request whose handling panicked.
fn failed() -> Outcome {
    Outcome::Reply(ReplyBody::Errors(vec![RpcError::new(
        ErrorTag::OperationFailed,
        ErrorType::Application,
    )
    .with_message("The server failed while handling this request; see its log.")]))
}

/// A `<notification>` of the nc-notifications module (replayComplete, notificationComplete).
fn control_notification(name: &str) -> String {
    format!(
        "<notification xmlns=\"{NOTIFICATION_NS}\"><eventTime>{}</eventTime><{name} xmlns=\"{NETMOD_NOTIFICATION_NS}\"/></notification>",
        format_time(SystemTime::now())
    )
}

async fn run_inner<S>(
    stream: &mut S,
    handle: &SessionHandle,
    settings: &SessionSettings,
    engine: &Arc<Engine>,
    ctx: &SessionCtx,
) -> SessionEnd
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let mut conn = Conn {
        stream,
        decoder: Decoder::for_hello(settings.max_message_size.min(MAX_HELLO)),
        out_framing: Framing::EndOfMessage,
        buf: vec![0; 32 * 1024],
        account: Arc::new(settings.requests.budget.account()),
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
    let client = match parse_hello(theirs, &conn.account, settings, handle).await {
        Ok(h) => h,
        Err(end) => return end,
    };
    let framing = match hello::negotiate(&settings.capabilities, &client.capabilities) {
        Ok(f) => f,
        Err(e) => return SessionEnd::BadHello(e),
    };
    conn.decoder.set_framing(framing);
    conn.decoder.set_max_message_size(settings.max_message_size);
    conn.decoder.skip_refused();
    conn.out_framing = framing;
    info!(
        session = handle.id(),
        ?framing,
        client_capabilities = client.capabilities.len(),
        "hello exchanged"
    );
    engine.session_started(ctx);
    let counters = handle.counters().clone();
    let mut sub: Option<Box<Subscription>> = None;

    loop {
        // The previous request is gone: the account holds only what the decoder holds.
        conn.charge_input();
        // A subscribed session is never idle (RFC 5277: it waits for events).
        let deadline = match sub {
            Some(_) => None,
            None => settings.idle_timeout.map(|d| Instant::now() + d),
        };
        let event = match conn
            .next_event(deadline, || SessionEnd::IdleTimeout, handle, sub.as_deref_mut())
            .await
        {
            Ok(e) => e,
            Err(end) => return end,
        };
        let message = match event {
            Event::Message(m) => m,
            Event::Refused(r) => {
                engine.count_bad_rpc();
                SessionCounters::bump(&counters.in_bad_rpcs);
                engine.count_error_reply();
                SessionCounters::bump(&counters.out_rpc_errors);
                debug!(session = handle.id(), length = r.length, cause = ?r.cause, "message refused as it arrived");
                let (attrs, error) = rpc::refused(&r);
                let text = rpc::reply(&attrs, &ReplyBody::Errors(vec![error]));
                if let Err(end) = conn.send(&text).await {
                    return end;
                }
                continue;
            }
            Event::Notification(n) => {
                let Some(s) = sub.as_deref() else { continue };
                if let Some(text) = deliverable(engine, ctx, s, n, handle).await {
                    if let Err(end) = conn.send(&text).await {
                        return end;
                    }
                    engine.count_notification();
                    SessionCounters::bump(&counters.out_notifications);
                }
                continue;
            }
            Event::ReplayComplete => {
                if let Err(end) = conn.send(&control_notification("replayComplete")).await {
                    return end;
                }
                continue;
            }
            Event::Stop => {
                if sub.take().is_some() {
                    if let Err(end) = conn.send(&control_notification("notificationComplete")).await
                    {
                        return end;
                    }
                }
                continue;
            }
        };
        // An empty (or all-whitespace) base:1.0 message carries nothing to answer: skip it.
        // netconf-rs 0.2.6 sends one after its hello (a second `]]>]]>`); closing the session
        // as malformed would lose that client for no gain.
        if framing == Framing::EndOfMessage && message.iter().all(u8::is_ascii_whitespace) {
            debug!(session = handle.id(), "empty base:1.0 message ignored");
            continue;
        }
        let size = message.len();
        let subscribed = sub.is_some();
        let limits = settings.requests.parse;
        let parsed = if size <= inline::MAX_MESSAGE {
            parse_request(message, limits, &conn.account)
                .map(|request| Handled::Parsed(Box::new(request)))
        } else {
            // A large message takes a while to parse too (milliseconds for a few hundred
            // kilobytes) and is never light: parsed and handled in one trip to the pool.
            let (e, c, account) = (engine.clone(), ctx.clone(), conn.account.clone());
            let work = tokio::task::spawn_blocking(move || {
                parse_request(message, limits, &account).map(|request| {
                    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        dispatch(&e, &c, Mode::Blocking, subscribed, &request.operation)
                    }))
                    .unwrap_or_else(|_| failed());
                    Handled::Done(
                        request.message_id,
                        request.operation.name.to_string(),
                        request.reply_attrs,
                        outcome,
                    )
                })
            });
            tokio::select! {
                done = work => match done {
                    Ok(handled) => handled,
                    Err(e) if e.is_panic() => Ok(Handled::Failed),
                    Err(_) => return SessionEnd::Killed, // the runtime is shutting down
                },
                () = handle.killed() => return SessionEnd::Killed,
            }
        };
        let (attrs, outcome) = match parsed {
            Ok(Handled::Failed) => {
                // The parse panicked: no attributes to echo.
                engine.count_rpc();
                SessionCounters::bump(&counters.in_rpcs);
                (ReplyAttrs::none(), failed())
            }
            Ok(Handled::Done(message_id, operation, attrs, outcome)) => {
                debug!(session = handle.id(), %message_id, %operation, "rpc (large, on the pool)");
                engine.count_rpc();
                SessionCounters::bump(&counters.in_rpcs);
                (attrs, outcome)
            }
            Ok(Handled::Parsed(request)) => {
                let request = *request;
                debug!(session = handle.id(), message_id = %request.message_id, operation = %request.operation.name, "rpc");
                engine.count_rpc();
                SessionCounters::bump(&counters.in_rpcs);
                let op = request.operation;
                // A light request runs here, on the session's task: no thread hand-off, and
                // it cannot hold this worker long (see `inline`); a light change first waits
                // for the writer mutex without blocking the thread. Anything else runs on
                // the blocking pool.
                let run = |mode: Mode<'_>| {
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        dispatch(engine, ctx, mode, subscribed, &op)
                    }))
                };
                let done_here = if !inline::light(engine, &op, size) {
                    None
                } else if inline::needs_writer(&op) {
                    // Wait for other changes here, without blocking the thread.
                    let writer = tokio::select! {
                        w = engine.write_async() => w,
                        () = handle.killed() => return SessionEnd::Killed,
                    };
                    // The datastores may have grown meanwhile.
                    small_for_changes(engine).then(|| inline::run_holding(writer, run))
                } else {
                    inline::run(run)
                };
                let outcome = match done_here {
                    Some(done) => {
                        // Killed meanwhile: end as if the kill had come while waiting.
                        tokio::select! {
                            biased;
                            () = handle.killed() => return SessionEnd::Killed,
                            () = std::future::ready(()) => {}
                        }
                        done.unwrap_or_else(|_| failed())
                    }
                    None => {
                        let (e, c) = (engine.clone(), ctx.clone());
                        let work = tokio::task::spawn_blocking(move || {
                            dispatch(&e, &c, Mode::Blocking, subscribed, &op)
                        });
                        tokio::select! {
                            done = work => done.unwrap_or_else(|_| failed()),
                            () = handle.killed() => return SessionEnd::Killed,
                        }
                    }
                };
                (request.reply_attrs, outcome)
            }
            Err(rejected) => {
                engine.count_bad_rpc();
                SessionCounters::bump(&counters.in_bad_rpcs);
                if rejected.error.tag == ErrorTag::MalformedMessage
                    && framing == Framing::EndOfMessage
                {
                    return SessionEnd::Malformed;
                }
                debug!(session = handle.id(), error = %rejected.error, "rejected message");
                (rejected.reply_attrs, Outcome::Reply(ReplyBody::Errors(vec![*rejected.error])))
            }
        };
        let (body, close, new_sub) = match outcome {
            Outcome::Reply(b) => (b, false, None),
            Outcome::ReplyAndClose(b) => (b, true, None),
            Outcome::Subscribe(b, s) => (b, false, Some(s)),
        };
        if matches!(body, ReplyBody::Errors(_)) {
            engine.count_error_reply();
            SessionCounters::bump(&counters.out_rpc_errors);
        }
        let text = rpc::reply(&attrs, &body);
        let text = if settings.indent_replies { netconf_proto::xml::indent(&text) } else { text };
        if let Err(end) = conn.send(&text).await {
            return end;
        }
        if close {
            return SessionEnd::Closed;
        }
        if new_sub.is_some() {
            sub = new_sub;
        }
    }
}
