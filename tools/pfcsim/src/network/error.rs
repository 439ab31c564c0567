//! Why a network file could not be run.

/// Why a network could not be run; each message says what to change.
#[derive(Debug, thiserror::Error)]
pub enum NetworkError {
    #[error("cannot read network file {path}: {source}")]
    Read { path: String, source: std::io::Error },
    #[error("network file {path} is not a valid network: {message}")]
    Parse { path: String, message: String },
    #[error("[run] duration_us, sample_us and window_us must each be at least 1")]
    RunTimes,
    #[error("node name \"{0}\" is empty or used twice: give each bridge and host its own name")]
    Name(String),
    #[error("bridge {bridge} names port \"{port}\" twice or empty: give each port its own name")]
    PortName { bridge: String, port: String },
    #[error("priority {0} does not exist: priorities are 0 to 7")]
    Priority(u8),
    #[error("max_transit_ms is {0}: give 1 to 4000 (802.1Q 6.5.6), or leave it out for no limit")]
    Transit(u64),
    #[error(
        "link end \"{0}\" names no port: write a host's name, or \"bridge:port\" with a port the \
         bridge lists"
    )]
    Endpoint(String),
    #[error("link end \"{0}\" is already linked (or linked to itself): a port takes one link")]
    LinkedTwice(String),
    #[error("the link of {0} m is too long to calculate with: at most 4 294 967 295 m")]
    TooLong(u64),
    #[error("flow path names \"{0}\", which is no bridge or host of the file")]
    FlowNode(String),
    #[error("flow {0}: its path must start and end at a host and cross only bridges between")]
    FlowPath(String),
    #[error("no link joins {0} and {1}, which a flow's path crosses one after the other")]
    NotLinked(String, String),
    #[error("more than one link joins {0} and {1}: a flow's path could take either; keep one")]
    Ambiguous(String, String),
    #[error("flow {flow}: rate_mbps must be 1 to {max}, the speed of its host's link")]
    Rate { flow: String, max: u64 },
    #[error("flow {0}: stop_us must be after start_us")]
    FlowTimes(String),
    #[error(transparent)]
    Speed(#[from] dataplane::time::ParseLinkSpeedError),
    #[error(transparent)]
    Headroom(#[from] dataplane::headroom::HeadroomError),
    #[error("a bridge's buffer_octets: {0}")]
    Plan(#[from] dataplane::headroom::BufferPlanError),
    #[error("a bridge's [bridge.watchdog]: {0}")]
    Watchdog(#[from] crate::ScenarioError),
}
