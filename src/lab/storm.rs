//! A lab port's peer storm: which classes the test engineer asked the port's simulated peer to
//! hold paused (pfcd-lab's `peer-storms`), and when each first held the port. Shared between the
//! northbound side, which asks, and the port's thread, which runs the peer.

use std::sync::atomic::{AtomicU16, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::SystemTime;

use dataplane::watchdog::{CLASSES, LINK_PAUSE};

/// One port's storm: asked (bit n = priority n, bit [`LINK_PAUSE`] = 802.3x PAUSE) and begun.
#[derive(Debug, Default)]
pub struct PeerStorm {
    asked: AtomicU16,
    began: Mutex<[Option<SystemTime>; CLASSES]>,
}

impl PeerStorm {
    /// The peer holds `classes` paused from the port's next step on, and releases the others.
    pub fn ask(&self, classes: u16) {
        self.asked.store(classes, Ordering::Relaxed);
    }

    pub fn asked(&self) -> u16 {
        self.asked.load(Ordering::Relaxed)
    }

    /// The PFC priorities asked for (bit n = priority n).
    pub fn priorities(classes: u16) -> u8 {
        (classes & 0xff) as u8
    }

    /// Whether an 802.3x PAUSE storm is asked for.
    pub fn link_pause(classes: u16) -> bool {
        classes & (1 << LINK_PAUSE) != 0
    }

    /// When each class's storm first held the port (by the lab's clock), as the port's thread
    /// last recorded.
    pub fn began(&self) -> [Option<SystemTime>; CLASSES] {
        *self.began.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub fn record_began(&self, began: [Option<SystemTime>; CLASSES]) {
        *self.began.lock().unwrap_or_else(PoisonError::into_inner) = began;
    }
}
