//! A connection's socket that acknowledges what it has read at once.
//!
//! Clients that do not disable Nagle's algorithm (paramiko, so ncclient and Ansible) hold a
//! small write back until their previous small write is acknowledged. paramiko sends an SSH
//! window adjustment now and then just before a request: the server has nothing to answer
//! it with, so Linux delays its acknowledgement (40 ms) to piggyback it on data, and the
//! request waits that long (a 512-entry commit took 43 ms where it takes 1–2 ms). Setting
//! `TCP_QUICKACK` after each read sends a pending acknowledgement at once; it costs one
//! `setsockopt` per read, and reads are buffered (16 KiB).

use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

/// A TCP stream whose reads are acknowledged at once.
#[derive(Debug)]
pub(crate) struct QuickAck(pub(crate) TcpStream);

impl AsyncRead for QuickAck {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.0).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            // (A failure only means a delayed acknowledgement, as without it.)
            let _ = rustix::net::sockopt::set_tcp_quickack(&self.0, true);
        }
        polled
    }
}

impl AsyncWrite for QuickAck {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.0).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.0).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.0.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.0).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.0).poll_shutdown(cx)
    }
}
