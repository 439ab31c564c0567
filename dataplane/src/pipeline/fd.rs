/// A frame descriptor: what travels through the pipeline instead of the frame's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fd {
    pub port: u8,
    pub priority: u8,
    /// Frame length in octets (FCS excluded).
    pub len: u16,
    /// Order of this frame within its (port, priority), assigned when QMAN enqueued it.
    pub seq: u64,
    /// Handle of the payload buffer in the pool (the payload never moves).
    pub buffer: u32,
    /// Set while the FD is on its way back from external memory (FD_REC flushed back).
    pub flushed: bool,
}

/// Index of an FD in the engine's slab.
pub(crate) type FdId = u32;

/// FDs live in a slab so queues hold 4-octet handles.
#[derive(Debug, Default)]
pub(crate) struct FdSlab {
    fds: Vec<Fd>,
    free: Vec<FdId>,
}

impl FdSlab {
    pub fn insert(&mut self, fd: Fd) -> FdId {
        match self.free.pop() {
            Some(id) => {
                self.fds[id as usize] = fd;
                id
            }
            None => {
                self.fds.push(fd);
                (self.fds.len() - 1) as FdId
            }
        }
    }

    pub fn get(&self, id: FdId) -> &Fd {
        &self.fds[id as usize]
    }

    pub fn get_mut(&mut self, id: FdId) -> &mut Fd {
        &mut self.fds[id as usize]
    }

    pub fn remove(&mut self, id: FdId) -> Fd {
        self.free.push(id);
        self.fds[id as usize]
    }

    pub fn live(&self) -> usize {
        self.fds.len() - self.free.len()
    }
}
