//! Input the graph refuses, each saying what to fix.

/// Why a link or an observation was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GraphError {
    #[error("port {device}:{port} is already linked to {peer}: a port has one link")]
    PortLinkedTwice { device: String, port: String, peer: String },
    #[error("link from {device}:{port} to itself: a link joins two different ports")]
    LinkToItself { device: String, port: String },
    #[error("priority {0} does not exist: priorities are 0 to 7")]
    Priority(u8),
    #[error("device name is empty: name every device")]
    EmptyDevice,
}
