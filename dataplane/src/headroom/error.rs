//! Why a headroom could not be calculated. Each message says what was wrong and what to change.

/// A headroom calculation that cannot give a trustworthy number. The calculator never guesses:
/// an allowance that is too small loses frames, so a bad input is refused, not patched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum HeadroomError {
    /// A frame size below the 64-octet IEEE 802.3 minimum (FCS included).
    #[error(
        "the {what} size of {octets} octets is below the 64-octet minimum frame \
         (sizes here include the FCS): configure at least 64"
    )]
    FrameTooSmall { what: &'static str, octets: u64 },
    /// A configured medium with a propagation velocity of zero.
    #[error(
        "the cable medium has a propagation velocity of 0 m/s, so its delay is infinite: \
         configure its velocity (fibre is 200 000 000 m/s) or give the link delay as a time"
    )]
    ZeroPropagationVelocity,
    /// One delay is too large to be added up in 63-bit bit-time arithmetic.
    #[error(
        "the {what} is too large to calculate with (over 2^63 bit times): check the configured value"
    )]
    TooLarge { what: &'static str },
    /// The delays add up to less than zero: only a negative PFC Local Delay from the peer can do
    /// that.
    #[error(
        "the delays add up to {bits} bit times, below zero, because of a negative peer delay: \
         check the peer's PFC Local Delay TLV, or configure the peer's delays instead"
    )]
    NegativeTotal { bits: i64 },
}
