//! An `AF_XDP` socket used to transmit only, in copy mode, over frame memory the caller
//! registers as its UMEM (the store's, `crate::store::memory`), and two rings shared with the
//! kernel: the transmit ring we fill with descriptors and the
//! completion ring it hands the frames' memory back through. No safe crate maps them, and the
//! kernel reads and writes the rings' indices while we do, so they are atomics through raw
//! pointers; every `unsafe` of this transmit path is in this file.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::atomic::{AtomicU32, Ordering};

use nix::libc;

/// `XDP_MAX_TX_SKB_BUDGET` (linux/if_xdp.h from 6.17): descriptors one wake-up sends; older
/// kernels send 32 and refuse the option.
const XDP_MAX_TX_SKB_BUDGET: libc::c_int = 9;

/// A descriptor of the transmit ring (`struct xdp_desc`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
struct XdpDesc {
    addr: u64,
    len: u32,
    options: u32,
}

/// One ring mapped from the socket: its producer and consumer indices and `size` entries of
/// `T` after them.
#[derive(Debug)]
struct RingMap<T> {
    base: *mut u8,
    len: usize,
    producer: *const AtomicU32,
    consumer: *const AtomicU32,
    entries: *mut T,
    size: u32,
}

impl<T> RingMap<T> {
    fn map(
        fd: libc::c_int,
        offsets: &libc::xdp_ring_offset,
        size: u32,
        page_offset: libc::off_t,
    ) -> io::Result<Self> {
        let len = usize::try_from(offsets.desc).map_err(too_big)?
            + size as usize * std::mem::size_of::<T>();
        let base = map(fd, len, page_offset)?;
        let at = |o: u64| usize::try_from(o).map_err(too_big);
        let (p, c, d) = (at(offsets.producer)?, at(offsets.consumer)?, at(offsets.desc)?);
        #[allow(unsafe_code)] // offsets the kernel gave for this mapping
        // SAFETY: the kernel's offsets lie within the `len` octets it mapped (each index is a
        // 4-aligned u32, the entries follow `desc`).
        let ring = unsafe {
            RingMap {
                base,
                len,
                producer: base.add(p).cast(),
                consumer: base.add(c).cast(),
                entries: base.add(d).cast(),
                size,
            }
        };
        Ok(ring)
    }

    fn producer(&self) -> &AtomicU32 {
        #[allow(unsafe_code)] // the kernel reads and writes this index concurrently
        // SAFETY: a 4-aligned u32 within the mapping, alive as long as `self`.
        unsafe {
            &*self.producer
        }
    }

    fn consumer(&self) -> &AtomicU32 {
        #[allow(unsafe_code)] // the kernel reads and writes this index concurrently
        // SAFETY: as for the producer.
        unsafe {
            &*self.consumer
        }
    }
}

impl<T> Drop for RingMap<T> {
    fn drop(&mut self) {
        #[allow(unsafe_code)] // munmap of our own mapping
        // SAFETY: base and len are what mmap returned; no reference into it outlives `self`.
        unsafe {
            libc::munmap(self.base.cast(), self.len);
        }
    }
}

/// The socket and its two rings (the frame memory it registered is the caller's).
#[derive(Debug)]
pub struct Xsk {
    // Unmapped before the socket closes (fields drop in order).
    tx: RingMap<XdpDesc>,
    completion: RingMap<u64>,
    fd: OwnedFd,
    /// Octets of each frame's chunk of the UMEM.
    pub chunk: usize,
}

// SAFETY: the mappings are owned by this value alone; the kernel's concurrent accesses are to
// the ring indices (atomics) and to descriptors and chunks we have handed it.
#[allow(unsafe_code)] // raw pointers are not Send by default; the memory is ours to move
unsafe impl Send for Xsk {}

impl Xsk {
    /// Opens a copy-mode transmit socket on queue 0 of interface `ifindex` whose UMEM is the
    /// `(address, length)` region `umem` (page-aligned, mapped while the socket lives), in
    /// frames of `chunk` octets (a power of two from 2048 to a page), with rings of `ring`
    /// entries (a power of two).
    pub fn open(ifindex: u32, umem: (u64, usize), chunk: usize, ring: u32) -> io::Result<Xsk> {
        #[allow(unsafe_code)] // socket(2); the descriptor is owned at once
        // SAFETY: plain system call; a valid descriptor is wrapped and nothing else holds it.
        let fd = unsafe {
            let raw = libc::socket(libc::AF_XDP, libc::SOCK_RAW | libc::SOCK_CLOEXEC, 0);
            if raw < 0 {
                return Err(io::Error::last_os_error());
            }
            OwnedFd::from_raw_fd(raw)
        };
        let raw = fd.as_raw_fd();
        let reg = libc::xdp_umem_reg {
            addr: umem.0,
            len: umem.1 as u64,
            chunk_size: u32::try_from(chunk).map_err(too_big)?,
            headroom: 0,
            flags: 0,
            tx_metadata_len: 0,
        };
        set_opt(raw, libc::XDP_UMEM_REG, &reg)?;
        // The fill ring feeds reception, which this socket does not do; the kernel still wants
        // one before it binds.
        set_opt(raw, libc::XDP_UMEM_FILL_RING, &ring)?;
        set_opt(raw, libc::XDP_UMEM_COMPLETION_RING, &ring)?;
        set_opt(raw, libc::XDP_TX_RING, &ring)?;
        let _ = set_opt(raw, XDP_MAX_TX_SKB_BUDGET, &ring);
        let offsets = mmap_offsets(raw)?;
        let tx = RingMap::map(raw, &offsets.tx, ring, libc::XDP_PGOFF_TX_RING)?;
        let completion = RingMap::map(
            raw,
            &offsets.cr,
            ring,
            libc::XDP_UMEM_PGOFF_COMPLETION_RING as libc::off_t,
        )?;
        let addr = libc::sockaddr_xdp {
            sxdp_family: libc::AF_XDP as u16,
            sxdp_flags: libc::XDP_COPY,
            sxdp_ifindex: ifindex,
            sxdp_queue_id: 0,
            sxdp_shared_umem_fd: 0,
        };
        #[allow(unsafe_code)] // bind(2) with a sockaddr_xdp
        // SAFETY: a pointer to a live sockaddr_xdp and its size.
        let rc = unsafe {
            libc::bind(
                raw,
                std::ptr::from_ref(&addr).cast(),
                std::mem::size_of::<libc::sockaddr_xdp>() as libc::socklen_t,
            )
        };
        if rc != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(Xsk { tx, completion, fd, chunk })
    }

    /// Descriptors the kernel has not taken from the transmit ring yet, given our producer.
    pub fn tx_waiting(&self, producer: u32) -> u32 {
        producer.wrapping_sub(self.tx.consumer().load(Ordering::Acquire))
    }

    pub fn tx_size(&self) -> u32 {
        self.tx.size
    }

    /// Writes the descriptor of entry `at` of the transmit ring (not yet published).
    pub fn set_descriptor(&mut self, at: u32, chunk: usize, len: usize) {
        let desc = XdpDesc { addr: (chunk * self.chunk) as u64, len: len as u32, options: 0 };
        let slot = (at & (self.tx.size - 1)) as usize;
        #[allow(unsafe_code)] // a ring entry the kernel reads once the producer passes it
        // SAFETY: slot < size, within the mapping; the kernel reads it only after `publish`.
        unsafe {
            self.tx.entries.add(slot).write_volatile(desc);
        }
    }

    /// Hands the kernel every descriptor before `producer`.
    pub fn publish(&mut self, producer: u32) {
        self.tx.producer().store(producer, Ordering::Release);
    }

    /// Takes the chunks the kernel has finished with (their frames have left), oldest first.
    pub fn take_completed(&mut self, mut each: impl FnMut(usize)) {
        let producer = self.completion.producer().load(Ordering::Acquire);
        let mut consumer = self.completion.consumer().load(Ordering::Relaxed);
        while consumer != producer {
            let slot = (consumer & (self.completion.size - 1)) as usize;
            #[allow(unsafe_code)] // an entry the kernel published (producer read with Acquire)
            // SAFETY: slot < size, within the mapping.
            let addr = unsafe { self.completion.entries.add(slot).read_volatile() };
            each(addr as usize / self.chunk);
            consumer = consumer.wrapping_add(1);
        }
        self.completion.consumer().store(consumer, Ordering::Release);
    }

    /// Asks the kernel to send what the transmit ring holds (`sendto` with no data).
    pub fn wake(&self) -> io::Result<()> {
        #[allow(unsafe_code)] // sendto(2) with no buffer: the AF_XDP wake-up
        // SAFETY: no pointers but null ones with zero lengths.
        let rc = unsafe {
            libc::sendto(
                self.fd.as_raw_fd(),
                std::ptr::null(),
                0,
                libc::MSG_DONTWAIT,
                std::ptr::null(),
                0,
            )
        };
        if rc < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(())
        }
    }
}

fn too_big(_: std::num::TryFromIntError) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, "ring too large")
}

#[allow(unsafe_code)] // setsockopt of a plain struct or int, which no safe crate wraps for SOL_XDP
fn set_opt<T>(fd: libc::c_int, name: libc::c_int, value: &T) -> io::Result<()> {
    let len = std::mem::size_of::<T>() as libc::socklen_t;
    // SAFETY: a pointer to a live value and its size.
    let rc =
        unsafe { libc::setsockopt(fd, libc::SOL_XDP, name, std::ptr::from_ref(value).cast(), len) };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

#[allow(unsafe_code)] // getsockopt of the rings' offsets
fn mmap_offsets(fd: libc::c_int) -> io::Result<libc::xdp_mmap_offsets> {
    // SAFETY: plain old data; zero is a valid value of every field.
    let mut offsets: libc::xdp_mmap_offsets = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of::<libc::xdp_mmap_offsets>() as libc::socklen_t;
    // SAFETY: a pointer to a live struct and its size, which the kernel writes.
    let rc = unsafe {
        libc::getsockopt(
            fd,
            libc::SOL_XDP,
            libc::XDP_MMAP_OFFSETS,
            std::ptr::from_mut(&mut offsets).cast(),
            &mut len,
        )
    };
    if rc == 0 {
        Ok(offsets)
    } else {
        Err(io::Error::last_os_error())
    }
}

#[allow(unsafe_code)] // mmap of one of the socket's rings
fn map(fd: libc::c_int, len: usize, offset: libc::off_t) -> io::Result<*mut u8> {
    // SAFETY: a fresh shared mapping of the socket's ring, at an address the kernel picks.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED | libc::MAP_POPULATE,
            fd,
            offset,
        )
    };
    if p == libc::MAP_FAILED {
        Err(io::Error::last_os_error())
    } else {
        Ok(p.cast())
    }
}
