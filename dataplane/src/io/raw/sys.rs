//! The system calls no safe crate wraps for an `ETH_P_ALL` packet socket: integer socket options
//! of `SOL_PACKET`, the receive queue's statistics, `recvmmsg` with a control buffer per message,
//! and `sendmmsg`. Every `unsafe` of the raw port is here, one call each, with the pointers built
//! from slices that outlive the call, except the bind and the memberships every packet socket of
//! ours makes (`io/af_packet.rs`).

use std::io;
use std::os::fd::RawFd;

/// Frames one `recvmmsg`/`sendmmsg` call handles at most (the arrays below live on the stack).
pub const MAX_BATCH: usize = 64;

/// Sets an `int` socket option.
#[allow(unsafe_code)] // neither nix nor socket2 wraps PACKET_AUXDATA and friends
pub fn set_int(fd: RawFd, level: i32, name: i32, value: i32) -> io::Result<()> {
    let len = std::mem::size_of::<i32>() as libc::socklen_t;
    // SAFETY: the pointer is to an i32 on our stack, alive for the call; `len` is its size.
    let rc = unsafe { libc::setsockopt(fd, level, name, std::ptr::addr_of!(value).cast(), len) };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Frames the kernel dropped because the socket's receive buffer was full since the last call
/// (`PACKET_STATISTICS`, which reading resets).
#[allow(unsafe_code)] // getsockopt of a tpacket_stats, which no safe crate wraps
pub fn take_drops(fd: RawFd) -> io::Result<u32> {
    let mut stats = libc::tpacket_stats { tp_packets: 0, tp_drops: 0 };
    let mut len = std::mem::size_of::<libc::tpacket_stats>() as libc::socklen_t;
    // SAFETY: `stats` is an initialised tpacket_stats on our stack and `len` its size, both
    // alive for the call; the kernel writes at most `len` octets and updates `len`.
    let rc = unsafe {
        libc::getsockopt(
            fd,
            libc::SOL_PACKET,
            libc::PACKET_STATISTICS,
            std::ptr::addr_of_mut!(stats).cast(),
            &mut len,
        )
    };
    if rc == 0 {
        Ok(stats.tp_drops)
    } else {
        Err(io::Error::last_os_error())
    }
}

/// `SO_MEMINFO` (asm-generic/socket.h: x86, arm, aarch64, riscv and most others; the few
/// architectures with their own numbering get an error, which callers take as unknown). The
/// libc crate does not define it.
const SO_MEMINFO: i32 = 55;

/// The octets the socket's receive queue holds (as the kernel accounts them, with each
/// frame's buffer overhead) and the most it may hold before the kernel drops: `SO_MEMINFO`'s
/// `SK_MEMINFO_RMEM_ALLOC` and `SK_MEMINFO_RCVBUF`.
#[allow(unsafe_code)] // getsockopt of a u32 array, which no safe crate wraps
pub fn receive_queue(fd: RawFd) -> io::Result<(u32, u32)> {
    // The kernel writes as many entries as it has (9 today) up to the length given.
    let mut info = [0u32; 16];
    let mut len = std::mem::size_of_val(&info) as libc::socklen_t;
    // SAFETY: `info` is an initialised u32 array on our stack and `len` its size, both alive
    // for the call; the kernel writes at most `len` octets and updates `len`.
    let rc = unsafe {
        libc::getsockopt(fd, libc::SOL_SOCKET, SO_MEMINFO, info.as_mut_ptr().cast(), &mut len)
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    let at = |i: i32| info[usize::try_from(i).unwrap_or(0)];
    Ok((at(libc::SK_MEMINFO_RMEM_ALLOC), at(libc::SK_MEMINFO_RCVBUF)))
}

/// One received message as the kernel described it.
#[derive(Debug, Clone, Copy, Default)]
pub struct Received {
    /// Octets of the frame (its real length when truncated).
    pub len: usize,
    /// `sll_pkttype`: host, broadcast, multicast, other host, outgoing.
    pub pkttype: u8,
    /// Octets of control data written.
    pub control_len: usize,
    /// The frame did not fit its buffer.
    pub truncated: bool,
}

/// Receives up to `out.len()` (at most [`MAX_BATCH`]) frames without waiting: frame `i` into
/// `frames[i]`, its control messages into `controls[i]`. Returns how many arrived (0 if none
/// was waiting).
#[allow(unsafe_code)] // recvmmsg, which nix wraps only with an allocation per message
pub fn recv_many(
    fd: RawFd,
    frames: &mut [&mut [u8]],
    controls: &mut [&mut [u8]],
    out: &mut [Received],
) -> io::Result<usize> {
    let n = out.len().min(frames.len()).min(controls.len()).min(MAX_BATCH);
    let mut iov: [libc::iovec; MAX_BATCH] =
        std::array::from_fn(|_| libc::iovec { iov_base: std::ptr::null_mut(), iov_len: 0 });
    let mut names: [libc::sockaddr_ll; MAX_BATCH] = std::array::from_fn(|_| libc::sockaddr_ll {
        sll_family: 0,
        sll_protocol: 0,
        sll_ifindex: 0,
        sll_hatype: 0,
        sll_pkttype: 0,
        sll_halen: 0,
        sll_addr: [0; 8],
    });
    for (v, f) in iov.iter_mut().zip(frames.iter_mut()).take(n) {
        *v = libc::iovec { iov_base: f.as_mut_ptr().cast(), iov_len: f.len() };
    }
    let mut msgs: [libc::mmsghdr; MAX_BATCH] = std::array::from_fn(|_| empty_mmsghdr());
    for i in 0..n {
        let h = &mut msgs[i].msg_hdr;
        h.msg_name = std::ptr::addr_of_mut!(names[i]).cast();
        h.msg_namelen = std::mem::size_of::<libc::sockaddr_ll>() as libc::socklen_t;
        h.msg_iov = std::ptr::addr_of_mut!(iov[i]);
        h.msg_iovlen = 1;
        h.msg_control = controls[i].as_mut_ptr().cast();
        h.msg_controllen = controls[i].len();
    }
    // SAFETY: the first `n` headers point at `names`, `iov` (each at a caller's buffer of the
    // stated length) and the caller's control buffers of the stated length, all alive and
    // exclusively borrowed for the call; the kernel writes only within those lengths.
    let rc = unsafe {
        libc::recvmmsg(
            fd,
            msgs.as_mut_ptr(),
            n as libc::c_uint,
            libc::MSG_DONTWAIT | libc::MSG_TRUNC,
            std::ptr::null_mut(),
        )
    };
    if rc < 0 {
        let e = io::Error::last_os_error();
        return match e.kind() {
            io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted => Ok(0),
            _ => Err(e),
        };
    }
    let got = rc as usize;
    for i in 0..got {
        let h = &msgs[i].msg_hdr;
        out[i] = Received {
            len: msgs[i].msg_len as usize,
            pkttype: names[i].sll_pkttype,
            control_len: h.msg_controllen,
            truncated: h.msg_flags & libc::MSG_TRUNC != 0,
        };
    }
    Ok(got)
}

/// Sends up to [`MAX_BATCH`] frames in one call without waiting; returns how many the kernel
/// took (fewer when its queue is full).
#[allow(unsafe_code)] // sendmmsg, which nix wraps only with an allocation per call
pub fn send_many(fd: RawFd, frames: &[&[u8]]) -> io::Result<usize> {
    let n = frames.len().min(MAX_BATCH);
    let mut iov: [libc::iovec; MAX_BATCH] =
        std::array::from_fn(|_| libc::iovec { iov_base: std::ptr::null_mut(), iov_len: 0 });
    for (v, f) in iov.iter_mut().zip(frames).take(n) {
        // The kernel only reads through iov_base for a send; the cast to *mut is what iovec
        // requires.
        *v = libc::iovec { iov_base: f.as_ptr() as *mut libc::c_void, iov_len: f.len() };
    }
    let mut msgs: [libc::mmsghdr; MAX_BATCH] = std::array::from_fn(|_| empty_mmsghdr());
    for i in 0..n {
        msgs[i].msg_hdr.msg_iov = std::ptr::addr_of_mut!(iov[i]);
        msgs[i].msg_hdr.msg_iovlen = 1;
    }
    // SAFETY: the first `n` headers point at `iov`, each at a caller's frame of the stated
    // length, alive for the call; no name or control data (the socket is bound).
    let rc =
        unsafe { libc::sendmmsg(fd, msgs.as_mut_ptr(), n as libc::c_uint, libc::MSG_DONTWAIT) };
    if rc < 0 {
        let e = io::Error::last_os_error();
        return match e.kind() {
            io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted => Ok(0),
            _ => Err(e),
        };
    }
    Ok(rc as usize)
}

fn empty_mmsghdr() -> libc::mmsghdr {
    libc::mmsghdr {
        msg_hdr: libc::msghdr {
            msg_name: std::ptr::null_mut(),
            msg_namelen: 0,
            msg_iov: std::ptr::null_mut(),
            msg_iovlen: 0,
            msg_control: std::ptr::null_mut(),
            msg_controllen: 0,
            msg_flags: 0,
        },
        msg_len: 0,
    }
}
