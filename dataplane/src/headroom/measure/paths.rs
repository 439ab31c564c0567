//! requestPath and responsePath (36.10): which interface of the stack requests and responses
//! are sent and received on, chosen by the path code the MACsec/Privacy state selects (36.9.5,
//! 36.9.7).
//!
//! A request follows the PFC frame's path, a response the user data's. Only with path code 1
//! (PFC frames unprotected, user data MACsec protected) do they differ: requests then use the
//! SecY's Uncontrolled Port and responses its Controlled Port, in separate HMPDUs.

use crate::wire::PathCode;

/// An interface of the stack an HMPDU can be sent or received through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Interface {
    /// Unprotected: the MAC directly, or a SecY's Uncontrolled Port.
    Unprotected,
    /// A SecY's Controlled Port: MACsec protected.
    Secy,
    /// The Express Privacy Channel of a PrY.
    ExpressPrivacy,
}

/// The two paths of a participant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Paths {
    /// requestPath: where requests go and come from (the PFC frames' path).
    pub request: Interface,
    /// responsePath: where responses go and come from (the user data's path).
    pub response: Interface,
}

impl Paths {
    /// The paths a path code names (36.9.5 bits 4-3).
    pub const fn for_path(path: PathCode) -> Self {
        let (request, response) = match path {
            PathCode::Unprotected => (Interface::Unprotected, Interface::Unprotected),
            PathCode::DataProtected => (Interface::Unprotected, Interface::Secy),
            PathCode::Protected => (Interface::Secy, Interface::Secy),
            // 36.9.5: requests and responses both in the Express Privacy Channel.
            PathCode::Privacy => (Interface::ExpressPrivacy, Interface::ExpressPrivacy),
        };
        Paths { request, response }
    }

    /// requestPath == responsePath: one Common Path Transmission machine, requests and responses
    /// may share an HMPDU.
    pub fn common(&self) -> bool {
        self.request == self.response
    }

    /// Whether HMPDUs are accepted from `via` at all.
    pub fn carries(&self, via: Interface) -> bool {
        via == self.request || via == self.response
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_unprotected_pfc_with_protected_data_separates_the_paths() {
        let common = [PathCode::Unprotected, PathCode::Protected, PathCode::Privacy];
        assert!(common.iter().all(|&p| Paths::for_path(p).common()));
        let split = Paths::for_path(PathCode::DataProtected);
        assert!(!split.common());
        assert_eq!((split.request, split.response), (Interface::Unprotected, Interface::Secy));
        assert!(!split.carries(Interface::ExpressPrivacy));
    }
}
