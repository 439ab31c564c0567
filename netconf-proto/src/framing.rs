//! NETCONF message framing over SSH (RFC 6242 §4): pure, no I/O.
//!
//! Two framings exist:
//!
//! ```text
//! base:1.0  end-of-message   <message bytes> "]]>]]>"
//!
//! base:1.1  chunked (§4.2)   Chunked-Message = 1*chunk end-of-chunks
//!                            chunk           = LF HASH chunk-size LF chunk-data
//!                            chunk-size      = 1*DIGIT1 0*DIGIT   ; 1..4294967295
//!                            end-of-chunks   = LF HASH HASH LF
//!           e.g.             "\n#4\n<rpc\n#18\n message-id=\"102\"\n\n##\n"
//! ```
//!
//! The `<hello>` messages always use end-of-message framing; once both peers have advertised
//! `urn:ietf:params:netconf:base:1.1` every later message is chunked. Because a client may send
//! its first `<rpc>` in the same packet as its `<hello>`, the [`Decoder`] buffers raw input and
//! hands out one message at a time, so the caller can switch framing between two messages
//! with [`Decoder::set_framing`].
//!
//! A message over the size limit, or one the caller refuses while it arrives (the server's
//! memory budget, mgmt's `budget`), need not end the session: both framings say where a
//! message ends without its content, so a decoder set to [`Decoder::skip_refused`] keeps
//! only the message's first [`REFUSED_HEAD`] bytes (enough for the `<rpc>` start tag and its
//! message-id), counts and drops the rest, and hands out a [`Frame::Refused`] at its end.

use thiserror::Error;

/// The end-of-message marker of base:1.0 framing.
pub const EOM: &[u8] = b"]]>]]>";

/// The largest chunk-size RFC 6242 §4.2 allows.
pub const MAX_CHUNK_SIZE: u64 = 4_294_967_295;

/// Chunk size the encoder uses when splitting a message (a sender's free choice).
pub const DEFAULT_ENCODE_CHUNK: usize = 65_536;

/// How much of a refused message is kept: its start, where the `<rpc>` start tag with the
/// message-id the error reply must echo is.
pub const REFUSED_HEAD: usize = 8 * 1024;

/// Which framing a session uses in one direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// base:1.0: the message followed by `]]>]]>`.
    EndOfMessage,
    /// base:1.1: chunked framing.
    Chunked,
}

/// Why a byte stream is not validly framed. Any of these ends the session: the stream can no
/// longer be split into messages reliably.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum FramingError {
    /// A chunk header must start with LF.
    #[error("chunked framing: expected a line feed before '#', found byte 0x{0:02x}")]
    ExpectedLineFeed(u8),
    /// A chunk header's LF must be followed by `#`.
    #[error("chunked framing: expected '#' after the line feed, found byte 0x{0:02x}")]
    ExpectedHash(u8),
    /// A chunk size starting with `0` (RFC 6242 §4.2 prohibits leading zeros, and 0 itself).
    #[error("chunked framing: a chunk size must not start with '0'")]
    LeadingZero,
    /// A byte other than a digit or LF inside a chunk size.
    #[error("chunked framing: invalid byte 0x{0:02x} in a chunk size")]
    InvalidChunkSizeByte(u8),
    /// A chunk size above 4294967295.
    #[error("chunked framing: chunk size exceeds the maximum of 4294967295")]
    ChunkSizeTooLarge,
    /// `\n##` must be followed by LF.
    #[error("chunked framing: expected a line feed after '##', found byte 0x{0:02x}")]
    ExpectedEndLineFeed(u8),
    /// `\n##\n` with no chunk before it: a message has at least one chunk.
    #[error("chunked framing: end-of-chunks marker without any chunk")]
    EmptyMessage,
    /// The message (so far) is larger than the configured maximum message size.
    #[error("message exceeds the maximum message size of {limit} bytes")]
    MessageTooLarge {
        /// The configured maximum, in bytes.
        limit: usize,
    },
    /// The stream ended in the middle of a message.
    #[error("the stream ended in the middle of a message")]
    Truncated,
}

/// Why a message was refused while it arrived.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// It is larger than the maximum message size.
    TooLarge {
        /// The maximum, in bytes.
        limit: usize,
    },
    /// The caller refused it ([`Decoder::refuse_current`]): its memory budget could not
    /// hold it.
    Refused,
}

/// A message that was framed to its end but not kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    /// Its first bytes (at most [`REFUSED_HEAD`]).
    pub head: Vec<u8>,
    /// Its whole length, in bytes.
    pub length: u64,
    /// Why it was not kept.
    pub cause: Refusal,
}

/// What the decoder hands out: a message, or the end of one it did not keep.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// A complete message.
    Message(Vec<u8>),
    /// A message refused while it arrived (only with [`Decoder::skip_refused`], or after
    /// [`Decoder::refuse_current`]).
    Refused(Refused),
}

// ===== impl Decoder =====

/// Where the chunked decoder stands within a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ChunkState {
    /// Expecting the LF that opens a chunk header or the end-of-chunks marker.
    HeaderLf,
    /// Expecting `#` after that LF.
    HeaderHash,
    /// After `\n#`: a DIGIT1 (chunk) or `#` (end-of-chunks).
    SizeOrEnd,
    /// Inside the chunk-size digits, with the value so far.
    Size(u64),
    /// Inside chunk-data, with the number of bytes still to come.
    Data(u64),
    /// After `\n##`, expecting the final LF.
    EndLf,
}

/// An incremental decoder: feed it bytes as they arrive, take complete messages out.
#[derive(Debug)]
pub struct Decoder {
    framing: Framing,
    max_message_size: usize,
    /// Raw input not yet consumed, starting at `pos`.
    input: Vec<u8>,
    pos: usize,
    /// The message being assembled.
    message: Vec<u8>,
    /// End-of-message framing: how much of `message` is known to hold no marker start.
    eom_scanned: usize,
    chunk: ChunkState,
    /// Chunked framing: whether the current message has at least one chunk.
    have_chunk: bool,
    /// Set once an error was returned: the stream cannot be resynchronised.
    failed: Option<FramingError>,
    /// Whether the first message may turn out to be chunked (see [`Decoder::for_hello`]).
    sniff_first: bool,
    /// Whether an oversize message is skipped to its end ([`Frame::Refused`]) rather than
    /// an error that ends the stream.
    skip_refused: bool,
    /// The current message's length so far, kept or not.
    length: u64,
    /// Set while the current message is being skipped: why. `message` then holds its head.
    skipping: Option<Refusal>,
    /// End-of-message framing, while skipping: the last bytes seen, which may be the start
    /// of the marker (not yet counted in `length`).
    skip_tail: Vec<u8>,
}

impl Decoder {
    /// A decoder for `framing` that rejects messages larger than `max_message_size` bytes.
    pub fn new(framing: Framing, max_message_size: usize) -> Self {
        Decoder {
            framing,
            max_message_size,
            input: Vec::new(),
            pos: 0,
            message: Vec::new(),
            eom_scanned: 0,
            chunk: ChunkState::HeaderLf,
            have_chunk: false,
            failed: None,
            sniff_first: false,
            skip_refused: false,
            length: 0,
            skipping: None,
            skip_tail: Vec::new(),
        }
    }

    /// Sets the size limit; takes effect at the next message (between messages).
    pub fn set_max_message_size(&mut self, max_message_size: usize) {
        self.max_message_size = max_message_size;
    }

    /// From now on, a message over the size limit is skipped to its end and handed out as
    /// [`Frame::Refused`] by [`Decoder::next_frame`], and the stream goes on.
    pub fn skip_refused(&mut self) {
        self.skip_refused = true;
    }

    /// Refuses the message now arriving: its content so far is dropped but for its head, the
    /// rest is skipped as it arrives, and its end is handed out as [`Frame::Refused`] with
    /// [`Refusal::Refused`]. Between messages this does nothing.
    pub fn refuse_current(&mut self) {
        if self.skipping.is_none() && !self.between_messages() {
            self.start_skipping(Refusal::Refused);
        }
    }

    /// The bytes this decoder holds (its buffers' capacity), for a memory budget.
    pub fn buffered(&self) -> usize {
        self.input.capacity() + self.message.capacity() + self.skip_tail.capacity()
    }

    /// A decoder for a peer's hello: end-of-message framing as RFC 6242 §4.1 requires, except
    /// that a hello which starts with a chunk header (`LF #`) is read as chunked. ncclient
    /// 0.6 switches its writer to chunked framing as soon as it has read the server's hello
    /// and can do so before its own queued hello is written; a server that answers at once
    /// (as this one does) then receives a chunked hello. Waiting for an end-of-message marker
    /// that never comes would hang such a session until the hello time-out; no well-formed
    /// end-of-message hello can start with `LF #`, so accepting it breaks nobody.
    pub fn for_hello(max_message_size: usize) -> Self {
        Decoder { sniff_first: true, ..Decoder::new(Framing::EndOfMessage, max_message_size) }
    }

    /// The framing used for the next message.
    pub fn framing(&self) -> Framing {
        self.framing
    }

    /// Switches framing. Takes effect at the next message boundary; call it between two
    /// [`Decoder::next_message`] calls (after the hello, typically).
    pub fn set_framing(&mut self, framing: Framing) {
        self.framing = framing;
    }

    /// Appends received bytes. Nothing is parsed until [`Decoder::next_message`].
    pub fn feed(&mut self, bytes: &[u8]) {
        if self.pos > 0 && self.pos == self.input.len() {
            self.input.clear();
            self.pos = 0;
        } else if self.pos > 4096 && self.pos * 2 > self.input.len() {
            self.input.drain(..self.pos);
            self.pos = 0;
        }
        self.input.extend_from_slice(bytes);
    }

    /// Whether the decoder is between messages with no buffered input: the state in which a
    /// peer may close the stream without losing anything.
    pub fn is_idle(&self) -> bool {
        self.pos == self.input.len() && self.between_messages()
    }

    /// Whether no message has begun (input not yet looked at aside).
    fn between_messages(&self) -> bool {
        self.message.is_empty()
            && self.skipping.is_none()
            && self.chunk == ChunkState::HeaderLf
            && !self.have_chunk
    }

    /// Call at end of stream: an error if a message was left incomplete.
    pub fn finish(&self) -> Result<(), FramingError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        if self.skipping.is_some() {
            return Err(FramingError::Truncated);
        }
        // Whitespace after the last end-of-message marker is harmless.
        let rest = &self.input[self.pos..];
        let only_ws = self.message.iter().chain(rest).all(u8::is_ascii_whitespace);
        let clean = match self.framing {
            Framing::EndOfMessage => only_ws,
            Framing::Chunked => {
                self.chunk == ChunkState::HeaderLf && !self.have_chunk && rest.is_empty()
            }
        };
        if clean {
            Ok(())
        } else {
            Err(FramingError::Truncated)
        }
    }

    /// The next complete message, `Ok(None)` if more input is needed. After an error every
    /// later call returns the same error. A refused message is an error here
    /// ([`FramingError::MessageTooLarge`]); [`Decoder::next_frame`] hands it out instead.
    pub fn next_message(&mut self) -> Result<Option<Vec<u8>>, FramingError> {
        match self.next_frame()? {
            None => Ok(None),
            Some(Frame::Message(m)) => Ok(Some(m)),
            Some(Frame::Refused(r)) => {
                let limit = match r.cause {
                    Refusal::TooLarge { limit } => limit,
                    Refusal::Refused => self.max_message_size,
                };
                let e = FramingError::MessageTooLarge { limit };
                self.failed = Some(e.clone());
                Err(e)
            }
        }
    }

    /// The next complete message or refused one, `Ok(None)` if more input is needed. After
    /// an error every later call returns the same error.
    pub fn next_frame(&mut self) -> Result<Option<Frame>, FramingError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        if self.sniff_first {
            match self.input.get(self.pos..).unwrap_or_default() {
                [] | [b'\n'] => return Ok(None), // too early to tell
                [b'\n', b'#', ..] => self.framing = Framing::Chunked,
                _ => {}
            }
            self.sniff_first = false;
        }
        let result = match self.framing {
            Framing::EndOfMessage => self.next_eom(),
            Framing::Chunked => self.next_chunked(),
        };
        if let Err(e) = &result {
            self.failed = Some(e.clone());
        }
        result
    }

    /// Drops the current message's content but for its head and skips the rest of it.
    fn start_skipping(&mut self, cause: Refusal) {
        if self.framing == Framing::EndOfMessage {
            // A partial marker at the end is not content yet: it goes to the tail.
            let partial = partial_marker(&self.message);
            self.skip_tail = self.message.split_off(self.message.len() - partial);
        }
        self.length = self.message.len() as u64;
        self.message.truncate(REFUSED_HEAD);
        self.message.shrink_to_fit();
        self.skipping = Some(cause);
    }

    /// The refused message that just ended; the decoder is between messages again.
    fn refused(&mut self, cause: Refusal) -> Frame {
        self.skipping = None;
        self.skip_tail = Vec::new();
        self.eom_scanned = 0;
        let length = std::mem::take(&mut self.length);
        Frame::Refused(Refused { head: std::mem::take(&mut self.message), length, cause })
    }

    /// Appends content to the message, growing it by at most doubling and never beyond the
    /// size limit unless the content needs it: a message's buffer is what a budget charges.
    fn append(&mut self, bytes: &[u8]) {
        let needed = self.message.len() + bytes.len();
        if needed > self.message.capacity() {
            let doubled = (self.message.capacity() * 2).min(self.max_message_size);
            let target = needed.max(doubled);
            self.message.reserve_exact(target - self.message.len());
        }
        self.message.extend_from_slice(bytes);
        self.length += bytes.len() as u64;
    }

    fn too_large(&self) -> FramingError {
        FramingError::MessageTooLarge { limit: self.max_message_size }
    }

    fn next_eom(&mut self) -> Result<Option<Frame>, FramingError> {
        if let Some(cause) = self.skipping {
            return Ok(self.skip_eom(cause));
        }
        // Move all available input into the message, then look for the marker in the part not
        // yet scanned (backing up far enough to catch a marker split across two feeds).
        let rest = std::mem::take(&mut self.input);
        self.append(&rest[self.pos..]);
        self.input = rest;
        self.pos = self.input.len();
        let start = self.eom_scanned.saturating_sub(EOM.len() - 1);
        let found = self.message[start..].windows(EOM.len()).position(|w| w == EOM);
        match found {
            Some(offset) => {
                let end = start + offset;
                // Bytes after the marker belong to the next message: give them back.
                let tail = self.message.split_off(end + EOM.len());
                self.message.truncate(end);
                self.requeue(tail);
                self.eom_scanned = 0;
                if end > self.max_message_size {
                    if !self.skip_refused {
                        return Err(self.too_large());
                    }
                    self.length = end as u64;
                    self.message.truncate(REFUSED_HEAD);
                    self.message.shrink_to_fit();
                    return Ok(Some(
                        self.refused(Refusal::TooLarge { limit: self.max_message_size }),
                    ));
                }
                self.length = 0;
                Ok(Some(Frame::Message(std::mem::take(&mut self.message))))
            }
            None => {
                // Everything but a trailing partial marker is surely message content.
                let content = self.message.len() - partial_marker(&self.message);
                self.eom_scanned = self.message.len();
                if content > self.max_message_size {
                    if !self.skip_refused {
                        return Err(self.too_large());
                    }
                    self.start_skipping(Refusal::TooLarge { limit: self.max_message_size });
                }
                Ok(None)
            }
        }
    }

    /// End-of-message framing, skipping: looks for the marker in what arrived, keeping
    /// nothing but a possible start of it.
    fn skip_eom(&mut self, cause: Refusal) -> Option<Frame> {
        let mut seen = std::mem::take(&mut self.skip_tail);
        seen.extend_from_slice(&self.input[self.pos..]);
        self.pos = self.input.len();
        match seen.windows(EOM.len()).position(|w| w == EOM) {
            Some(end) => {
                self.keep_head(&seen[..end]);
                self.requeue(seen.split_off(end + EOM.len()));
                Some(self.refused(cause))
            }
            None => {
                let content = seen.len() - partial_marker(&seen);
                self.keep_head(&seen[..content]);
                self.skip_tail = seen.split_off(content);
                None
            }
        }
    }

    /// Skipping: counts `content`, keeping what the head still has room for.
    fn keep_head(&mut self, content: &[u8]) {
        let room = REFUSED_HEAD.saturating_sub(self.message.len()).min(content.len());
        self.message.extend_from_slice(&content[..room]);
        self.length += content.len() as u64;
    }

    /// Puts bytes back in front of the unconsumed input.
    fn requeue(&mut self, tail: Vec<u8>) {
        if tail.is_empty() {
            return;
        }
        let mut input = tail;
        input.extend_from_slice(&self.input[self.pos..]);
        self.input = input;
        self.pos = 0;
    }

    fn next_chunked(&mut self) -> Result<Option<Frame>, FramingError> {
        while self.pos < self.input.len() {
            if let ChunkState::Data(remaining) = self.chunk {
                let available = self.input.len() - self.pos;
                let take = usize::try_from(remaining).map_or(available, |r| r.min(available));
                if self.skipping.is_some() {
                    let input = std::mem::take(&mut self.input);
                    self.keep_head(&input[self.pos..self.pos + take]);
                    self.input = input;
                } else {
                    let input = std::mem::take(&mut self.input);
                    self.append(&input[self.pos..self.pos + take]);
                    self.input = input;
                }
                self.pos += take;
                let left = remaining - take as u64;
                self.chunk = if left == 0 { ChunkState::HeaderLf } else { ChunkState::Data(left) };
                continue;
            }
            let byte = self.input[self.pos];
            self.pos += 1;
            self.chunk = match (self.chunk, byte) {
                (ChunkState::HeaderLf, b'\n') => ChunkState::HeaderHash,
                (ChunkState::HeaderLf, b) => return Err(FramingError::ExpectedLineFeed(b)),
                (ChunkState::HeaderHash, b'#') => ChunkState::SizeOrEnd,
                (ChunkState::HeaderHash, b) => return Err(FramingError::ExpectedHash(b)),
                (ChunkState::SizeOrEnd, b'#') => ChunkState::EndLf,
                (ChunkState::SizeOrEnd, b'0') => return Err(FramingError::LeadingZero),
                (ChunkState::SizeOrEnd, b @ b'1'..=b'9') => ChunkState::Size(u64::from(b - b'0')),
                (ChunkState::SizeOrEnd, b) => return Err(FramingError::InvalidChunkSizeByte(b)),
                (ChunkState::Size(v), b @ b'0'..=b'9') => {
                    let v = v * 10 + u64::from(b - b'0');
                    if v > MAX_CHUNK_SIZE {
                        return Err(FramingError::ChunkSizeTooLarge);
                    }
                    ChunkState::Size(v)
                }
                (ChunkState::Size(v), b'\n') => {
                    // Refuse an oversize message as soon as a chunk header announces it.
                    let total = self.length + v;
                    if total > self.max_message_size as u64 && self.skipping.is_none() {
                        if !self.skip_refused {
                            return Err(self.too_large());
                        }
                        self.start_skipping(Refusal::TooLarge { limit: self.max_message_size });
                    }
                    self.have_chunk = true;
                    ChunkState::Data(v)
                }
                (ChunkState::Size(_), b) => return Err(FramingError::InvalidChunkSizeByte(b)),
                (ChunkState::EndLf, b'\n') => {
                    if !self.have_chunk {
                        return Err(FramingError::EmptyMessage);
                    }
                    self.chunk = ChunkState::HeaderLf;
                    self.have_chunk = false;
                    if let Some(cause) = self.skipping {
                        return Ok(Some(self.refused(cause)));
                    }
                    self.length = 0;
                    return Ok(Some(Frame::Message(std::mem::take(&mut self.message))));
                }
                (ChunkState::EndLf, b) => return Err(FramingError::ExpectedEndLineFeed(b)),
                (ChunkState::Data(_), _) => unreachable!("handled above"),
            };
        }
        Ok(None)
    }
}

/// How many bytes at the end of `bytes` are a proper start of the end-of-message marker.
fn partial_marker(bytes: &[u8]) -> usize {
    (1..EOM.len()).rev().find(|&k| bytes.ends_with(&EOM[..k])).unwrap_or(0)
}

// ===== encoding =====

/// Frames one message. Chunked framing splits it into chunks of at most `DEFAULT_ENCODE_CHUNK`
/// bytes. An empty message cannot be chunk-framed (a message has at least one chunk) and is
/// rejected with [`FramingError::EmptyMessage`].
pub fn encode(framing: Framing, message: &[u8]) -> Result<Vec<u8>, FramingError> {
    match framing {
        Framing::EndOfMessage => {
            let mut out = Vec::with_capacity(message.len() + EOM.len());
            out.extend_from_slice(message);
            out.extend_from_slice(EOM);
            Ok(out)
        }
        Framing::Chunked => encode_chunked(message, DEFAULT_ENCODE_CHUNK),
    }
}

/// Chunk-frames `message` with chunks of at most `max_chunk` bytes (clamped to 1..=4294967295).
pub fn encode_chunked(message: &[u8], max_chunk: usize) -> Result<Vec<u8>, FramingError> {
    if message.is_empty() {
        return Err(FramingError::EmptyMessage);
    }
    let max_chunk = max_chunk.clamp(1, usize::try_from(MAX_CHUNK_SIZE).unwrap_or(usize::MAX));
    let mut out = Vec::with_capacity(message.len() + 16 * (message.len() / max_chunk + 1));
    for chunk in message.chunks(max_chunk) {
        out.extend_from_slice(format!("\n#{}\n", chunk.len()).as_bytes());
        out.extend_from_slice(chunk);
    }
    out.extend_from_slice(b"\n##\n");
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_all(
        framing: Framing,
        max: usize,
        input: &[u8],
    ) -> Result<Vec<Vec<u8>>, FramingError> {
        let mut d = Decoder::new(framing, max);
        d.feed(input);
        let mut out = Vec::new();
        while let Some(m) = d.next_message()? {
            out.push(m);
        }
        d.finish()?;
        Ok(out)
    }

    #[test]
    fn rfc6242_chunked_example_decodes() {
        // RFC 6242 §4.2, the example message split in two chunks.
        let input = b"\n#4\n<rpc\n#18\n message-id=\"102\"\n\n#79\n     \
xmlns=\"urn:ietf:params:xml:ns:netconf:base:1.0\">\n  <close-session/>\n</rpc>\n##\n";
        let msgs = decode_all(Framing::Chunked, 1 << 20, input).expect("valid");
        assert_eq!(msgs.len(), 1);
        assert_eq!(
            msgs[0],
            b"<rpc message-id=\"102\"\n     xmlns=\"urn:ietf:params:xml:ns:netconf:base:1.0\">\n  \
<close-session/>\n</rpc>"
                .to_vec()
        );
    }

    #[test]
    fn hello_decoder_reads_a_chunked_hello_split_after_its_first_byte() {
        let mut d = Decoder::for_hello(1024);
        d.feed(b"\n");
        assert_eq!(d.next_message(), Ok(None));
        d.feed(b"#8\n<hello/>\n##\n");
        assert_eq!(d.next_message(), Ok(Some(b"<hello/>".to_vec())));
        assert_eq!(d.framing(), Framing::Chunked);
    }

    #[test]
    fn hello_decoder_reads_an_end_of_message_hello() {
        let mut d = Decoder::for_hello(1024);
        d.feed(b"\n<hello/>]]>]]>");
        assert_eq!(d.next_message(), Ok(Some(b"\n<hello/>".to_vec())));
        assert_eq!(d.framing(), Framing::EndOfMessage);
    }

    #[test]
    fn eom_messages_split_at_marker() {
        let msgs = decode_all(Framing::EndOfMessage, 100, b"<a/>]]>]]><b/>]]>]]>").expect("ok");
        assert_eq!(msgs, vec![b"<a/>".to_vec(), b"<b/>".to_vec()]);
    }

    #[test]
    fn eom_marker_split_across_feeds() {
        let mut d = Decoder::new(Framing::EndOfMessage, 100);
        for part in [&b"<a/>]]"[..], b">]]", b">"] {
            assert_eq!(d.next_message(), Ok(None));
            d.feed(part);
        }
        assert_eq!(d.next_message(), Ok(Some(b"<a/>".to_vec())));
        assert!(d.is_idle());
    }

    #[test]
    fn eom_partial_marker_is_content() {
        let msgs = decode_all(Framing::EndOfMessage, 100, b"x]]>]]y]]>]]>").expect("ok");
        assert_eq!(msgs, vec![b"x]]>]]y".to_vec()]);
    }

    #[test]
    fn eom_too_large_is_rejected_before_marker() {
        let mut d = Decoder::new(Framing::EndOfMessage, 4);
        d.feed(b"12345678");
        assert_eq!(d.next_message(), Err(FramingError::MessageTooLarge { limit: 4 }));
        // The error sticks.
        assert_eq!(d.next_message(), Err(FramingError::MessageTooLarge { limit: 4 }));
    }

    #[test]
    fn eom_exactly_at_limit_is_accepted() {
        let msgs = decode_all(Framing::EndOfMessage, 4, b"1234]]>]]>").expect("ok");
        assert_eq!(msgs, vec![b"1234".to_vec()]);
        assert_eq!(
            decode_all(Framing::EndOfMessage, 4, b"12345]]>]]>"),
            Err(FramingError::MessageTooLarge { limit: 4 })
        );
    }

    #[test]
    fn eom_truncated_at_end_of_stream() {
        assert_eq!(decode_all(Framing::EndOfMessage, 100, b"<a/>"), Err(FramingError::Truncated));
        // Trailing whitespace after a complete message is fine.
        assert!(decode_all(Framing::EndOfMessage, 100, b"<a/>]]>]]>\n").is_ok());
    }

    #[test]
    fn switch_framing_between_messages_in_one_feed() {
        // A client's hello (EOM) and its first rpc (chunked) in one packet.
        let mut d = Decoder::new(Framing::EndOfMessage, 100);
        d.feed(b"<hello/>]]>]]>\n#5\n<rpc/\n#1\n>\n##\n");
        assert_eq!(d.next_message(), Ok(Some(b"<hello/>".to_vec())));
        d.set_framing(Framing::Chunked);
        assert_eq!(d.next_message(), Ok(Some(b"<rpc/>".to_vec())));
        assert_eq!(d.next_message(), Ok(None));
        assert!(d.is_idle());
    }

    #[test]
    fn chunked_rejects_leading_zero_and_zero() {
        assert_eq!(
            decode_all(Framing::Chunked, 100, b"\n#05\nabcde\n##\n"),
            Err(FramingError::LeadingZero)
        );
        assert_eq!(
            decode_all(Framing::Chunked, 100, b"\n#0\n\n##\n"),
            Err(FramingError::LeadingZero)
        );
    }

    #[test]
    fn chunked_size_bounds() {
        // 4294967295 is a legal size: the decoder waits for data (limit permitting).
        let mut d = Decoder::new(Framing::Chunked, usize::MAX);
        d.feed(b"\n#4294967295\nabc");
        assert_eq!(d.next_message(), Ok(None));
        assert_eq!(d.finish(), Err(FramingError::Truncated));
        // One more is not.
        let mut d = Decoder::new(Framing::Chunked, usize::MAX);
        d.feed(b"\n#4294967296\n");
        assert_eq!(d.next_message(), Err(FramingError::ChunkSizeTooLarge));
        // Nor are absurdly long digit strings.
        let mut d = Decoder::new(Framing::Chunked, usize::MAX);
        d.feed(b"\n#99999999999999999999999999\n");
        assert_eq!(d.next_message(), Err(FramingError::ChunkSizeTooLarge));
    }

    #[test]
    fn chunked_rejects_bad_header_bytes() {
        use FramingError::*;
        let cases: &[(&[u8], FramingError)] = &[
            (b"#4\nabcd\n##\n", ExpectedLineFeed(b'#')),
            (b"\n4\nabcd\n##\n", ExpectedHash(b'4')),
            (b"\n#x\n", InvalidChunkSizeByte(b'x')),
            (b"\n#\n", InvalidChunkSizeByte(b'\n')),
            (b"\n#4 \nabcd", InvalidChunkSizeByte(b' ')),
            (b"\n#-4\n", InvalidChunkSizeByte(b'-')),
            (b"\n#4\r\nabcd", InvalidChunkSizeByte(b'\r')),
            (b"\n#4\nabcd\n##x", ExpectedEndLineFeed(b'x')),
            (b"\n##\n", EmptyMessage),
            (b"\n#4\nabcd\n##\n ", ExpectedLineFeed(b' ')),
        ];
        for (input, expected) in cases {
            assert_eq!(
                decode_all(Framing::Chunked, 100, input),
                Err(expected.clone()),
                "input {:?}",
                String::from_utf8_lossy(input)
            );
        }
    }

    #[test]
    fn chunked_size_that_lies_is_caught_at_next_header() {
        // Announces 5 bytes but the data is 4: the fifth byte swallows the LF of the end
        // marker and the decoder then sees '#' where a LF must be.
        assert_eq!(
            decode_all(Framing::Chunked, 100, b"\n#5\nabcd\n##\n"),
            Err(FramingError::ExpectedLineFeed(b'#'))
        );
        // Announces 3 bytes but sends 4.
        assert_eq!(
            decode_all(Framing::Chunked, 100, b"\n#3\nabcd\n##\n"),
            Err(FramingError::ExpectedLineFeed(b'd'))
        );
        // Announces more than the stream holds.
        assert_eq!(
            decode_all(Framing::Chunked, 100, b"\n#50\nabcd\n##\n"),
            Err(FramingError::Truncated)
        );
    }

    #[test]
    fn chunked_oversize_is_rejected_at_the_header() {
        // The second chunk header already announces more than the limit: rejected before any
        // of its data arrives.
        let mut d = Decoder::new(Framing::Chunked, 10);
        d.feed(b"\n#6\nabcdef\n#5\n");
        assert_eq!(d.next_message(), Err(FramingError::MessageTooLarge { limit: 10 }));
        // At the limit exactly is fine.
        let msgs = decode_all(Framing::Chunked, 10, b"\n#6\nabcdef\n#4\nghij\n##\n").expect("ok");
        assert_eq!(msgs, vec![b"abcdefghij".to_vec()]);
    }

    #[test]
    fn chunked_byte_at_a_time() {
        let msg = b"<rpc message-id=\"1\"><get/></rpc>";
        let framed = encode_chunked(msg, 7).expect("non-empty");
        let mut d = Decoder::new(Framing::Chunked, 1000);
        let mut got = Vec::new();
        for b in &framed {
            d.feed(std::slice::from_ref(b));
            if let Some(m) = d.next_message().expect("valid") {
                got.push(m);
            }
        }
        assert_eq!(got, vec![msg.to_vec()]);
        assert!(d.is_idle());
        assert_eq!(d.finish(), Ok(()));
    }

    /// Decodes `input` with a skipping decoder: every frame, then whether the stream ended
    /// clean.
    fn frames(
        framing: Framing,
        max: usize,
        input: &[u8],
    ) -> (Vec<Frame>, Result<(), FramingError>) {
        let mut d = Decoder::new(framing, max);
        d.skip_refused();
        let mut out = Vec::new();
        for piece in input.chunks(3) {
            d.feed(piece);
            while let Some(f) = d.next_frame().expect("framed") {
                out.push(f);
            }
        }
        (out, d.finish())
    }

    fn refused(head: &[u8], length: u64, limit: usize) -> Frame {
        Frame::Refused(Refused { head: head.to_vec(), length, cause: Refusal::TooLarge { limit } })
    }

    #[test]
    fn oversize_messages_are_skipped_and_the_next_one_read() {
        let (f, end) = frames(Framing::EndOfMessage, 4, b"123456]]>]]><a/>]]>]]>");
        assert_eq!(f, vec![refused(b"123456", 6, 4), Frame::Message(b"<a/>".to_vec())]);
        assert_eq!(end, Ok(()));
        let (f, end) = frames(Framing::Chunked, 10, b"\n#6\nabcdef\n#5\nghijk\n##\n\n#2\nok\n##\n");
        assert_eq!(f, vec![refused(b"abcdefghijk", 11, 10), Frame::Message(b"ok".to_vec())]);
        assert_eq!(end, Ok(()));
    }

    #[test]
    fn a_refused_message_keeps_only_its_head() {
        let mut big = vec![b'x'; 3 * REFUSED_HEAD];
        big.extend_from_slice(EOM);
        let mut d = Decoder::new(Framing::EndOfMessage, REFUSED_HEAD);
        d.skip_refused();
        let mut got = None;
        for piece in big.chunks(1000) {
            d.feed(piece);
            if let Some(f) = d.next_frame().expect("framed") {
                got = Some(f);
            }
            assert!(d.message.len() <= REFUSED_HEAD + 1000, "buffered {}", d.message.len());
        }
        let Some(Frame::Refused(r)) = got else { panic!("refused: {got:?}") };
        assert_eq!((r.head.len(), r.length), (REFUSED_HEAD, 3 * REFUSED_HEAD as u64));
        assert!(d.is_idle());
    }

    #[test]
    fn the_caller_may_refuse_the_message_arriving() {
        for (framing, first, rest, next) in [
            (Framing::EndOfMessage, &b"<rpc>abc]]"[..], &b"x]]>]]><b/>]]>]]>"[..], &b"<b/>"[..]),
            (Framing::Chunked, b"\n#8\n<rpc>abc\n#3\nde", b"f\n##\n\n#4\n<b/>\n##\n", b"<b/>"),
        ] {
            let mut d = Decoder::new(framing, 100);
            d.feed(first);
            assert_eq!(d.next_frame(), Ok(None));
            d.refuse_current();
            d.feed(rest);
            let Ok(Some(Frame::Refused(r))) = d.next_frame() else {
                panic!("{framing:?}: refused")
            };
            assert_eq!(r.cause, Refusal::Refused, "{framing:?}");
            assert!(r.head.starts_with(b"<rpc>abc"), "{framing:?}: {:?}", r.head);
            assert_eq!(r.length, 11, "{framing:?}");
            assert_eq!(d.next_frame(), Ok(Some(Frame::Message(next.to_vec()))), "{framing:?}");
        }
    }

    #[test]
    fn chunk_data_may_contain_framing_bytes() {
        let msg = b"\n##\n\n#12\n]]>]]>";
        let framed = encode(Framing::Chunked, msg).expect("non-empty");
        assert_eq!(decode_all(Framing::Chunked, 100, &framed), Ok(vec![msg.to_vec()]));
    }

    #[test]
    fn encoder_output_literal() {
        assert_eq!(encode(Framing::EndOfMessage, b"<a/>").expect("ok"), b"<a/>]]>]]>".to_vec());
        assert_eq!(
            encode_chunked(b"abcdefg", 3).expect("ok"),
            b"\n#3\nabc\n#3\ndef\n#1\ng\n##\n".to_vec()
        );
        assert_eq!(encode(Framing::Chunked, b""), Err(FramingError::EmptyMessage));
    }

    mod props {
        use super::super::*;
        use proptest::prelude::*;

        /// Splits `bytes` at the given (sorted, deduplicated) cut points.
        fn split_at_cuts(bytes: &[u8], cuts: &[usize]) -> Vec<Vec<u8>> {
            let mut pieces = Vec::new();
            let mut last = 0;
            for &c in cuts {
                let c = c % (bytes.len() + 1);
                if c > last {
                    pieces.push(bytes[last..c].to_vec());
                    last = c;
                }
            }
            pieces.push(bytes[last..].to_vec());
            pieces
        }

        fn feed_pieces(d: &mut Decoder, pieces: &[Vec<u8>]) -> Vec<Vec<u8>> {
            let mut out = Vec::new();
            for p in pieces {
                d.feed(p);
                while let Some(m) = d.next_message().expect("valid stream") {
                    out.push(m);
                }
            }
            out
        }

        proptest! {
            #[test]
            fn chunked_roundtrip_any_chunking_any_feed_split(
                msgs in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 1..300), 1..5),
                chunk in 1usize..64,
                mut cuts in proptest::collection::vec(any::<usize>(), 0..20),
            ) {
                let mut stream = Vec::new();
                for m in &msgs {
                    stream.extend(encode_chunked(m, chunk).expect("non-empty"));
                }
                cuts.sort_unstable();
                let mut d = Decoder::new(Framing::Chunked, 4096);
                let got = feed_pieces(&mut d, &split_at_cuts(&stream, &cuts));
                prop_assert_eq!(got, msgs);
                prop_assert!(d.is_idle());
                prop_assert_eq!(d.finish(), Ok(()));
            }

            #[test]
            fn chunked_roundtrip_random_chunk_sizes(
                msg in proptest::collection::vec(any::<u8>(), 1..500),
                sizes in proptest::collection::vec(1usize..50, 1..40),
            ) {
                // Hand-built chunking with irregular chunk sizes.
                let mut stream = Vec::new();
                let mut rest = &msg[..];
                let mut i = 0;
                while !rest.is_empty() {
                    let n = sizes[i % sizes.len()].min(rest.len());
                    stream.extend_from_slice(format!("\n#{n}\n").as_bytes());
                    stream.extend_from_slice(&rest[..n]);
                    rest = &rest[n..];
                    i += 1;
                }
                stream.extend_from_slice(b"\n##\n");
                let mut d = Decoder::new(Framing::Chunked, 4096);
                d.feed(&stream);
                prop_assert_eq!(d.next_message(), Ok(Some(msg)));
            }

            #[test]
            fn eom_roundtrip_any_feed_split(
                msgs in proptest::collection::vec("[^\\]]{0,200}", 1..5),
                mut cuts in proptest::collection::vec(any::<usize>(), 0..20),
            ) {
                let mut stream = Vec::new();
                for m in &msgs {
                    stream.extend(encode(Framing::EndOfMessage, m.as_bytes()).expect("eom"));
                }
                cuts.sort_unstable();
                let mut d = Decoder::new(Framing::EndOfMessage, 4096);
                let got = feed_pieces(&mut d, &split_at_cuts(&stream, &cuts));
                let want: Vec<Vec<u8>> = msgs.iter().map(|m| m.as_bytes().to_vec()).collect();
                prop_assert_eq!(got, want);
                prop_assert_eq!(d.finish(), Ok(()));
            }

            #[test]
            fn garbage_never_panics(
                pieces in proptest::collection::vec(proptest::collection::vec(
                    prop_oneof![any::<u8>(), Just(b'\n'), Just(b'#'), Just(b'0'), Just(b'9'), Just(b']'), Just(b'>')],
                    0..64), 0..16),
                chunked in any::<bool>(),
                max in 0usize..256,
            ) {
                let framing = if chunked { Framing::Chunked } else { Framing::EndOfMessage };
                let mut d = Decoder::new(framing, max);
                for p in &pieces {
                    d.feed(p);
                    while let Ok(Some(m)) = d.next_message() {
                        prop_assert!(m.len() <= max);
                    }
                }
                let _ = d.finish();
            }
        }
    }
}
