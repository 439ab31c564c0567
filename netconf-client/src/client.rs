//! One NETCONF session: the hello exchange, `<rpc>` and its reply, notifications, closing.

use std::time::Duration;

use netconf_proto::framing::Framing;
use netconf_proto::hello::{self, Sender, BASE_1_0, BASE_1_1};
use netconf_proto::xml::NETCONF_BASE_NS;

use crate::error::{Error, Result};
use crate::parse::{parse_message, Incoming};
use crate::reply::{Reply, NOTIFICATION_NS};
use crate::transport::{ConnectOptions, Transport};

/// One NETCONF session.
pub struct Client {
    transport: Transport,
    session_id: u32,
    capabilities: Vec<String>,
    framing: Framing,
    /// The message-id of the next rpc; ids are decimal and increase, so a stale reply (to an
    /// rpc that timed out) is recognisable as older than the one awaited.
    next_id: u64,
}

impl Client {
    /// Connects, authenticates, opens the `netconf` subsystem and exchanges hellos: our hello
    /// advertises base:1.0 and (unless [`ConnectOptions::advertise_base_1_1`] is off)
    /// base:1.1; the framing is chunked when both sides have base:1.1, end-of-message
    /// otherwise (RFC 6242 §4.1).
    pub fn connect(opts: &ConnectOptions) -> Result<Client> {
        let mut transport = Transport::open(opts)?;
        let mut ours = vec![BASE_1_0.to_string()];
        if opts.advertise_base_1_1 {
            ours.push(BASE_1_1.to_string());
        }
        // Both hellos go out at once (RFC 6241 §8.1 lets either side send first).
        transport.send(hello::client_hello(&ours).as_bytes())?;
        let theirs = hello::parse_hello(&transport.recv()?, Sender::Server)?;
        let framing = hello::negotiate(&ours, &theirs.capabilities)?;
        transport.set_framing(framing);
        Ok(Client {
            transport,
            // parse_hello(.., Server) refuses a hello without a session-id.
            session_id: theirs.session_id.unwrap_or_default(),
            capabilities: theirs.capabilities,
            framing,
            next_id: 1,
        })
    }

    /// The session-id from the server's hello.
    pub fn session_id(&self) -> u32 {
        self.session_id
    }

    /// The capabilities the server advertised, in its order.
    pub fn server_capabilities(&self) -> &[String] {
        &self.capabilities
    }

    /// Whether the server advertised a capability starting with `prefix` (capabilities may
    /// carry `?module=...` parameters).
    pub fn has_capability(&self, prefix: &str) -> bool {
        self.capabilities.iter().any(|c| c.starts_with(prefix))
    }

    /// SHA-256 of the server's host key blob (what `ssh-keygen -lf` shows before base64):
    /// what a caller pins after first use, to pass as
    /// [`ConnectOptions::host_key_sha256`] next time.
    pub fn host_key_sha256(&self) -> &[u8] {
        self.transport.host_key_sha256()
    }

    /// `<create-subscription/>` (RFC 5277) on the `NETCONF` stream, or `stream`.
    /// Notifications then arrive between replies: read them with
    /// [`Client::next_notification`] ([`Client::rpc`] skips them).
    pub fn create_subscription(&mut self, stream: Option<&str>) -> Result<()> {
        let stream = stream.map(|s| format!("<stream>{s}</stream>")).unwrap_or_default();
        let reply = self
            .rpc(&format!(
                "<create-subscription xmlns=\"{NOTIFICATION_NS}\">{stream}</create-subscription>"
            ))?
            .into_result()?;
        if reply.is_ok() {
            Ok(())
        } else {
            Err(Error::Protocol(format!("expected <ok/>, got: {}", reply.raw())))
        }
    }

    /// The next `<notification>` (raw XML), waiting at most `wait`: `Ok(None)` when none came
    /// in time, so a caller can look at a Ctrl-C flag between waits. A stray reply is an error.
    pub fn next_notification(&mut self, wait: Duration) -> Result<Option<String>> {
        let Some(bytes) = self.transport.recv_within(wait)? else {
            return Ok(None);
        };
        let text = String::from_utf8(bytes)
            .map_err(|_| Error::Protocol("a message that is not UTF-8".into()))?;
        match parse_message(text)? {
            Incoming::Notification(n) => Ok(Some(n)),
            Incoming::Reply(r) => {
                Err(Error::Protocol(format!("a reply while no rpc was sent: {}", r.raw())))
            }
        }
    }

    /// The negotiated framing.
    pub fn framing(&self) -> Framing {
        self.framing
    }

    /// Sends `operation` (the XML inside `<rpc>`, e.g. `<commit/>`) wrapped in
    /// `<rpc message-id=".." xmlns="urn:ietf:params:xml:ns:netconf:base:1.0">` and returns the
    /// matching `<rpc-reply>`, rpc-errors included (see [`Reply::into_result`]).
    /// Notifications arriving meanwhile are dropped (this client does not subscribe), and a
    /// late reply to an earlier rpc that timed out is skipped.
    pub fn rpc(&mut self, operation: &str) -> Result<Reply> {
        let id = self.next_id;
        self.next_id += 1;
        let message =
            format!("<rpc message-id=\"{id}\" xmlns=\"{NETCONF_BASE_NS}\">{operation}</rpc>");
        self.transport.send(message.as_bytes())?;
        loop {
            let bytes = self.transport.recv()?;
            let text = String::from_utf8(bytes)
                .map_err(|_| Error::Protocol("a message that is not UTF-8".into()))?;
            let reply = match parse_message(text)? {
                Incoming::Notification(_) => continue,
                Incoming::Reply(r) => r,
            };
            match reply.message_id().map(str::parse::<u64>) {
                // A reply the server could not tie to a request answers the one in flight.
                None => return Ok(reply),
                Some(Ok(got)) if got == id => return Ok(reply),
                Some(Ok(got)) if got < id => continue,
                _ => {
                    return Err(Error::Protocol(format!(
                        "reply with message-id {:?} while waiting for {id}",
                        reply.message_id().unwrap_or_default()
                    )))
                }
            }
        }
    }

    /// Sends `<close-session/>`, waits for its `<ok/>`, then closes the channel and the SSH
    /// connection itself (the server may already have closed them: that is not an error once
    /// the `<ok/>` is in).
    pub fn close_session(mut self) -> Result<()> {
        let reply = self.rpc("<close-session/>")?.into_result()?;
        if !reply.is_ok() {
            return Err(Error::Protocol(format!(
                "close-session answered without <ok/>: {}",
                reply.raw()
            )));
        }
        self.transport.shutdown(Duration::from_secs(2));
        Ok(())
    }
}
